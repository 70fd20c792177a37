// The epic list's first screen as the window last showed it, kept in
// localStorage: the next start paints it at once, before IndexedDB has
// answered (opening a filled cache in a just-started browser takes 250 ms or
// more, before any read), and the cache's own read replaces it a moment later.
//
// It holds what the rows show of the 60 most recently updated active epics,
// local changes included (names, states, owners, dates; no descriptions),
// under the database's name; removing the workspace removes it. Never a token.
import { readStoredJson, workspaceKey, writeStored } from '../lib/stored.ts'
import { rowProblem } from '../data/row-checks.ts'
import type { CachedEpic } from '../data/types.ts'

/** More rows than the tallest window shows. */
export const FIRST_SCREEN_ROWS = 60

const keyOf = (dbName: string) => workspaceKey('first-screen', dbName)

/** The first screen saved for this database, or undefined (none, or not readable). */
export function readFirstScreen(dbName: string): CachedEpic[] | undefined {
  const saved = readStoredJson(keyOf(dbName))
  return Array.isArray(saved) ? saved.filter((row): row is CachedEpic => rowProblem('epic', row) === null) : undefined
}

/** Saves the first screen of the default view (active epics, most recently updated first) of `epics`. */
export function saveFirstScreen(dbName: string, epics: readonly CachedEpic[]): void {
  // Not kept (storage full or denied): the next start paints when the cache answers.
  writeStored(keyOf(dbName), JSON.stringify(newestActive(epics, FIRST_SCREEN_ROWS).map((e) => ({ ...e, description: '' }))))
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
