// Which queued records may go now, and which may go together in one request:
// the order per entity, what waits for a create, a delete or a rename, and the
// batches the API allows (epic updates and creates in bulk, uploads four a
// request).
import { recordProblem } from '../row-checks.ts'
import type { EntityId, OutboxRecord } from '../types.ts'
import { localIdsIn, type WritableKind } from './kinds.ts'
import { REQUESTS } from './requests.ts'

export function bulkable(r: OutboxRecord): boolean {
  return r.kind === 'epic' && r.op === 'update' && !('label_ids' in r.payload)
}

export interface Batch {
  max: number
  fits(r: OutboxRecord): boolean
  maxBytes: number
  bytes(r: OutboxRecord): number
}

/** Which records may go in one request with `first`: epic updates (bulk PATCH), and creates of a kind that has a batch form. */
export function batchOf(first: OutboxRecord, bulkSize: number): Batch | null {
  const none = () => 0
  if (first.op === 'update') return bulkable(first) ? { max: bulkSize, fits: bulkable, maxBytes: Number.POSITIVE_INFINITY, bytes: none } : null
  const batch = first.op === 'create' ? REQUESTS[first.kind as WritableKind]?.batch : undefined
  if (!batch || !batch.fits(first)) return null
  return {
    max: first.kind === 'epic' ? Math.min(batch.max, bulkSize) : batch.max,
    fits: (r) => r.kind === first.kind && r.op === 'create' && batch.fits(r),
    maxBytes: batch.maxBytes ?? Number.POSITIVE_INFINITY,
    bytes: batch.bytes ?? none,
  }
}

export function entityKey(kind: string, id: unknown): string {
  return `${kind}:${String(id)}`
}

/** The entities a record lives under: a comment's epic (and parent), a link's doc and epic. */
function parentKeys(r: OutboxRecord): string[] {
  const p = r.params ?? {}
  const keys: string[] = []
  if (p.epic_id !== undefined && p.epic_id !== null) keys.push(entityKey('epic', p.epic_id))
  if (p.doc_id !== undefined && p.doc_id !== null) keys.push(entityKey('doc', p.doc_id))
  if (p.parent_id !== undefined && p.parent_id !== null) keys.push(entityKey('comment', p.parent_id))
  return keys
}

/**
 * The records that may go now: the first of their entity still queued, not
 * waiting for a create of something they name (a local id), not a delete of
 * something earlier records still live under, not under something being
 * created or deleted, not naming by name something whose rename may not be
 * in the cache yet (an earlier one, or one in flight); and pending or in flight (failed and conflict
 * records wait for the user, and so does what comes after them).
 */
export function readyRecords(all: OutboxRecord[]): OutboxRecord[] {
  // A record that is not what Outpost wrote (corrupt, or another program's) never goes: run() reports it.
  const sorted = all.filter((r) => recordProblem(r) === null).sort((a, b) => a.seq! - b.seq!)
  const earlier = new Set<string>()
  const parentsOfEarlier = new Set<string>()
  const createdOrDeleted = new Set<string>()
  const renaming = new Set<string>()
  // A rename in flight may be on the service already, its answer unheard, whichever record came first.
  const renamingNow = new Set(sorted.filter((r) => r.state === 'in-flight' && 'name' in r.payload).map((r) => entityKey(r.kind, r.entityId)))
  const out: OutboxRecord[] = []
  for (const r of sorted) {
    const key = entityKey(r.kind, r.entityId)
    const parents = parentKeys(r)
    const own = r.op === 'create' ? [r.entityId] : []
    const waitsForCreate = localIdsIn([r.entityId, r.params, r.payload]).some((id) => !own.includes(id))
    const byName = NAMED_BY_NAME[r.kind]
    const named = byName && Array.isArray(r.payload[byName.field]) ? (r.payload[byName.field] as EntityId[]) : []
    const waits =
      earlier.has(key) ||
      (r.op === 'delete' && parentsOfEarlier.has(key)) ||
      parents.some((k) => createdOrDeleted.has(k)) ||
      waitsForCreate ||
      named.some((id) => renaming.has(entityKey(byName!.kind, id)) || renamingNow.has(entityKey(byName!.kind, id)))
    if (!waits && (r.state === 'pending' || r.state === 'in-flight')) out.push(r)
    earlier.add(key)
    for (const k of parents) parentsOfEarlier.add(k)
    if (r.op !== 'update') createdOrDeleted.add(key)
    if ('name' in r.payload && (r.state === 'pending' || r.state === 'in-flight')) renaming.add(key)
  }
  return out
}

/**
 * Lists a write sends by name, not id: an objective's categories go as `{name}`, and the service takes
 * the category of that name, or makes one. A rename of one of them that may have reached the service
 * before the cache heard of it (in flight, whether queued before or after the write), or that was queued
 * before the write, goes first: sent with the name the cache has, the list would make the service create
 * a category with the old name.
 */
const NAMED_BY_NAME: Partial<Record<string, { field: string; kind: WritableKind }>> = {
  objective: { field: 'category_ids', kind: 'category' },
}
