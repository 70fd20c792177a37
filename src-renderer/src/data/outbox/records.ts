// The outbox as the user sees and handles it: its state as a live query, and
// what to do with a write the service refused (fix and retry, or discard) or
// one that met someone else's change (resolve, field by field).
import type { OutpostDb } from '../db.ts'
import { mergedOne, rebuildOverlay, rebuildOverlays } from '../overlay.ts'
import { recordProblem } from '../row-checks.ts'
import type { Transport } from '../transport.ts'
import type { EntityId, OutboxRecord, OutboxState } from '../types.ts'
import { newLocalId } from './ids.ts'
import { tableKey, tableOf, UPDATABLE, type WritableKind } from './kinds.ts'
import { journaledTransaction, journalAgain, journalIdsOf, journalInside, journalRecordOf, type OutboxJournal } from './journal.ts'
import { enqueue, forgetLocalEntity, recordsOf, type NewRecord } from './queue.ts'

export interface OutboxPause {
  /** auth: the token was refused (401); read-only: it cannot write; insecure: the connection cannot be trusted. */
  reason: 'auth' | 'read-only' | 'insecure'
  message: string
  at: number
}

export interface OutboxStatus {
  /** Writes still to send (waiting or on their way). */
  pending: number
  inFlight: number
  failed: number
  conflicts: number
  /** When the oldest write still to send was queued, and how long ago that is. */
  oldestPendingAt: number | null
  oldestPendingAgeMs: number | null
  /** Set while replay is stopped until the user acts (a new token). */
  paused: OutboxPause | null
}

/** The meta row that says the outbox is paused, and why. */
export const PAUSE_KEY = 'outbox:paused'

/** The outbox's visible state; usable inside liveQuery. */
export async function outboxStatus(db: OutpostDb, now: number = Date.now()): Promise<OutboxStatus> {
  const [all, pause] = await Promise.all([db.outbox.toArray(), db.meta.get(PAUSE_KEY)])
  const records = all.filter((r) => recordProblem(r) === null)
  const count = (state: OutboxState) => records.filter((r) => r.state === state).length
  const waiting = records.filter((r) => r.state === 'pending' || r.state === 'in-flight')
  const oldest = waiting.length ? Math.min(...waiting.map((r) => r.createdAt)) : null
  return {
    pending: waiting.length,
    inFlight: count('in-flight'),
    failed: count('failed'),
    conflicts: count('conflict'),
    oldestPendingAt: oldest,
    oldestPendingAgeMs: oldest === null ? null : Math.max(0, now - oldest),
    paused: (pause?.value as OutboxPause | undefined) ?? null,
  }
}

/** The queued writes in order, optionally only some states (the failed and conflict lists of the outbox screen). */
export async function outboxRecords(db: OutpostDb, states?: OutboxState[]): Promise<OutboxRecord[]> {
  // Records that are not what Outpost wrote are reported (problems.ts), not listed.
  const all = (await db.outbox.toArray()).filter((r) => recordProblem(r) === null)
  return states ? all.filter((r) => states.includes(r.state)) : all
}

export async function setPause(db: OutpostDb, pause: OutboxPause | null): Promise<void> {
  if (pause) await db.meta.put({ key: PAUSE_KEY, value: pause })
  else await db.meta.delete(PAUSE_KEY)
}

/** A change of queued records by the user, in one transaction; the journal entries it makes pointless (`done`) are confirmed once it committed. */
const tx = <T>(db: OutpostDb, journal: OutboxJournal | undefined, run: (done: number[]) => Promise<T>) =>
  journaledTransaction(db, journal, (_appended, done) => run(done))

async function requireRecord(db: OutpostDb, seq: number): Promise<OutboxRecord> {
  const r = await db.outbox.get(seq)
  if (!r) throw new Error(`There is no queued change #${seq} (it was sent or discarded).`)
  return r
}

/**
 * Sends a failed write again, with the user's corrections (fields of its
 * payload) when given. It goes back in the queue where it was.
 */
export async function retryRecord(
  db: OutpostDb,
  seq: number,
  editedPayload?: Record<string, unknown>,
  clock: () => number = Date.now,
  journal?: OutboxJournal,
): Promise<void> {
  await tx(db, journal, async (done) => {
    const r = await requireRecord(db, seq)
    if (r.state !== 'failed') throw new Error(`Change #${seq} has not failed (it is ${r.state}).`)
    if (editedPayload) {
      const editable = r.op === 'create' ? null : UPDATABLE[r.kind as WritableKind]
      for (const [field, value] of Object.entries(editedPayload)) {
        if (editable && !editable.includes(field)) throw new Error(`"${field}" cannot be changed here.`)
        if (r.op === 'update' && !(field in r.base)) {
          const server = (await tableOf(db, r.kind).get(tableKey(r.kind, r.entityId) as never)) as Record<string, unknown> | undefined
          r.base[field] = server?.[field] ?? null
        }
        r.payload[field] = value
      }
    }
    r.state = 'pending'
    r.attempts = 0
    delete r.error
    r.updatedAt = clock()
    // Fixed by the user: the journal keeps the change as it is now.
    if (editedPayload) done.push(...(await journalAgain(db, journal, r)))
    await db.outbox.put(r)
    await rebuildOverlay(db, r.kind, r.entityId, clock())
  })
}

