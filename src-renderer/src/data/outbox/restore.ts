// At start, the cache and the outbox journal (journal.ts) are made to agree,
// under the outbox lock, before anything is replayed:
//
// - a cache that does not follow this journal (new: the browser's storage was
//   lost) or that applied fewer of its entries than it has (an older copy)
//   gets the open entries it does not hold back, queued again through the
//   same enqueue, in the order they were made; an entry marked sent is
//   restored in flight, so replay looks for it on the service (by external_id,
//   as after a crash) before it goes again: exactly once;
// - an open entry the cache applied and no record holds any more is done
//   with (its confirmation was lost in a crash): confirmed;
// - a record no open entry holds (the journal was lost, or the record is older
//   than the journal) is journaled again;
// - an entry kept in the journal only (its write found storage full, and the
//   user was told it is kept) is queued now, whatever the cache applied since,
//   but for the fields a change of the same entity made after it sets (the
//   user's last word; queued after it, the kept one would undo it);
//   the cache notes it as taken in, and once no record holds it (sent and
//   confirmed, or discarded by the user) it is done with like any other;
// - a void mark (journal.ts: a transaction made those entries pointless, and a
//   crash came before it could confirm them) is never queued, and what it
//   voids is never queued again, into this cache or a new one (the user's fix,
//   discard or resolve stands; a kept entry the cache took in is no exception).
//   A kept entry a record holds counts as taken in.
// Run again once there is room after such a write (data-layer.ts).
//
// What local ids became (confirmed creates) comes back too, so a restored
// write naming one goes to the right entity. The number restored is kept in
// `meta` for the window to tell the user.
import type { JournalEntry } from '../../../../src-shared/ipc.ts'
import type { OutpostDb } from '../db.ts'
import { outboxLockName, platformLock, type LockFn } from '../lock.ts'
import { recordProblem } from '../row-checks.ts'
import type { EntityId, EntityKind } from '../types.ts'
import { rememberServerId, resolveId } from './ids.ts'
import {
  isVoidMark,
  JOURNAL_KEY,
  journalAgain,
  journaledTransaction,
  journalIdsOf,
  noteApplied,
  RESTORED_KEY,
  type JournalMark,
  type OutboxJournal,
  type Restored,
} from './journal.ts'
import { isLocalId, localIdsIn, replaceId } from './kinds.ts'
import { enqueue, forgetLocalEntity, recordsOf, type NewRecord } from './queue.ts'

export interface RestoreOptions {
  clock?: () => number
  lock?: LockFn
}

export interface RestoreResult {
  /** Open changes queued again from the journal, a lost cache's. */
  restored: number
  /** Changes kept in the journal only (storage was full), queued now. */
  kept: number
  /** Open entries found done with (confirmed now). */
  trimmed: number
  /** Records the journal did not hold, journaled again. */
  journaled: number
}

/** Where an entry goes among the others: its own id, or that of the entry it was journaled again in place of. */
const placeOf = (e: JournalEntry) => e.record.order ?? e.id

/**
 * When an entry went, among the others. One journaled again in flight (marked sent as it was appended) went at its
 * place: it was on its way when what comes after that place was queued (else that would have merged into it).
 */
const sentPlaceOf = (e: JournalEntry) => (e.sentAfter !== undefined && e.record.order !== undefined && e.sentAfter <= e.id ? e.record.order : e.sentAfter)

