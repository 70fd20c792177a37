// Replay: the queued writes go to the service, in order per entity, each
// exactly once.
//
// - A record is marked in flight (its own transaction, of the outbox alone:
//   no read of the cache elsewhere holds it up) before it is sent. The
//   service's answer is written to the server table, and the record and its
//   overlay fields removed, in one transaction.
// - An in-flight record found when replay starts (a crash, a lost answer) is
//   reconciled first: a create is looked up (by its external_id, or see
//   requests.ts) and adopted if the service has it; an update compares the
//   service's fields with mine (equal: applied); a delete that meets a 404 is
//   done. Only then is anything resent.
// - Before an update is sent the entity is compared with the service's: a field
//   the service changed since the record's base, to something else than mine,
//   is a conflict; fields only one side changed merge without asking. A 404 is
//   "deleted elsewhere". Epic updates are checked all at once, once a pass
//   (conflict-check.ts); other kinds one entity at a time.
// - Writes go together where the API allows: epic updates in bulk (PATCH
//   /epics/bulk, up to 100), epic creates in bulk (POST /epics/bulk, up to 100),
//   uploads four files a request. The service takes each all or nothing; one it
//   refuses (4xx) is sent again item by item, so only the bad item fails. One
//   whose answer is lost is looked up in one go (external_ids; files by name,
//   size and uploader) before any of it is sent again.
// - A failed step (failures.ts): 4xx fails the record, and only what depends on
//   it waits; 401, a read-only token or an untrusted connection pause
//   everything; 429, 5xx, network errors and timeouts back off and retry.
// - One replayer per database across windows (navigator.locks).
import type { Table } from 'dexie'
import type { OutpostDb } from '../db.ts'
import { outboxLockName, platformLock, type LockFn } from '../lock.ts'
import { rebuildOverlay } from '../overlay.ts'
import { reportProblems } from '../problems.ts'
import { recordProblem } from '../row-checks.ts'
import type { Transport } from '../transport.ts'
import type { EntityId, OutboxRecord } from '../types.ts'
import { removeServerRow } from './after-delete.ts'
import { planUpdates } from './conflict-check.ts'
import type { Plan, UNCHANGED } from './conflict-plan.ts'
import { Aborted, backoffMs, DEFAULT_BACKOFF, fail, isMissingFile, isRefusal, markFailed, missingBulkItems, retryLater, type Backoff } from './failures.ts'
import { rememberServerId } from './ids.ts'
import {
  confirmInside,
  journalAgain,
  journaledTransaction,
  journalIdsOf,
  journalInside,
  journalRecordOf,
  JournalUnavailable,
  type OutboxJournal,
} from './journal.ts'
import { isLocalId, overLimit, rowId, type WritableKind } from './kinds.ts'
import { setPause, type OutboxPause } from './records.ts'
import { batchOf, readyRecords } from './readiness.ts'
import { bulkUpdateEpics, REQUESTS, type KindRequests, type RequestContext, type Row } from './requests.ts'
import { followCreate, putServerRow, rebaseLater, rewriteLocalIds } from './write-back.ts'

export { DEFAULT_BACKOFF, type Backoff }

export interface ReplayOptions {
  db: OutpostDb
  transport: Transport
  clock?: () => number
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  /** navigator.locks in a window; a process-wide mutex elsewhere. */
  lock?: LockFn
  /** Stops the pass at the next step without writing anything more (the app closing; tests simulating a kill). */
  signal?: AbortSignal
  backoff?: Partial<Backoff>
  /** Epic updates (and creates) per bulk request (1 to 100). */
  bulkSize?: number
  /** The main side's journal of queued changes: told what is about to go, and what is done (outbox/journal.ts). */
  journal?: OutboxJournal
  /**
   * Asked before each step: true ends the pass there, the outbox lock let go (a restore from the journal is waiting:
   * a change kept there goes before those made after it, data-layer.ts). The records stay queued for the next pass.
   */
  yieldTo?: () => boolean
}

