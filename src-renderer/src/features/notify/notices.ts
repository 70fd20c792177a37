// The epics a sync noted as changed on the service (EpicNotice, written with
// the rows by data/sync/cache.ts), as the notifications take them. Every
// window of the workspace lists each; one shows it as the system's
// notification. Plain functions.
import type { OutpostDb } from '../../data/db.ts'
import type { EpicNotice, NoticedEpic } from '../../data/types.ts'
import type { Names } from './changes.ts'

/** A noted change older than this is not news any more: not told when a window first looks, and deleted (ms). */
export const STALE_MS = 60 * 60_000

/**
 * Marks the notices not yet told as told, in one transaction, and returns their sequence numbers: of the
 * workspace's windows, the one that marks a notice shows it, and no other. Notices gone stale are deleted.
 */
export function claimNotices(db: OutpostDb, notices: readonly EpicNotice[], now: number): Promise<Set<number>> {
  return db.transaction('rw', db.epicNotices, async () => {
    const rows = await db.epicNotices.bulkGet(notices.map((n) => n.seq!))
    const claimed = rows.filter((n): n is EpicNotice => n !== undefined && !n.told && n.at >= now - STALE_MS)
    if (claimed.length > 0) await db.epicNotices.bulkPut(claimed.map((n) => ({ ...n, told: true as const })))
    const stale = await db.epicNotices.filter((n) => n.at < now - STALE_MS).primaryKeys()
    if (stale.length > 0) await db.epicNotices.bulkDelete(stale)
    return new Set(claimed.map((n) => n.seq!))
  })
}

export interface EpicChange {
  was: NoticedEpic
  now: NoticedEpic
  /** The notices it is made of. */
  seqs: number[]
}

/** Each epic the notices name, from its first version noted to its last (an epic changed twice is one change); stale ones left out. */
export function changedEpics(notices: readonly EpicNotice[], now: number): Map<string, EpicChange> {
  const changed = new Map<string, EpicChange>()
  for (const { seq, before, after, at } of [...notices].sort((a, b) => a.seq! - b.seq!)) {
    if (at < now - STALE_MS) continue
    const id = String(after.id)
    const held = changed.get(id)
    changed.set(id, { was: held?.was ?? before, now: after, seqs: [...(held?.seqs ?? []), seq!] })
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
