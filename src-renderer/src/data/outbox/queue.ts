// Appending a write to the outbox, coalesced with the writes still waiting for
// the same entity (never with one already in flight, failed or in conflict):
//   update + update  -> one update (fields merged, the earliest base kept), unless
//                       the first was sent before: it may be on the service
//                       (an answer lost), and the second goes after it
//   create + update  -> the create, with the update's fields folded in
//   create + delete  -> nothing at all (and nothing that depended on the create),
//                       but for a comment with replies queued: the replies stay,
//                       as the service keeps them, so the comment is made and deleted
//   update + delete  -> the delete
// Everything here runs inside the caller's transaction (see actions.ts), which
// also rebuilds the overlay, so the change is visible and durable at once.
import type { OutpostDb } from '../db.ts'
import { rebuildOverlay, rebuildOverlays } from '../overlay.ts'
import { recordProblem } from '../row-checks.ts'
import type { EntityId, OutboxOp, OutboxRecord, StagedFile } from '../types.ts'
import { isLocalId, localIdsIn, type WritableKind } from './kinds.ts'

export interface NewRecord {
  kind: WritableKind
  entityId: string
  op: OutboxOp
  payload: Record<string, unknown>
  base?: Record<string, unknown>
  params?: Record<string, EntityId | null>
  externalId?: string
  baseUpdatedAt?: string
  staged?: StagedFile
}

export interface Enqueued {
  /** The record the write went into (a new one or the one it was coalesced with); none when it cancelled out. */
  seq?: number
  /** Records removed by coalescing or cascading (their staged files can go). */
  removed: OutboxRecord[]
}

/** The queued records of one entity, oldest first. */
export async function recordsOf(db: OutpostDb, kind: string, entityId: string): Promise<OutboxRecord[]> {
  const list = await db.outbox.where('[kind+entityId]').equals([kind, entityId]).toArray()
  // A record that is not what Outpost wrote is never coalesced into or cancelled (problems.ts).
  return list.filter((r) => recordProblem(r) === null).sort((a, b) => a.seq! - b.seq!)
}

/** The kinds whose records name an entity of `kind` in their params (children that go when it goes). */
const CHILD_PARAM: Partial<Record<WritableKind, string>> = { epic: 'epic_id', doc: 'doc_id' }

/** `journal`: the ids of the journal entries that hold this write (outbox/journal.ts); the record it goes into holds them. */
export async function enqueue(db: OutpostDb, rec: NewRecord, now: number, journal: number[] = []): Promise<Enqueued> {
  const same = await recordsOf(db, rec.kind, rec.entityId)
  const last = same.at(-1)
  const removed: OutboxRecord[] = []
  const holding = (r: OutboxRecord) => (journal.length > 0 ? { ...r, journal: [...(r.journal ?? []), ...journal] } : r)
  const fresh = (): OutboxRecord => ({
    kind: rec.kind,
    entityId: rec.entityId,
    op: rec.op,
    payload: rec.payload,
    base: rec.base ?? {},
    state: 'pending',
    attempts: 0,
    createdAt: now,
    updatedAt: now,
    ...(rec.params && { params: rec.params }),
    ...(rec.externalId && { externalId: rec.externalId }),
    ...(rec.baseUpdatedAt && { baseUpdatedAt: rec.baseUpdatedAt }),
    ...(rec.staged && { staged: rec.staged }),
    ...(journal.length > 0 && { journal }),
  })

  let seq: number | undefined
  switch (rec.op) {
    case 'update': {
      if (last?.op === 'delete') throw new Error('This item is being deleted; it can no longer be changed.')
      if (last?.state === 'pending' && last.op === 'create') {
        last.payload = { ...last.payload, ...rec.payload }
        last.updatedAt = now
        await db.outbox.put(holding(last))
        seq = last.seq
      } else if (last?.state === 'pending' && last.op === 'update' && last.attempts === 0) {
        // Never sent: merged. One that was (its answer lost, reported as unreachable) may be on the service;
        // merged, its value would be lost from the record and come back as someone else's change (a conflict).
        last.payload = { ...last.payload, ...rec.payload }
        // The earliest base of a field is what the user started from.
        last.base = { ...(rec.base ?? {}), ...last.base }
        last.baseUpdatedAt = last.baseUpdatedAt ?? rec.baseUpdatedAt
        last.updatedAt = now
        await db.outbox.put(holding(last))
        seq = last.seq
      } else {
        seq = await db.outbox.add(fresh())
      }
      break
    }
    case 'delete': {
      if (last?.op === 'delete') {
        if (journal.length > 0) await db.outbox.put(holding(last))
        seq = last.seq
        break
      }
      // What is still waiting for this entity is superseded by its deletion.
      const waiting: OutboxRecord[] = []
      for (let i = same.length - 1; i >= 0 && same[i].state === 'pending'; i--) waiting.unshift(same[i])
      // A comment's replies outlive it (the service keeps a deleted placeholder holding them): one made here that has
      // replies queued under it is made all the same and deleted after them, or the replies would go with it.
      if (waiting.some((r) => r.op === 'create') && (await hasQueuedReplies(db, rec))) {
        seq = await db.outbox.add(fresh())
        break
      }
      for (const r of waiting) await db.outbox.delete(r.seq!)
      removed.push(...waiting)
      if (waiting.some((r) => r.op === 'create')) {
        // Created and deleted before the service ever saw it: nothing to send, nothing to show.
        removed.push(...(await forgetLocalEntity(db, rec.entityId, now)))
      } else {
        seq = await db.outbox.add(fresh())
        removed.push(...(await dropChildren(db, rec.kind, rec.entityId, now)))
      }
      break
    }
    case 'create': {
      if (rec.kind === 'docEpic' && last?.op === 'delete' && last.state === 'pending') {
        // Unlinked then linked again before either was sent: the link simply stays.
        await db.outbox.delete(last.seq!)
        removed.push(last)
        break
      }
      if (last?.op === 'create' && last.state !== 'failed') {
        if (journal.length > 0) await db.outbox.put(holding(last))
        seq = last.seq
        break
      }
      seq = await db.outbox.add(fresh())
      break
    }
  }
  await rebuildOverlay(db, rec.kind, rec.entityId, now)
  return { seq, removed }
}