export interface ReplayResult {
  /** Records the service confirmed (or that turned out to be applied already). */
  confirmed: number
  failed: number
  conflicts: number
  /** Records still in the outbox when the pass ended (failed and conflict ones included). */
  remaining: number
  /** Why the pass ended early. */
  stopped?: 'auth' | 'read-only' | 'insecure' | 'offline' | 'aborted'
  pause?: OutboxPause
}

/** One pass over the outbox: sends what can be sent, then returns. Main decides when to call it again. */
export function replay(options: ReplayOptions): Promise<ReplayResult> {
  const lock = options.lock ?? platformLock()
  return lock(outboxLockName(options.db.name), () => new Replayer(options).run())
}

/**
 * One pass over the outbox, and its state. What is not the pass itself works on it from modules of its own, as
 * functions taking it: failures.ts (what a failed step does to its records), conflict-check.ts (the service's side of
 * updates), write-back.ts and after-delete.ts (the cache after an answer).
 */
class Replayer {
  /** The cache: the outbox, and the server tables the service's answers are written to. */
  readonly db: OutpostDb
  /** The service. */
  private readonly transport: Transport
  /** What the requests (requests.ts) take: the cache, the service, and who I am there. */
  readonly ctx: RequestContext
  /** The main side's journal of queued changes, if there is one. */
  readonly journal?: OutboxJournal
  /** Now, for the records' and overlays' times. */
  readonly clock: () => number
  /** Waits out a backoff. */
  private readonly sleep: (ms: number) => Promise<void>
  /** The backoff's jitter. */
  readonly random: () => number
  /** Aborted: the pass stops at its next step (checkAbort). */
  private readonly signal?: AbortSignal
  /** How long to wait after transient failures, and after how many in a row the pass ends. */
  readonly backoff: Backoff
  /** Epic updates (and creates) per bulk request. */
  private readonly bulkSize: number
  /** Asked before each step whether to end the pass there (ReplayOptions.yieldTo). */
  private readonly yieldTo?: () => boolean
  /** What the pass did so far; run() answers it. */
  readonly result: ReplayResult = { confirmed: 0, failed: 0, conflicts: 0, remaining: 0 }
  /** Transient failures in a row: they set the backoff, and end the pass at backoff.attempts. An answer starts the count again. */
  failuresInARow = 0
  /** Records that failed for want of time (network, 5xx, 429) since the last backoff. */
  readonly troubled = new Set<number>()
  /** Who I am on the service, asked once a pass when a request needs it (whoAmI); forgotten if asking failed. */
  private me?: Promise<string | null>
  /** The service's epic for epic updates still to go this pass, by record seq: one check for all (conflict-check.ts). */
  readonly checked = new Map<number, Row | typeof UNCHANGED>()

  constructor(options: ReplayOptions) {
    this.db = options.db
    this.transport = options.transport
    this.clock = options.clock ?? Date.now
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
    this.random = options.random ?? Math.random
    this.signal = options.signal
    this.backoff = { ...DEFAULT_BACKOFF, ...options.backoff }
    this.bulkSize = Math.max(1, Math.min(100, options.bulkSize ?? 100))
    this.journal = options.journal
    this.yieldTo = options.yieldTo
    this.ctx = { db: this.db, transport: this.transport, me: () => (this.me ??= this.whoAmI()) }
  }

  async run(): Promise<ReplayResult> {
    try {
      await this.writeOnly([this.db.meta, this.db.outbox], async () => {
        await setPause(this.db, null)
        const unsound = (await this.db.outbox.toArray()).flatMap((r) => {
          const reason = recordProblem(r)
          return reason ? [{ table: 'outbox', key: String(r.seq), reason: `not replayed: ${reason}` }] : []
        })
        await reportProblems(this.db, unsound, this.clock())
      })
      for (;;) {
        if (this.yieldTo?.()) break
        const work = await this.next()
        if (!work) break
        try {
          await this.handle(work)
        } catch (error) {
          // The journal could not be told (its answers are kept for the next pass, in flight): the others go on.
          if (!(error instanceof JournalUnavailable)) throw error
          retryLater(this, work)
        }
        if (this.result.stopped) break
      }
      this.result.remaining = await this.db.outbox.count()
    } catch (error) {
      if (!(error instanceof Aborted)) throw error
      this.result.stopped = 'aborted'
    }
    return this.result
  }

