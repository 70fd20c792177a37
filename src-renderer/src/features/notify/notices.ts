// The epics a sync noted as changed on the service (EpicNotice, written with
// the rows by data/sync/cache.ts), taken for the notifications. Plain functions.
import type { OutpostDb } from '../../data/db.ts'
import type { CachedEpic, EpicNotice } from '../../data/types.ts'
import type { Names } from './changes.ts'

/** A noted change older than this when a window takes it (no window was open to) is not news any more (ms). */
export const STALE_MS = 60 * 60_000

/**
 * The notices of `seen` still in the table, deleted in the same transaction: of the workspace's windows,
 * the one that deletes a notice has it, and no other.
 */
export function takeNotices(db: OutpostDb, seen: readonly EpicNotice[]): Promise<EpicNotice[]> {
  return db.transaction('rw', db.epicNotices, async () => {
    const still = (await db.epicNotices.bulkGet(seen.map((n) => n.seq!))).filter((n): n is EpicNotice => n !== undefined)
    await db.epicNotices.bulkDelete(still.map((n) => n.seq!))
    return still
  })
}

/** Each epic the notices name, from its first version noted to its last (an epic changed twice is one change); stale ones left out. */
export function changedEpics(notices: readonly EpicNotice[], now: number): Map<string, { was: CachedEpic; now: CachedEpic }> {
  const changed = new Map<string, { was: CachedEpic; now: CachedEpic }>()
  for (const { before, after, at } of [...notices].sort((a, b) => a.seq! - b.seq!)) {
    if (at < now - STALE_MS) continue
    const id = String(after.id)
    changed.set(id, { was: changed.get(id)?.was ?? before, now: after })
  }
  return changed
}

/** The names of the states and members, read from the cache when a change is told (the screens' lists of them need not be live). */
export async function namesIn(db: OutpostDb): Promise<Names> {
  const [states, members] = await Promise.all([db.epicStates.toArray(), db.members.toArray()])
  const stateById = new Map(states.map((s) => [String(s.id), s.name]))
  const memberById = new Map(members.map((m) => [m.id, m.name]))
  return {
    state: (id) => (id === null ? 'No state' : (stateById.get(String(id)) ?? 'Unknown state')),
    member: (id) => memberById.get(id) ?? 'Someone',
  }
}