export async function restoreFromJournal(db: OutpostDb, journal: OutboxJournal, options: RestoreOptions = {}): Promise<RestoreResult> {
  const clock = options.clock ?? Date.now
  const lock = options.lock ?? platformLock()
  // Most starts find the two agreeing (the cache of the last run, or another window's): nothing to do, and no wait for
  // the outbox lock, which another window's replay holds for up to a minute while the service is failing.
  if (await agree(db, journal).catch(() => false)) return { restored: 0, kept: 0, trimmed: 0, journaled: 0 }
  return lock(outboxLockName(db.name), async () => {
    const state = await journal.read()
    const now = clock()
    // A new cache with an empty journal (a first start): the cache is marked as following it, in a transaction of
    // the tables it reads and writes. One over every table would wait for any other window's read of the cache, and
    // every replay, and the first sync, for it.
    if (state.entries.length === 0 && Object.keys(state.map).length === 0) {
      const marked = await db.transaction('rw', [db.meta, db.outbox], async () => {
        if ((await db.outbox.count()) > 0) return false
        await noteApplied(db, state.epoch, [state.lastId], { follow: true, taken: [] })
        return true
      })
      if (marked) return { restored: 0, kept: 0, trimmed: 0, journaled: 0 }
    }
    // Entries done with (trimmed, cancelled, journaled again) are confirmed once the restore committed.
    return journaledTransaction(db, journal, async (_appended, done) => {
      const mark = (await db.meta.get(JOURNAL_KEY))?.value as JournalMark | undefined
      const follows = mark?.epoch === state.epoch
      const records = (await db.outbox.toArray()).filter((r) => recordProblem(r) === null)
      const held = new Set(journalIdsOf(records))
      const open = new Set(state.entries.map((e) => e.id))

      // A cache that follows the journal has its creates' ids already; a new one gets them back.
      if (!follows) {
        for (const [localId, to] of Object.entries(state.map)) {
          if (isLocalId(await resolveId(db, to.kind as EntityKind, localId)))
            await rememberServerId(db, localId, { kind: to.kind as EntityKind, id: to.id, at: now })
        }
      }

      // In the order the changes were made (one journaled again keeps the place of the one it replaces).
      const missing = state.entries.filter((e) => !held.has(e.id)).sort((a, b) => placeOf(a) - placeOf(b) || a.id - b.id)
      const taken = new Set(follows ? (mark.taken ?? []) : [])
      // A kept mark is of a change that is queued again itself (and voids again what it voided). Another is of a
      // committed transaction: what it voids is never queued again, into this cache or a new one (a kept change the
      // cache took in, then journaled again as the user fixed it: queued as it was, it would undo the fix).
      const voided = new Set(state.entries.flatMap((e) => (isVoidMark(e.record) && !e.kept ? (e.record.voids ?? []) : [])))
      const restore = missing.filter((e) => !isVoidMark(e.record) && !voided.has(e.id) && (!follows || e.id > mark.upTo || (e.kept && !taken.has(e.id))))
      const lost = restore.filter((e) => !(follows && e.kept)).length
      done.push(...missing.filter((e) => !restore.includes(e)).map((e) => e.id))
      // Creates the cache still holds (in flight, their answer's write refused) though the journal knows what they
      // became: replay confirms them, and rewrites what names them then. Named by what they became now, a restored
      // change would go before such a create is settled, and what the create leaves to follow (a field its request
      // cannot carry) would then go after the change and undo it.
      const unsettled = new Set(records.filter((r) => r.op === 'create' && isLocalId(r.entityId)).map((r) => r.entityId))
      done.push(...(await requeue(db, restore, state.map, unsettled)))

      // Records the journal does not hold: on disk again, as they are now.
      let journaled = 0
      for (const r of await db.outbox.toArray()) {
        if (recordProblem(r) !== null || journalIdsOf([r]).some((id) => open.has(id))) continue
        // A create the journal holds as confirmed (the cache's write of the answer was refused): what it became is
        // known, and replay's look takes that entity rather than one that says the same.
        const to = r.op === 'create' && isLocalId(r.entityId) ? state.map[r.entityId] : undefined
        if (to) r.became = to.id
        // In the place of the entries it held: restored after a later change of the same field, it would undo it.
        done.push(...(await journalAgain(db, journal, r)))
        await db.outbox.put(r)
        journaled++
      }

      // The cache follows this journal now, and holds all it has.
      const restored = new Set(restore.map((e) => e.id))
      // Taken in: queued by a restore, or held by a record (queued by a restore that read the journal before the entry
      // was marked kept, its write refused meanwhile).
      const kept = state.entries.filter((e) => e.kept && (taken.has(e.id) || restored.has(e.id) || held.has(e.id))).map((e) => e.id)
      await noteApplied(db, state.epoch, [state.lastId], { follow: true, taken: kept })
      if (lost > 0) await db.meta.put({ key: RESTORED_KEY, value: { count: lost, at: now } satisfies Restored })
      return { restored: lost, kept: restore.length - lost, trimmed: missing.filter((e) => !isVoidMark(e.record)).length - restore.length, journaled }
    })
  })

  /**
   * Inside the transaction: the entries queued again in their order, the sent ones put in flight as they were
   * when they went. Answers the entries that cancelled out (nothing left of them to send).
   */
  async function requeue(
    db: OutpostDb,
    entries: JournalEntry[],
    map: Record<string, { kind: string; id: EntityId }>,
    unsettled: ReadonlySet<string>,
  ): Promise<number[]> {
    const cancelled: number[] = []
    // The records queued before this restore (those it queues follow the journal's order among themselves).
    const before = new Set((await db.outbox.toCollection().primaryKeys()) as number[])
    /** The record each restored entry went into, until its sent mark is applied. */
    const recordOf = new Map<number, number>()
    // Creates journaled again (a fixed one) come after what names them.
    const createdLater = new Set(entries.filter((e) => e.record.op === 'create').map((e) => e.record.entityId))
    const inFlight = async (upTo: number) => {
      for (const e of entries) {
        const seq = recordOf.get(e.id)
        const sent = sentPlaceOf(e)
        if (sent === undefined || sent >= upTo || seq === undefined) continue
        recordOf.delete(e.id)
        const r = await db.outbox.get(seq)
        // Gone meanwhile (cancelled by a later entry), or merged into a record already in flight.
        if (!r || r.state !== 'pending' || !journalIdsOf([r]).includes(e.id)) continue
        await db.outbox.update(seq, { state: 'in-flight', attempts: Math.max(1, r.attempts), sentAt: Math.min(r.sentAt ?? e.at, e.at) })
      }
    }
    for (const e of entries) {
      // Marks made before this entry was: the records that went then are in flight before it is queued.
      await inFlight(placeOf(e))
      // A create the journal knows became an entity (its confirmation and this entry both journaled, the cache's write
      // of the answer refused): done. What names its local id goes to that entity.
      if (e.record.op === 'create' && isLocalId(e.record.entityId) && map[e.record.entityId]) {
        cancelled.push(e.id)
        continue
      }
      let rec = e.record as NewRecord
      for (const localId of localIdsIn(rec)) {
        const to = unsettled.has(localId) ? undefined : map[localId]
        if (to) rec = { ...replaceId(rec, localId, to.id as EntityId), entityId: String(replaceId(rec.entityId, localId, to.id as EntityId)) }
      }
      // An update made over the user's own create before the service had it: its base is what the window showed (the
      // fields the service fills in itself, such as who requested an epic, empty), not a version of the service's;
      // the create's answer that would have dated it is gone with the cache. Compared with that base, the service's
      // own values would pass for someone else's change: mine go.
      if (rec.op === 'update' && rec.baseUpdatedAt === undefined && isLocalId(e.record.entityId) && map[e.record.entityId]) rec = { ...rec, base: {} }
      // A change kept in the journal only (storage was full) did not show, and the user may have set the same field
      // again since, over what the screen showed: that later change is the user's last word. Queued after it, the
      // kept one would undo it (or meet it as someone else's change); its fields the later one sets are dropped.
      if (e.kept && rec.op === 'update') {
        const later = await laterFields(db, rec, e, before)
        if (later.size > 0) {
          const payload = Object.fromEntries(Object.entries(rec.payload).filter(([f]) => !later.has(f)))
          if (Object.keys(payload).length === 0) {
            cancelled.push(e.id)
            continue
          }
          rec = { ...rec, payload, base: Object.fromEntries(Object.entries(rec.base ?? {}).filter(([f]) => !later.has(f))) }
        }
      }
      try {
        const { seq, removed } = await enqueue(db, rec, e.at, [e.id])
        if (seq === undefined) cancelled.push(e.id)
        else {
          recordOf.set(e.id, seq)
          if (e.record.order !== undefined) await db.outbox.update(seq, { journalOrder: e.record.order })
        }
        cancelled.push(...journalIdsOf(removed))
      } catch {
        // What the user could not have made (a change after a deletion): as it was then, it is dropped.
        cancelled.push(e.id)
        continue
      }
      // A local id no queued create makes and no confirmed create became: its create was cancelled after this
      // was queued (the journal forgot both), and this goes, or stops naming it, as it did then, before it is
      // put in flight as it went.
      for (const id of localIdsIn([rec.entityId, rec.params, rec.payload])) {
        if (!isLocalId(await resolveId(db, 'epic', id)) || createdLater.has(id)) continue
        if ((await db.outbox.filter((r) => r.op === 'create' && r.entityId === id).count()) > 0) continue
        cancelled.push(...journalIdsOf(await forgetLocalEntity(db, id, clock())))
      }
    }
    await inFlight(Number.POSITIVE_INFINITY)
    return cancelled
  }
}