  // ---- choosing what goes next ----

  private async next(): Promise<OutboxRecord[] | null> {
    this.checkAbort()
    const ready = readyRecords(await this.db.outbox.toArray())
    if (ready.length === 0) return null
    // A record that just failed for want of time waits while others can go; when only such records are left, back off.
    let candidates = ready.filter((r) => !this.troubled.has(r.seq!))
    if (candidates.length === 0) {
      await this.sleep(backoffMs(this))
      this.checkAbort()
      this.troubled.clear()
      candidates = ready
    }
    // What may already have reached the service is settled before anything else goes.
    const first = candidates.find((r) => r.state === 'in-flight') ?? candidates[0]
    const together = batchOf(first, this.bulkSize)
    if (!together) return [first]
    const batch = [first]
    let bytes = together.bytes(first)
    for (const r of candidates) {
      if (batch.length >= together.max) break
      if (r === first || !together.fits(r) || bytes + together.bytes(r) > together.maxBytes) continue
      batch.push(r)
      bytes += together.bytes(r)
    }
    return batch
  }

  private async handle(all: OutboxRecord[]): Promise<void> {
    const r = all[0]
    const requests = REQUESTS[r.kind as WritableKind]
    const can = r.op === 'create' ? requests?.create : r.op === 'update' ? requests?.update : requests?.remove
    if (!can) {
      await markFailed(this, [r], { message: `A ${r.op} of a ${r.kind} cannot be sent to the service.` })
      return
    }
    // Text past the service's limits never leaves (a request the service would refuse): it fails here, naming the field.
    const records: OutboxRecord[] = []
    for (const rec of all) {
      const errors = rec.op === 'delete' ? null : overLimit(rec.kind as WritableKind, rec.payload)
      if (!errors) records.push(rec)
      else
        await markFailed(this, [rec], {
          message: `Too long: ${Object.entries(errors)
            .map(([f, why]) => `${f} ${why}`)
            .join('; ')}.`,
          errors,
        })
    }
    if (records.length === 0) return
    if (r.op === 'create') await this.creates(records)
    else if (r.op === 'update') await this.updates(records)
    else await this.remove(r)
  }

  // ---- creates ----

  /** Creates of one kind: one, or a batch that goes in one request (see batchOf). */
  private async creates(records: OutboxRecord[]): Promise<void> {
    const requests = REQUESTS[records[0].kind as WritableKind]
    let sending: OutboxRecord[] = []
    // In flight already (a crash, a lost answer): what the service has is adopted, only the rest is sent again.
    const maybeSent = records.filter((r) => r.state === 'in-flight')
    if (maybeSent.length > 0) {
      const looking = await this.markInFlight(maybeSent)
      if (requests.idempotentCreate || (!requests.find && !requests.findMany)) sending = looking
      else {
        let found: Map<number, Row>
        try {
          found = await this.findCreated(requests, looking)
          this.checkAbort()
        } catch (error) {
          await fail(this, looking, error, 'look')
          return
        }
        await this.confirmCreates(looking.flatMap((r) => (found.has(r.seq!) ? [[r, found.get(r.seq!)!] as const] : [])))
        sending = looking.filter((r) => !found.has(r.seq!))
      }
    }
    // Marked in flight only now: a record never sent is never looked up (where matching is by content, a look could err).
    sending = [...sending, ...(await this.markInFlight(records.filter((r) => r.state !== 'in-flight')))].sort((a, b) => a.seq! - b.seq!)
    if (sending.length === 0) return

    const createMany = requests.createMany
    await this.bulkThenEach(sending, (items) => items, {
      many:
        createMany &&
        (async (left) => {
          const rows = await createMany(this.ctx, left)
          this.checkAbort()
          await this.confirmCreates(left.flatMap((r) => (rows.has(r.seq!) ? [[r, rows.get(r.seq!)!] as const] : [])))
          // Not in the answer (the service always lists them all): left in flight, to be looked up before it goes again.
          const unanswered = left.filter((r) => !rows.has(r.seq!))
          if (unanswered.length > 0) retryLater(this, unanswered)
        }),
      one: async (r) => {
        const row = await requests.create!(this.ctx, r)
        this.checkAbort()
        await this.confirmCreates([[r, row]])
      },
    })
  }

