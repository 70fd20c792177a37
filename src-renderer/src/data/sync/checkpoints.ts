// What the sync engine remembers between runs, one row of `checkpoints` per
// kind of data: whether its bootstrap finished, where an unfinished walk of
// pages stands (written in the same transaction as the page it follows, so a
// run killed at any point resumes after the last page it stored), the
// incremental mark of epics and docs, and when each kind was last fetched.
import type { OutpostDb } from '../db.ts'
import type { Checkpoint } from '../types.ts'

/**
 * The kinds of data sync fetches, in the order one run fetches them. Reference
 * data first (names the lists show), then the v3 epic list (every epic with its
 * position, in one request), the epic pages (descriptions, comments, health),
 * the doc sweep and doc pages, then files.
 */
export const SYNC_KINDS = [
  'members',
  'groups',
  'epicStates',
  'categories',
  'objectives',
  'labels',
  'customFields',
  'epicList',
  'epics',
  'docList',
  'docs',
  'files',
  'linkedFiles',
] as const
export type SyncKind = (typeof SYNC_KINDS)[number]

/** Kinds that are whole lists, fetched again when due and replacing what the cache held. */
export const REFERENCE_KINDS = ['members', 'groups', 'epicStates', 'categories', 'objectives', 'labels', 'customFields'] as const
export const FILE_KINDS = ['files', 'linkedFiles'] as const
/** Id sweeps: one v3 list each, run less often, to find what was deleted on the service. */
export const SWEEP_KINDS = ['epicList', 'docList'] as const
/** v4 pages ordered by updated_at: walked down to the checkpoint on every run. */
export const WALK_KINDS = ['epics', 'docs'] as const
export type WalkKind = (typeof WALK_KINDS)[number]

export interface KindCheckpoint extends Checkpoint {
  kind: SyncKind
  /** The kind's first full fetch is stored. */
  bootstrapped: boolean
  /** Next page of an unfinished walk (v4 cursor), else null. */
  cursor: string | null
  /** Items the unfinished walk has stored, and how many the list holds (progress). */
  done: number
  total: number
  /**
   * Walk kinds: the newest updated_at on the service when the last finished walk
   * began. The next walk reads down to it, minus the overlap. The epic list: the
   * newest updated_at its last list held (a bootstrap reads down to it again).
   */
  since: string | null
  /** The `since` the unfinished walk will leave when it ends. */
  walkSince: string | null
  /** Local clock (ms) of the last finished fetch of this kind: when it is due again. */
  syncedAt: number | null
  /** The service refused the kind's last fetch (403 feature disabled, ...): what it said. */
  failure: { status?: number; message: string } | null
  /** Walk kinds: a bootstrap walk from both ends under way (walk.ts), where each end stands; else null. */
  ends: WalkEnds | null
}

/** One end of a walk from both ends: the newest first (desc) or the oldest first (asc). */
export interface WalkEnd {
  /** Its next page, once it has a first one. */
  cursor: string | null
  /** Pages it has brought (each covers a page's worth of the list, whatever it held). */
  pages: number
  /** It needs no more pages: it met the other end, or reached the list's end. */
  finished: boolean
}

export interface WalkEnds {
  /** How many the list held when its newest end began (its first page's total), once known. */
  total: number | null
  desc: WalkEnd
  asc: WalkEnd
}

export const freshEnds = (): WalkEnds => ({ total: null, desc: { cursor: null, pages: 0, finished: false }, asc: { cursor: null, pages: 0, finished: false } })

export function freshCheckpoint(kind: SyncKind): KindCheckpoint {
  return { kind, bootstrapped: false, cursor: null, done: 0, total: 0, since: null, walkSince: null, syncedAt: null, failure: null, ends: null }
}

export async function readCheckpoint(db: OutpostDb, kind: SyncKind): Promise<KindCheckpoint> {
  const row = (await db.checkpoints.get(kind)) as Partial<KindCheckpoint> | undefined
  return { ...freshCheckpoint(kind), ...row, kind }
}

export async function readCheckpoints(db: OutpostDb): Promise<Map<SyncKind, KindCheckpoint>> {
  const rows = await db.checkpoints.bulkGet([...SYNC_KINDS])
  return new Map(SYNC_KINDS.map((kind, i) => [kind, { ...freshCheckpoint(kind), ...(rows[i] as Partial<KindCheckpoint> | undefined), kind }]))
}

/** Has every kind finished its bootstrap? (liveQuery-friendly: one read.) */
export async function isBootstrapped(db: OutpostDb): Promise<boolean> {
  const all = await readCheckpoints(db)
  return [...all.values()].every((c) => c.bootstrapped)
}