/**
 * An entity created offline is gone before the service saw it (its create was
 * cancelled or discarded): records that live under it (its comments, its links)
 * go too, and other records stop naming it (an epic's objective_ids).
 */
export async function forgetLocalEntity(db: OutpostDb, localId: string, now: number): Promise<OutboxRecord[]> {
  if (!isLocalId(localId)) return []
  const removed: OutboxRecord[] = []
  const touched: OutboxRecord[] = []
  for (const r of await db.outbox.toArray()) {
    if (r.state === 'in-flight' || recordProblem(r) || !localIdsIn([r.entityId, r.params, r.payload]).includes(localId)) continue
    const lives =
      r.entityId === localId || r.entityId.includes(`${localId}|`) || r.entityId.includes(`|${localId}`) || Object.values(r.params ?? {}).includes(localId)
    if (lives) {
      await db.outbox.delete(r.seq!)
      removed.push(r, ...(await forgetLocalEntity(db, r.entityId, now)))
    } else {
      r.payload = scrub(r.payload, localId) as Record<string, unknown>
      r.updatedAt = now
      await db.outbox.put(r)
    }
    touched.push(r)
  }
  for (const o of await db.overlay.toArray()) {
    if (o.id === localId || o.id.startsWith(`${localId}|`) || o.id.endsWith(`|${localId}`)) await db.overlay.delete([o.kind, o.id])
  }
  await rebuildOverlays(db, touched, now)
  return removed
}

/** Whether replies to this comment are queued (made here, not on the service yet). */
async function hasQueuedReplies(db: OutpostDb, rec: NewRecord): Promise<boolean> {
  if (rec.kind !== 'comment') return false
  return (await db.outbox.filter((r) => r.kind === 'comment' && r.op === 'create' && r.params?.parent_id === rec.entityId).count()) > 0
}

/** Waiting records that live under an entity being deleted (comments on an epic, links of a doc) are pointless now. */
async function dropChildren(db: OutpostDb, kind: WritableKind, entityId: string, now: number): Promise<OutboxRecord[]> {
  const param = CHILD_PARAM[kind]
  if (!param) return []
  const children = (await db.outbox.toArray()).filter(
    (r) => r.state !== 'in-flight' && !recordProblem(r) && r.params && r.params[param] !== undefined && String(r.params[param]) === entityId,
  )
  for (const r of children) await db.outbox.delete(r.seq!)
  await rebuildOverlays(db, children, now)
  return children
}

/** A value without a given id: removed from lists, a field that was it becomes null. */
function scrub(value: unknown, id: string): unknown {
  if (value === id) return null
  if (Array.isArray(value)) return value.filter((v) => v !== id).map((v) => scrub(v, id))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, id)]))
  return value
}