  /** The entities these creates made, those the service has (by record seq). */
  private async findCreated(requests: KindRequests, records: OutboxRecord[]): Promise<Map<number, Row>> {
    if (requests.findMany) return requests.findMany(this.ctx, records)
    const found = new Map<number, Row>()
    for (const r of records) {
      const row = await requests.find!(this.ctx, r)
      this.checkAbort()
      if (row) found.set(r.seq!, row)
    }
    return found
  }

  /** Creates the service confirmed, with its answers, written in one transaction. */
  private async confirmCreates(confirmed: (readonly [OutboxRecord, Row])[]): Promise<void> {
    if (confirmed.length === 0) return
    const now = this.clock()
    const done: number[] = []
    const map: Record<string, { kind: string; id: EntityId }> = {}
    await this.write(async (replaced) => {
      const settled: { cur: OutboxRecord; row: Row; serverId: string }[] = []
      const becomes = new Map<string, EntityId>()
      for (const [r, row] of confirmed) {
        const kind = r.kind as WritableKind
        const serverId = rowId(kind, row)
        await putServerRow(this.db, kind, serverId, row)
        const cur = await this.db.outbox.get(r.seq!)
        if (!cur) continue
        await this.db.outbox.delete(cur.seq!)
        if (kind !== 'docEpic' && isLocalId(cur.entityId)) {
          await rememberServerId(this.db, cur.entityId, { kind, id: row.id as EntityId, at: now })
          becomes.set(cur.entityId, row.id as EntityId)
          map[cur.entityId] = { kind, id: row.id as EntityId }
        }
        settled.push({ cur, row, serverId })
      }
      await rewriteLocalIds(this.db, becomes, now)
      for (const { cur, row, serverId } of settled) {
        const follow = await followCreate(this, replaced, cur, row, serverId, now)
        this.result.confirmed++
        done.push(...journalIdsOf([cur]))
        // Fields that follow as an update are a change of their own in the journal (the create is done with).
        if (follow && this.journal) await this.db.outbox.update(follow.seq!, { journal: await journalInside(this.db, this.journal, [journalRecordOf(follow)]) })
      }
      await confirmInside(this.journal, done, Object.keys(map).length > 0 ? map : undefined)
    })
    this.failuresInARow = 0
    for (const [r] of confirmed) if (r.staged) await this.transport.discard(r.staged.path).catch(() => undefined)
  }

  // ---- updates ----

  private async updates(records: OutboxRecord[]): Promise<void> {
    const fresh = await this.markInFlight(records)
    if (fresh.length === 0) return
    let plans: Plan[]
    try {
      plans = await planUpdates(this, fresh)
    } catch (error) {
      await fail(this, fresh, error, 'look')
      return
    }
    const toSend: Plan[] = []
    const nothingToSend: Plan[] = []
    for (const p of plans) {
      if (p.gone) await this.markDeletedElsewhere(p.r)
      else if (Object.keys(p.send).length === 0) nothingToSend.push(p)
      else toSend.push(p)
    }
    await this.settleUpdates(nothingToSend.map((p) => [p, p.theirs] as const))
    if (toSend.length === 0) return

    await this.bulkThenEach(toSend, (plans) => plans.map((p) => p.r), {
      many: async (left) => {
        const rows = await bulkUpdateEpics(
          this.ctx,
          left.map((p) => ({ id: Number(p.r.entityId), fields: p.send })),
        )
        this.checkAbort()
        await this.settleUpdates(left.map((p) => [p, rows.get(Number(p.r.entityId))] as const))
      },
      // Epics the service says it has not (deleted since the cache last heard) were deleted elsewhere, and the
      // rest go again together.
      regroup: async (error, left) => {
        const gone = missingBulkItems(error, left.length)
        if (gone.size === 0) return null
        for (const i of gone) await this.markDeletedElsewhere(left[i].r)
        return left.filter((_, i) => !gone.has(i))
      },
      one: async (p) => {
        const row = await REQUESTS[p.r.kind as WritableKind].update!(this.ctx, p.r, p.send)
        this.checkAbort()
        await this.settleUpdates([[p, row]])
      },
    })
  }