/**
 * Drops a queued write that is not on its way: the overlay goes back to what
 * the service has. Discarding a create also drops what depended on it (a
 * comment on the epic that will now never exist). Answers the records dropped.
 */
export async function discardRecord(
  db: OutpostDb,
  seq: number,
  options: { transport?: Pick<Transport, 'discard'>; clock?: () => number; journal?: OutboxJournal } = {},
): Promise<OutboxRecord[]> {
  const clock = options.clock ?? Date.now
  const removed = await tx(db, options.journal, async (done) => {
    const r = await requireRecord(db, seq)
    if (r.state === 'in-flight') throw new Error(`Change #${seq} is being sent; it can be discarded if it fails.`)
    await db.outbox.delete(seq)
    const dropped = [r]
    if (r.op === 'create') dropped.push(...(await forgetLocalEntity(db, r.entityId, clock())))
    // A record that was not what Outpost writes (problems.ts) has no overlay to rebuild.
    await rebuildOverlays(
      db,
      dropped.filter((d) => recordProblem(d) === null),
      clock(),
    )
    done.push(...journalIdsOf(dropped))
    return dropped
  })
  for (const r of removed) if (r.staged) await options.transport?.discard(r.staged.path).catch(() => undefined)
  return removed
}

/** Per field: keep mine, take theirs, or a value of the user's own. */
export type ConflictChoice = 'mine' | 'theirs' | { value: unknown }

/**
 * Resolves a conflict. For changed fields, a choice per field ('mine' or
 * 'theirs' alone chooses for all). For a "deleted elsewhere" conflict, 'theirs'
 * accepts the deletion and 'mine' queues the entity again as a new one.
 */
export async function resolveConflict(
  db: OutpostDb,
  seq: number,
  choices: Record<string, ConflictChoice> | 'mine' | 'theirs',
  options: { clock?: () => number; uuid?: () => string; journal?: OutboxJournal } = {},
): Promise<{ recreatedAs?: string }> {
  const clock = options.clock ?? Date.now
  const uuid = options.uuid ?? (() => crypto.randomUUID())
  const { journal } = options
  // The journal entries the resolution makes pointless are confirmed once it committed.
  return tx(db, journal, async (done) => {
    const r = await requireRecord(db, seq)
    if (r.state !== 'conflict' || !r.conflict) throw new Error(`Change #${seq} is not in conflict.`)
    const now = clock()

    if (r.conflict.deletedElsewhere) {
      if (typeof choices !== 'string') throw new Error(`Change #${seq} met a deletion: choose 'theirs' (let it go) or 'mine' (create it again).`)
      const choice = choices
      const seen = await mergedOne<Record<string, unknown>>(db, r.kind, r.entityId)
      for (const other of await recordsOf(db, r.kind, r.entityId)) {
        if (other.state === 'in-flight') continue
        await db.outbox.delete(other.seq!)
        done.push(...journalIdsOf([other]))
      }
      await tableOf(db, r.kind).delete(tableKey(r.kind, r.entityId) as never)
      await rebuildOverlay(db, r.kind, r.entityId, now)
      if (choice === 'theirs' || !seen) return {}
      const kind = r.kind as WritableKind
      const fields = Object.fromEntries(UPDATABLE[kind].filter((f) => seen[f] !== undefined && seen[f] !== null).map((f) => [f, { ...seen, ...r.payload }[f]]))
      const uid = uuid()
      const localId = newLocalId(() => uid)
      const again: NewRecord = { kind, entityId: localId, op: 'create', payload: fields, params: r.params, externalId: `outpost-${uid}` }
      await enqueue(db, again, now, journal ? await journalInside(db, journal, [journalRecordOf(again)]) : [])
      return { recreatedAs: localId }
    }

    const conflict = r.conflict
    for (const [field, c] of Object.entries(conflict.fields)) {
      const choice = typeof choices === 'string' ? choices : choices[field]
      if (choice === undefined) throw new Error(`Choose mine, theirs or a value for "${field}".`)
      if (choice === 'theirs') {
        delete r.payload[field]
        delete r.base[field]
      } else {
        if (choice !== 'mine') r.payload[field] = choice.value
        // Decided against what the service has now: that is the new base.
        r.base[field] = c.theirs
      }
    }
    delete r.conflict
    r.state = 'pending'
    r.attempts = 0
    if (conflict.theirsUpdatedAt) r.baseUpdatedAt = conflict.theirsUpdatedAt
    r.updatedAt = now
    if (Object.keys(r.payload).length === 0) {
      await db.outbox.delete(seq)
      done.push(...journalIdsOf([r]))
    } else {
      // Decided field by field: the journal keeps the change as it goes now.
      done.push(...(await journalAgain(db, journal, r)))
      await db.outbox.put(r)
    }
    await rebuildOverlay(db, r.kind, r.entityId, now)
    return {}
  })
}

/** The entity a record writes, for screens that list records (its name or title as the user sees it now). */
export async function recordSubject(db: OutpostDb, r: OutboxRecord): Promise<Record<string, unknown> | undefined> {
  return mergedOne(db, r.kind, r.entityId as EntityId)
}