/**
 * The fields that changes of the same entity made after the journal entry `kept` set, as queued before this restore:
 * records begun after it was made (a record begun before it takes what it merges in later too; the kept change goes
 * over those).
 */
async function laterFields(db: OutpostDb, rec: NewRecord, kept: JournalEntry, queued: ReadonlySet<number>): Promise<Set<string>> {
  const fields = new Set<string>()
  for (const r of await recordsOf(db, rec.kind, rec.entityId)) {
    if (!queued.has(r.seq!)) continue
    const after = r.createdAt > kept.at || (r.createdAt === kept.at && Math.min(...journalIdsOf([r])) > kept.id)
    if (r.op !== 'update' || !after) continue
    for (const field of Object.keys(r.payload)) fields.add(field)
  }
  return fields
}

/**
 * Whether the cache follows the journal and holds exactly its open entries: every open entry in a record, every
 * record's entries open. Read without the lock: a replay or a write elsewhere between the two reads shows as a
 * disagreement, which the restore under the lock then settles.
 */
async function agree(db: OutpostDb, journal: OutboxJournal): Promise<boolean> {
  const state = await journal.read()
  return db.transaction('r', [db.meta, db.outbox], async () => {
    const mark = (await db.meta.get(JOURNAL_KEY))?.value as JournalMark | undefined
    if (mark?.epoch !== state.epoch) return false
    const records = (await db.outbox.toArray()).filter((r) => recordProblem(r) === null)
    if (records.some((r) => journalIdsOf([r]).length === 0)) return false
    const held = new Set(journalIdsOf(records))
    const open = new Set(state.entries.map((e) => e.id))
    return held.size === open.size && [...open].every((id) => held.has(id))
  })
}
