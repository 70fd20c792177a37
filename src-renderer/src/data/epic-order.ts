// The epic list's default order, and keeping a list in it as some epics change
// (the list takes in a sync page's 100 epics without reading 10,000 again).
import type { CachedEpic } from './types.ts'
import type { ChangedKeys } from './watch.ts'

/** Strings by code unit, as IndexedDB orders them (ISO times sort as the times do). */
export const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The list's default order: latest updated first, equal times in the cache's key
 * order (the service's ids ascending, then the epics created here by local id).
 */
export function newestOrder(a: CachedEpic, b: CachedEpic): number {
  const byTime = compareText(b.updated_at, a.updated_at)
  if (byTime !== 0) return byTime
  if (typeof a.id === 'number' && typeof b.id === 'number') return a.id - b.id
  if (typeof a.id === 'number') return -1
  if (typeof b.id === 'number') return 1
  return compareText(String(a.id), String(b.id))
}

/**
 * A list in `newestOrder` with some epics (by `String(id)`) replaced, added or, when undefined, removed:
 * a new list in the same order, as a whole read would give (one pass over the list, a sort of the changed).
 */
export function replaceInOrder(list: readonly CachedEpic[], changed: ReadonlyMap<string, CachedEpic | undefined>): CachedEpic[] {
  const fresh = [...changed.values()].filter((e): e is CachedEpic => e !== undefined).sort(newestOrder)
  const out: CachedEpic[] = []
  let f = 0
  for (const epic of list) {
    if (changed.has(String(epic.id))) continue
    while (f < fresh.length && newestOrder(fresh[f], epic) < 0) out.push(fresh[f++])
    out.push(epic)
  }
  while (f < fresh.length) out.push(fresh[f++])
  return out
}

/** The epics (by `String(id)`) that changes to the epics table and the epics' overlay rows name. */
export function epicIdsIn(changed: ChangedKeys): string[] {
  const ids = (changed.get('epics') ?? []).map(String)
  for (const key of changed.get('overlay') ?? []) ids.push(String((key as [string, string])[1]))
  return [...new Set(ids)]
}