  /**
   * Sends `items` together (`many`, when there are two or more and the kind can), or, when the service refuses
   * the request as a whole (all or nothing: one bad item, or one staged file gone, refuses them all), each alone
   * (`one`), so that only the bad one fails; `regroup` may first take some out and have the rest go together
   * again. Any other failure fails them all.
   */
  private async bulkThenEach<T>(
    items: T[],
    recordsOf: (items: T[]) => OutboxRecord[],
    send: {
      many?: (items: T[]) => Promise<void>
      regroup?: (error: unknown, items: T[]) => Promise<T[] | null>
      one: (item: T) => Promise<void>
    },
  ): Promise<void> {
    let left = items
    while (send.many && left.length > 1) {
      try {
        await send.many(left)
        return
      } catch (error) {
        if (error instanceof Aborted) throw error
        if (!isRefusal(error) && !isMissingFile(error)) {
          await fail(this, recordsOf(left), error, 'send')
          return
        }
        const rest = send.regroup ? await send.regroup(error, left) : null
        if (rest === null) break
        left = rest
      }
    }
    for (const item of left) {
      try {
        await send.one(item)
      } catch (error) {
        await fail(this, recordsOf([item]), error, 'send')
        if (this.result.stopped) return
      }
    }
  }

  /** Updates the service answered (or that had nothing left to send), with its answers, written in one transaction. */
  private async settleUpdates(settled: (readonly [Plan, Row | undefined])[]): Promise<void> {
    if (settled.length === 0) return
    const now = this.clock()
    await this.write(async (replaced) => {
      const done: number[] = []
      for (const [p, row] of settled) done.push(...(await this.settleUpdate(replaced, p, row, now)))
      await confirmInside(this.journal, done)
    })
    this.failuresInARow = 0
  }

  /**
   * Inside settleUpdates' transaction (`replaced` its list): the service's answer cached, the record done or left with
   * its conflicts. Answers the journal entries done with.
   */
  private async settleUpdate(replaced: number[], p: Plan, row: Row | undefined, now: number): Promise<number[]> {
    const cur = await this.db.outbox.get(p.r.seq!)
    if (row) await putServerRow(this.db, p.r.kind as WritableKind, p.r.entityId, row)
    if (!cur) return []
    let done: number[] = []
    const fields = Object.keys(p.conflicts)
    if (fields.length > 0) {
      const narrowed = Object.keys(cur.payload).length > fields.length
      cur.state = 'conflict'
      cur.payload = Object.fromEntries(fields.map((f) => [f, cur.payload[f]]))
      cur.base = Object.fromEntries(fields.map((f) => [f, cur.base[f]]))
      const theirsUpdatedAt = (row?.updated_at ?? p.theirs?.updated_at) as string | undefined
      cur.conflict = { fields: p.conflicts, at: now, ...(theirsUpdatedAt && { theirsUpdatedAt }) }
      cur.updatedAt = now
      // The journal keeps what is left of the change: restored whole after a loss, the fields the service has now
      // would be sent again over what happened to them since (an objective deleted meanwhile, named again).
      if (narrowed) replaced.push(...(await journalAgain(this.db, this.journal, cur)))
      await this.db.outbox.put(cur)
      this.result.conflicts++
    } else {
      await this.db.outbox.delete(cur.seq!)
      done = journalIdsOf([cur])
      const answer = row ?? p.theirs
      if (answer) await rebaseLater(this, replaced, cur.kind, cur.entityId, cur.payload, answer)
      this.result.confirmed++
    }
    await rebuildOverlay(this.db, cur.kind, cur.entityId, now)
    return done
  }

