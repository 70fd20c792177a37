// The epic list's first screen as the window last showed it, kept in
// localStorage: the next start paints it at once, before IndexedDB has
// answered (opening a filled cache in a just-started browser takes 250 ms or
// more, before any read), and the cache's own read replaces it a moment later.
//
// It holds what the rows show of the 60 most recently updated active epics,
// local changes included (names, states, owners, dates; no descriptions),
// under the database's name; removing the workspace removes it. Never a token.
import { rowProblem } from './problems.ts'
import type { CachedEpic } from './types.ts'

/** More rows than the tallest window shows. */
export const FIRST_SCREEN_ROWS = 60

const keyOf = (dbName: string) => `outpost:first-screen:${dbName}`

const storage = (): Storage | undefined => {
  try {
    return globalThis.localStorage
  } catch {
    return undefined
  }
}

/** The first screen saved for this database, or undefined (none, or not readable). */
export function readFirstScreen(dbName: string): CachedEpic[] | undefined {
  try {
    const saved: unknown = JSON.parse(storage()?.getItem(keyOf(dbName)) ?? 'null')
    if (!Array.isArray(saved)) return undefined
    return saved.filter((row): row is CachedEpic => rowProblem('epic', row) === null)
  } catch {
    return undefined
  }
}

/** Saves the first screen of the default view (active epics, most recently updated first) of `epics`. */
export function saveFirstScreen(dbName: string, epics: readonly CachedEpic[]): void {
  const rows = newestActive(epics, FIRST_SCREEN_ROWS).map((e) => ({ ...e, description: '' }))
  try {
    storage()?.setItem(keyOf(dbName), JSON.stringify(rows))
  } catch {
    // Storage full or denied: the next start paints when the cache answers, as it would without this.
  }
}

export function forgetFirstScreen(dbName: string): void {
  try {
    storage()?.removeItem(keyOf(dbName))
  } catch {
    // Nothing kept, or nothing to do.
  }
}

/** The `count` most recently updated active epics, newest first, in one pass (no sort of 10,000). */
function newestActive(epics: readonly CachedEpic[], count: number): CachedEpic[] {
  const top: CachedEpic[] = []
  for (const e of epics) {
    if (e.archived) continue
    if (top.length === count && e.updated_at <= top[count - 1].updated_at) continue
    let i = top.length
    while (i > 0 && top[i - 1].updated_at < e.updated_at) i--
    top.splice(i, 0, e)
    if (top.length > count) top.pop()
  }
  return top
}