  /** An update whose entity the service has not (a 404): a conflict for the user. */
  async markDeletedElsewhere(r: OutboxRecord): Promise<void> {
    const now = this.clock()
    await this.write(async () => {
      const cur = await this.db.outbox.get(r.seq!)
      if (!cur) return
      cur.state = 'conflict'
      cur.conflict = { fields: {}, deletedElsewhere: true, at: now }
      cur.updatedAt = now
      await this.db.outbox.put(cur)
      this.result.conflicts++
    })
    this.failuresInARow = 0
  }

  // ---- deletes ----

  private async remove(r: OutboxRecord): Promise<void> {
    const [rec] = await this.markInFlight([r])
    if (!rec) return
    try {
      await REQUESTS[rec.kind as WritableKind].remove!(this.ctx, rec)
      this.checkAbort()
      await this.confirmDelete(rec)
    } catch (error) {
      await fail(this, [rec], error, 'send')
    }
  }

  /** A delete the service confirmed (or answered with a 404), written in one transaction. */
  async confirmDelete(r: OutboxRecord): Promise<void> {
    const now = this.clock()
    const contents = await this.write(async (replaced) => {
      const paths = await removeServerRow(this, replaced, r.kind as WritableKind, r.entityId)
      await this.db.outbox.delete(r.seq!)
      await rebuildOverlay(this.db, r.kind, r.entityId, now)
      await confirmInside(this.journal, journalIdsOf([r]))
      this.result.confirmed++
      return paths
    })
    this.failuresInARow = 0
    // A deleted file's downloaded content goes too, once its row is gone (a stray file at worst, never a row without its file).
    for (const path of contents) await this.transport.discard(path).catch(() => undefined)
  }

  // ---- record states ----

  private async markInFlight(records: OutboxRecord[]): Promise<OutboxRecord[]> {
    const now = this.clock()
    const marked = await this.writeOnly([this.db.outbox], async () => {
      const out: OutboxRecord[] = []
      for (const r of records) {
        const cur = await this.db.outbox.get(r.seq!)
        if (!cur || (cur.state !== 'pending' && cur.state !== 'in-flight')) continue
        cur.state = 'in-flight'
        cur.attempts++
        cur.sentAt ??= now
        cur.updatedAt = now
        await this.db.outbox.put(cur)
        out.push(cur)
      }
      return out
    })
    // On disk before anything leaves: after a lost cache these are looked for on the service before they go again.
    const ids = journalIdsOf(marked)
    if (this.journal && ids.length > 0) await this.journal.sent(ids)
    return marked
  }

  // ---- plumbing ----

  private async whoAmI(): Promise<string | null> {
    try {
      const info = await this.transport.call<{ id: string }>('member', { lane: 'user-write' })
      await this.writeOnly([this.db.meta], () => this.db.meta.put({ key: 'outbox:me', value: info.id }))
      return info.id
    } catch (error) {
      this.me = undefined
      throw error
    }
  }

  checkAbort(): void {
    if (this.signal?.aborted) throw new Aborted('Replay was stopped.')
  }

  /**
   * A transaction over the cache, journaled (journal.ts). `run` gets the list of entries to confirm once it committed:
   * those of records journaled again in it (narrowed, rebased, an id taken out of them). What it calls journals into
   * that list, never in a write of its own (one inside another would confirm before the outer one commits).
   */
  write<T>(run: (replaced: number[]) => Promise<T>): Promise<T> {
    this.checkAbort()
    return journaledTransaction(this.db, this.journal, (_appended, done) => run(done))
  }

  /**
   * A write that journals nothing, over `tables` alone. A journaled write (every table) waits for any other
   * window's read of the cache, and for the sync's page writes queued before it: a change would wait for them
   * before it leaves.
   */
  private writeOnly<T>(tables: Table[], run: () => Promise<T>): Promise<T> {
    this.checkAbort()
    return this.db.transaction('rw', tables, run)
  }
}
