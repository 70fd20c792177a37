// Replay: the queued writes go to the service, in order per entity, each
// exactly once.
//
// - A record is marked in flight (its own transaction) before it is sent. The
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
//   (checkEpics); other kinds one entity at a time.
// - Writes go together where the API allows: epic updates in bulk (PATCH
//   /epics/bulk, up to 100), epic creates in bulk (POST /epics/bulk, up to 100),
//   uploads four files a request. The service takes each all or nothing; one it
//   refuses (4xx) is sent again item by item, so only the bad item fails. One
//   whose answer is lost is looked up in one go (external_ids; files by name,
//   size and uploader) before any of it is sent again.
// - 4xx: the record fails with the service's message (its payload stays, to be
//   fixed and retried or discarded); only what depends on it waits. 401, a
//   read-only token or an untrusted connection pause everything. 429, 5xx,
//   network errors and timeouts back off (exponential, with jitter) and retry.
// - One replayer per database across windows (navigator.locks).
import Dexie from 'dexie'
import { mergeRow } from '../convert.ts'
import type { OutpostDb } from '../db.ts'
import { outboxLockName, platformLock, type LockFn } from '../lock.ts'
import { rebuildOverlay, rebuildOverlays } from '../overlay.ts'
import { reportProblems } from '../problems.ts'
import { recordProblem } from '../row-checks.ts'
import { removeFiles } from '../sync/cache.ts'
import { readCheckpoint } from '../sync/checkpoints.ts'
import { DEFAULT_SYNC_OPTIONS } from '../sync/context.ts'
import { failureOf, isNotFound, type Transport } from '../transport.ts'
import { isStorageFull } from '../storage-full.ts'
import type { EntityId, OutboxError, OutboxRecord } from '../types.ts'
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
import { isLocalId, localIdsIn, overLimit, replaceId, rowId, sameValue, tableKey, tableOf, type WritableKind } from './kinds.ts'
import { recordsOf } from './queue.ts'
import { setPause, type OutboxPause } from './records.ts'
import { planOf, UNCHANGED, type Plan } from './conflict-plan.ts'
import { batchOf, readyRecords } from './readiness.ts'
import {
  allEpics,
  bulkUpdateEpics,
  epicsChangedSince,
  Gone,
  LocalFailure,
  payloadField,
  REQUESTS,
  type KindRequests,
  type RequestContext,
  type Row,
} from './requests.ts'

export interface Backoff {
  baseMs: number
  maxMs: number
  /** Transient failures in a row after which this pass stops (the records stay queued for the next one). */
  attempts: number
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, maxMs: 60_000, attempts: 6 }

/**
 * The conflict check of epic updates reads one page of "epics changed since" the oldest base when the cache
 * counts fewer epics changed since then than this (a page holds 100; the rest is room for changes the cache
 * has not heard of yet). Otherwise it reads every epic in one request.
 */
const CHANGED_PAGE_FILL = 90

/** Epics changed since the last sync that the first page of the check after a sync has room for, beyond those the cache knows of. */
const SINCE_SYNC_ROOM = 10

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

class Aborted extends Error {}

type Phase = 'look' | 'send'

class Replayer {
  private readonly db: OutpostDb
  private readonly transport: Transport
  private readonly clock: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private readonly random: () => number
  private readonly signal?: AbortSignal
  private readonly backoff: Backoff
  private readonly bulkSize: number
  private readonly ctx: RequestContext
  private readonly journal?: OutboxJournal
  private readonly yieldTo?: () => boolean
  /** Inside a write: the journal entries of records journaled again in it, confirmed once it committed. */
  private replaced?: number[]
  private readonly result: ReplayResult = { confirmed: 0, failed: 0, conflicts: 0, remaining: 0 }
  private failuresInARow = 0
  /** Records that failed for want of time (network, 5xx, 429) since the last backoff. */
  private readonly troubled = new Set<number>()
  private me?: Promise<string | null>
  /** The service's epic for epic updates still to go this pass, by record seq: one check for all (checkEpics). */
  private readonly checked = new Map<number, Row | typeof UNCHANGED>()

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
      await this.write(async () => {
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
          this.retryLater(work)
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
      await this.sleep(this.backoffMs())
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
      await this.markFailed([r], { message: `A ${r.op} of a ${r.kind} cannot be sent to the service.` })
      return
    }
    // Text past the service's limits never leaves (a request the service would refuse): it fails here, naming the field.
    const records: OutboxRecord[] = []
    for (const rec of all) {
      const errors = rec.op === 'delete' ? null : overLimit(rec.kind as WritableKind, rec.payload)
      if (!errors) records.push(rec)
      else
        await this.markFailed([rec], {
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
          await this.fail(looking, error, 'look')
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
          if (unanswered.length > 0) this.retryLater(unanswered)
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
    await this.write(async () => {
      const settled: { cur: OutboxRecord; row: Row; serverId: string }[] = []
      const becomes = new Map<string, EntityId>()
      for (const [r, row] of confirmed) {
        const kind = r.kind as WritableKind
        const serverId = rowId(kind, row)
        await this.putServerRow(kind, serverId, row)
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
      await this.rewriteLocalIds(becomes, now)
      for (const { cur, row, serverId } of settled) {
        const follow = await this.followCreate(cur, row, serverId, now)
        done.push(...journalIdsOf([cur]))
        // Fields that follow as an update are a change of their own in the journal (the create is done with).
        if (follow && this.journal) await this.db.outbox.update(follow.seq!, { journal: await journalInside(this.db, this.journal, [journalRecordOf(follow)]) })
      }
      await confirmInside(this.journal, done, Object.keys(map).length > 0 ? map : undefined)
    })
    this.failuresInARow = 0
    for (const [r] of confirmed) if (r.staged) await this.transport.discard(r.staged.path).catch(() => undefined)
  }

  /** After a confirmed create (inside its transaction): what follows it in the queue, and the overlays. Answers the update that follows, if any. */
  private async followCreate(cur: OutboxRecord, row: Row, serverId: string, now: number): Promise<OutboxRecord | null> {
    const kind = cur.kind as WritableKind
    const localId = cur.entityId
    // Fields the create request cannot carry (an epic archived before it was ever sent) follow as an update,
    // in the create's place in the queue, unless a later write of the entity sets them anyway.
    const later = await recordsOf(this.db, kind, serverId)
    const laterFields = new Set(later.flatMap((l) => Object.keys(l.payload)))
    const leftover = Object.fromEntries(
      Object.entries(cur.payload).filter(([f, v]) => !REQUESTS[kind].createFields.includes(f) && !laterFields.has(f) && !sameValue(row[f], v)),
    )
    let followed: OutboxRecord | null = null
    if (Object.keys(leftover).length > 0) {
      const follow: OutboxRecord = {
        seq: cur.seq,
        kind,
        entityId: serverId,
        op: 'update',
        payload: leftover,
        base: Object.fromEntries(Object.keys(leftover).map((f) => [f, row[f] ?? null])),
        baseUpdatedAt: row.updated_at as string | undefined,
        state: 'pending',
        attempts: 0,
        createdAt: cur.createdAt,
        updatedAt: now,
        ...(cur.params && { params: replaceId(cur.params, localId, row.id as EntityId) }),
      }
      await this.db.outbox.put(follow)
      followed = follow
    }
    for (const l of later) {
      if (l.baseUpdatedAt !== undefined || typeof row.updated_at !== 'string') continue
      // Made over my own create before the service answered it: over the version the answer is, where the fields
      // the service fills in itself (who requested an epic) showed empty. Their base is what it filled in; left
      // empty, a later version's value (the same one) would pass for someone else's change.
      l.baseUpdatedAt = row.updated_at
      const filled = Object.keys(l.base).filter((f) => !(f in cur.payload) && row[f] !== undefined && !sameValue(l.base[f], row[f]))
      for (const field of filled) l.base[field] = row[field]
      if (filled.length > 0) await this.journalAgain(l)
      await this.db.outbox.put(l)
    }
    await this.rebaseLater(kind, serverId, cur.payload, row)
    await rebuildOverlay(this.db, kind, localId, now)
    await rebuildOverlay(this.db, kind, serverId, now)
    this.result.confirmed++
    return followed
  }

  /** The local ids of confirmed creates become the service's ids in every queued record (and so in every overlay): one pass over the queue. */
  private async rewriteLocalIds(becomes: ReadonlyMap<string, EntityId>, now: number): Promise<void> {
    if (becomes.size === 0) return
    const touched: Pick<OutboxRecord, 'kind' | 'entityId'>[] = []
    for (const rec of await this.db.outbox.toArray()) {
      if (recordProblem(rec)) continue
      const named = localIdsIn([rec.entityId, rec.params, rec.payload, rec.base, rec.conflict]).filter((id) => becomes.has(id))
      if (named.length === 0) continue
      touched.push({ kind: rec.kind, entityId: rec.entityId })
      for (const localId of named) {
        const serverId = becomes.get(localId)!
        rec.entityId = String(replaceId(rec.entityId, localId, serverId))
        rec.payload = replaceId(rec.payload, localId, serverId)
        rec.base = replaceId(rec.base, localId, serverId)
        if (rec.params) rec.params = replaceId(rec.params, localId, serverId)
        if (rec.conflict) rec.conflict = replaceId(rec.conflict, localId, serverId)
      }
      await this.db.outbox.put(rec)
      touched.push(rec)
    }
    await rebuildOverlays(this.db, touched, now)
  }

  // ---- updates ----

  private async updates(records: OutboxRecord[]): Promise<void> {
    const fresh = await this.markInFlight(records)
    if (fresh.length === 0) return
    let plans: Plan[]
    try {
      plans = await this.plan(fresh)
    } catch (error) {
      await this.fail(fresh, error, 'look')
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
          await this.fail(recordsOf(left), error, 'send')
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
        await this.fail(recordsOf([item]), error, 'send')
        if (this.result.stopped) return
      }
    }
  }

  /** What each update still has to send, after comparing with the service: applied, mine to send, or conflicts. */
  private async plan(records: OutboxRecord[]): Promise<Plan[]> {
    const theirs = new Map<number, Row | typeof UNCHANGED | null>()
    if (records.filter((r) => r.kind === 'epic' && !this.checked.has(r.seq!)).length > 2) await this.checkEpics()
    for (const r of records) {
      const known = this.checked.get(r.seq!)
      // Used once: a record tried again in this pass (its bulk failed for want of time) is checked again.
      this.checked.delete(r.seq!)
      if (known !== undefined) {
        theirs.set(r.seq!, known)
        continue
      }
      try {
        theirs.set(r.seq!, await REQUESTS[r.kind as WritableKind].fetch!(this.ctx, r))
      } catch (error) {
        if (!(error instanceof Gone) && !isNotFound(error)) throw error
        theirs.set(r.seq!, null)
      }
      this.checkAbort()
    }
    return records.map((r) => planOf(r, theirs.get(r.seq!)!))
  }

  /**
   * One conflict check for every epic update ready to go this pass, in as few requests as the API allows:
   * one page of the epics changed since the oldest base (newest first) when the cache suggests they fit in it,
   * else every epic in one request (v3 GET /epics, about 1.7 KB an epic: the bytes buy requests, which the
   * rate limit makes the scarcer). An epic neither covers (not in the whole list: deleted, or made since) is
   * fetched alone. A change the service takes between this check and the bulk that follows it is not seen,
   * as between any check and its write; the pass is the window.
   */
  private async checkEpics(): Promise<void> {
    const waiting = readyRecords(await this.db.outbox.toArray()).filter((r) => r.kind === 'epic' && r.op === 'update' && !this.checked.has(r.seq!))
    let open = await this.checkEpicsSinceSync(waiting)
    if (open.length <= 2) return
    const bases = open.map((r) => r.baseUpdatedAt)
    if (bases.every((b): b is string => b !== undefined)) {
      const since = bases.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b))
      if ((await this.db.epics.where('updated_at').aboveOrEqual(since).count()) < CHANGED_PAGE_FILL) {
        const { rows, coveredFrom } = await epicsChangedSince(this.ctx, since, 1)
        this.checkAbort()
        const left = open
        open = []
        for (const r of left) {
          const row = rows.get(Number(r.entityId))
          if (row) this.checked.set(r.seq!, row)
          else if (coveredFrom === null || Date.parse(coveredFrom) <= Date.parse(r.baseUpdatedAt!)) this.checked.set(r.seq!, UNCHANGED)
          else open.push(r)
        }
      }
    }
    if (open.length <= 2) return
    const all = await allEpics(
      this.ctx,
      open.some((r) => 'description' in r.payload),
    )
    this.checkAbort()
    for (const r of open) {
      const row = all.get(Number(r.entityId))
      if (row) this.checked.set(r.seq!, row)
    }
  }

  /**
   * The cache holds every epic as the service had it when its last sync walked down to (the epics checkpoint,
   * less the sync's overlap): one page of what changed since then, if it covers it, tells the rest. An epic the
   * page does not bring is as the cache has it: unchanged when that is the version the change was made over,
   * else the cached row is theirs (when it holds every field the change sets). Answers what is left open.
   */
  private async checkEpicsSinceSync(waiting: OutboxRecord[]): Promise<OutboxRecord[]> {
    const cp = await readCheckpoint(this.db, 'epics')
    if (!cp.bootstrapped || cp.since === null || waiting.length <= 2) return waiting
    const since = new Date(Date.parse(cp.since) - DEFAULT_SYNC_OPTIONS.overlapMs).toISOString()
    const known = await this.db.epics.where('updated_at').aboveOrEqual(since).count()
    if (known >= CHANGED_PAGE_FILL) return waiting
    // A page the size of what the cache knows changed since, and room for what it has not heard of yet: most
    // often a few epics, where a whole page would cost more bytes than the changes being sent.
    const { rows, coveredFrom } = await epicsChangedSince(this.ctx, since, 2, Math.min(100, known + SINCE_SYNC_ROOM))
    this.checkAbort()
    // More changed since than a page holds: the other checks.
    if (coveredFrom !== null && Date.parse(coveredFrom) >= Date.parse(since)) return waiting
    const cached = await this.db.epics.bulkGet(waiting.map((r) => Number(r.entityId)))
    const open: OutboxRecord[] = []
    waiting.forEach((r, i) => {
      const changed = rows.get(Number(r.entityId))
      const row = cached[i] as (Row & { partial?: true }) | undefined
      if (changed) this.checked.set(r.seq!, changed)
      else if (row && r.baseUpdatedAt !== undefined && sameValue(row.updated_at, r.baseUpdatedAt)) this.checked.set(r.seq!, UNCHANGED)
      else if (row && !row.partial && Object.keys(r.payload).every((field) => field in row)) this.checked.set(r.seq!, row)
      else open.push(r)
    })
    return open
  }

  /** Updates the service answered (or that had nothing left to send), with its answers, written in one transaction. */
  private async settleUpdates(settled: (readonly [Plan, Row | undefined])[]): Promise<void> {
    if (settled.length === 0) return
    const now = this.clock()
    await this.write(async () => {
      const done: number[] = []
      for (const [p, row] of settled) done.push(...(await this.settleUpdate(p, row, now)))
      await confirmInside(this.journal, done)
    })
    this.failuresInARow = 0
  }

  /** Inside settleUpdates' transaction: the service's answer cached, the record done or left with its conflicts. Answers the journal entries done with. */
  private async settleUpdate(p: Plan, row: Row | undefined, now: number): Promise<number[]> {
    const cur = await this.db.outbox.get(p.r.seq!)
    if (row) await this.putServerRow(p.r.kind as WritableKind, p.r.entityId, row)
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
      if (narrowed) await this.journalAgain(cur)
      await this.db.outbox.put(cur)
      this.result.conflicts++
    } else {
      await this.db.outbox.delete(cur.seq!)
      done = journalIdsOf([cur])
      const answer = row ?? p.theirs
      if (answer) await this.rebaseLater(cur.kind, cur.entityId, cur.payload, answer)
      this.result.confirmed++
    }
    await rebuildOverlay(this.db, cur.kind, cur.entityId, now)
    return done
  }

  /**
   * Writes of the entity queued after a confirmed one were made over its values (the user saw them): where
   * their base is a value of mine, it becomes what the service made of it (a doc's markdown comes back in
   * the service's own form), or the service's form of my own change would pass for someone else's.
   */
  private async rebaseLater(kind: string, entityId: string, mine: Row, row: Row): Promise<void> {
    for (const l of await recordsOf(this.db, kind, entityId)) {
      if (l.state === 'in-flight') continue
      let changed = false
      for (const [field, value] of Object.entries(mine)) {
        if (!(field in l.base) || row[field] === undefined || sameValue(row[field], value) || !sameValue(l.base[field], value)) continue
        l.base[field] = row[field]
        changed = true
      }
      if (!changed) continue
      // So does the journal's copy, or after a loss my own change in the service's form would be a conflict again.
      await this.journalAgain(l)
      await this.db.outbox.put(l)
    }
  }

  private async markDeletedElsewhere(r: OutboxRecord): Promise<void> {
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
      await this.fail([rec], error, 'send')
    }
  }

  private async confirmDelete(r: OutboxRecord): Promise<void> {
    const now = this.clock()
    const contents = await this.write(async () => {
      const paths = await this.removeServerRow(r.kind as WritableKind, r.entityId)
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

  // ---- the cache's server tables ----

  private async putServerRow(kind: WritableKind, id: string, row: Row): Promise<void> {
    const table = tableOf(this.db, kind)
    const key = tableKey(kind, id) as never
    const merged = mergeRow((await table.get(key)) as Row | undefined, row)
    // A v4 epic has no position; a new one is placed last, until sync reads its real position.
    if (kind === 'epic' && merged.position === undefined) merged.position = Number.MAX_SAFE_INTEGER
    await table.put(merged)
  }

  /** A confirmed delete, and what the service removed with it. Answers the paths of downloaded content to discard. */
  private async removeServerRow(kind: WritableKind, id: string): Promise<string[]> {
    const db = this.db
    const key = tableKey(kind, id) as never
    switch (kind) {
      case 'file':
        return removeFiles(db, [key])
      case 'epic': {
        const epicId = Number(id)
        await db.epicComments.where('epic_id').equals(epicId).delete()
        await db.epicHealth.where('epic_id').equals(epicId).delete()
        await db.docEpics.where('epic_id').equals(epicId).delete()
        break
      }
      case 'doc':
        await db.docEpics.where('doc_id').equals(id).delete()
        break
      case 'comment': {
        // A comment with replies stays as a deleted placeholder holding them.
        if ((await db.epicComments.where('parent_id').equals(Number(id)).count()) > 0) {
          await db.epicComments.update(Number(id), { deleted: true, text: '' })
          return []
        }
        break
      }
      case 'objective': {
        // The service takes a deleted objective off its epics (and a deleted category off its objectives):
        // so does the cache, and so do the bases of queued writes, or they would look like someone else's change.
        const objectiveId = Number(id)
        await db.epics
          .where('objective_ids')
          .equals(objectiveId)
          .modify((e) => {
            e.objective_ids = e.objective_ids.filter((o) => o !== objectiveId)
          })
        await this.forgetInRecords('epic', 'objective_ids', objectiveId)
        break
      }
      case 'category': {
        const categoryId = Number(id)
        await db.objectives
          .filter((o) => o.category_ids.includes(categoryId))
          .modify((o) => {
            o.category_ids = o.category_ids.filter((c) => c !== categoryId)
          })
        await this.forgetInRecords('objective', 'category_ids', categoryId)
        break
      }
    }
    await tableOf(db, kind).delete(key)
    return []
  }

  /** A deleted entity's id leaves the id lists of queued writes (base and mine). */
  private async forgetInRecords(kind: WritableKind, field: string, id: EntityId): Promise<void> {
    const now = this.clock()
    const touched: OutboxRecord[] = []
    for (const r of await this.db.outbox.toArray()) {
      // In-flight ones too (one sent before a kill, waiting to be reconciled): their base and mine are read
      // again before they are compared or sent, and the service took the id out of what they wrote as well.
      if (r.kind !== kind || recordProblem(r)) continue
      let changed = false
      for (const side of [r.base, r.payload]) {
        const list = side[field]
        if (Array.isArray(list) && list.includes(id)) {
          side[field] = list.filter((v) => v !== id)
          changed = true
        }
      }
      if (!changed) continue
      // The journal keeps the change as it goes now (restored as it was, its base would meet the deletion as a conflict).
      await this.journalAgain(r)
      await this.db.outbox.put(r)
      touched.push(r)
    }
    await rebuildOverlays(this.db, touched, now)
  }

  // ---- record states ----

  private async markInFlight(records: OutboxRecord[]): Promise<OutboxRecord[]> {
    const now = this.clock()
    const marked = await this.write(async () => {
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

  private async markFailed(records: OutboxRecord[], error: OutboxError): Promise<void> {
    const now = this.clock()
    await this.write(async () => {
      for (const r of records) {
        const cur = await this.db.outbox.get(r.seq!)
        if (!cur) continue
        cur.state = 'failed'
        cur.error = error
        cur.updatedAt = now
        await this.db.outbox.put(cur)
        this.result.failed++
      }
    })
  }

  /** Not applied (the service said so, or the request never left): back to waiting. */
  private async markUnsent(records: OutboxRecord[]): Promise<void> {
    await this.write(async () => {
      const unsent: OutboxRecord[] = []
      for (const r of records) {
        const cur = await this.db.outbox.get(r.seq!)
        if (cur?.state !== 'in-flight') continue
        await this.db.outbox.update(cur.seq!, { state: 'pending' })
        unsent.push(cur)
      }
      // A create waiting again takes later changes in (an update merges into it): the journal must not restore it as
      // one that may have reached the service, or it would be looked for with what it said before they merged.
      // (An update or a delete may have left, its answer lost, reported as unreachable: its mark stays.)
      const ids = journalIdsOf(unsent.filter((r) => r.op === 'create'))
      if (this.journal && ids.length > 0) await Dexie.waitFor(this.journal.unsent(ids))
    })
  }

  // ---- failures ----

  private async fail(records: OutboxRecord[], error: unknown, phase: Phase): Promise<void> {
    if (error instanceof Aborted) throw error
    // The cache refused a write (its answer, or the record's state): not the service's doing. The pass stops and the
    // record stays as it is stored, in flight if it was sent, to be reconciled once there is room (never resent blind).
    if (isStorageFull(error)) throw error
    // The answer came, but the journal could not be told: nothing was written, and what went is reconciled next time.
    if (error instanceof JournalUnavailable) return this.retryLater(records)
    if (error instanceof LocalFailure) {
      await this.markFailed(records, { message: error.message, ...(error.errors && { errors: error.errors }) })
      return
    }
    if (error instanceof Gone) {
      await this.refused(records, { status: 404, message: error.message })
      return
    }
    if (isMissingFile(error)) {
      await this.markFailed(records, { message: 'The file to upload is no longer where Outpost kept it; drop it again.' })
      return
    }
    const f = failureOf(error)
    switch (f.kind) {
      case 'auth':
        return this.pause(records, 'auth', `The service refused the API token (${f.message}). Sign in again with a valid token; queued changes are kept.`)
      case 'readonly':
        return this.pause(records, 'read-only', `The API token is read-only (${f.message}). Add a read-write token; queued changes are kept.`)
      case 'insecure':
      case 'bad-url':
        return this.pause(records, 'insecure', f.message)
      case 'http':
        if (f.status === 429) return this.retryUnsent(records)
        if (f.status === undefined || f.status >= 500) return this.retryLater(records)
        return this.refused(records, f)
      case 'network':
        // Never left, as the gateway says of a create's POST: nothing to look for next time. An idempotent create (a
        // link's PUT) is said so whether it left or not: it stays in flight and goes again as it is, and an unlink
        // made meanwhile goes after it rather than cancelling it here while the service may have it.
        if (phase === 'send') await this.markUnsent(records.filter((r) => !(r.op === 'create' && REQUESTS[r.kind as WritableKind].idempotentCreate)))
        return this.retryLater(records)
      default:
        // timeout, outcome-unknown: it may have been applied; it stays in flight and is reconciled before it goes again.
        return this.retryLater(records)
    }
  }

  /** The service refused it (4xx). */
  private async refused(records: OutboxRecord[], f: { status?: number; message: string; tag?: string; errors?: Record<string, string> }): Promise<void> {
    for (const r of records) {
      if (f.status === 404 && r.op === 'delete') await this.confirmDelete(r)
      else if (f.status === 404 && r.op === 'update') await this.markDeletedElsewhere(r)
      else {
        const errors = f.errors ? Object.fromEntries(Object.entries(f.errors).map(([k, v]) => [payloadField(k), v])) : undefined
        await this.markFailed([r], {
          message: f.message,
          ...(f.status !== undefined && { status: f.status }),
          ...(f.tag !== undefined && { tag: f.tag }),
          ...(errors && { errors }),
        })
      }
    }
    this.failuresInARow = 0
  }

  private async pause(records: OutboxRecord[], reason: OutboxPause['reason'], message: string): Promise<void> {
    const pause: OutboxPause = { reason, message, at: this.clock() }
    await this.markUnsent(records)
    await this.write(() => setPause(this.db, pause))
    this.result.stopped = reason
    this.result.pause = pause
  }

  /**
   * Network errors, timeouts, 5xx: the records wait as they are (in flight if they were sent: they may have been
   * applied, and are reconciled before they go again; others may go meanwhile), tried again after a pause.
   */
  private retryLater(records: OutboxRecord[]): void {
    for (const r of records) this.troubled.add(r.seq!)
    this.failuresInARow++
    if (this.failuresInARow >= this.backoff.attempts) this.result.stopped = 'offline'
  }

  /** A 429: the service did not handle the records; they go back to pending and are tried again after a pause. */
  private async retryUnsent(records: OutboxRecord[]): Promise<void> {
    await this.markUnsent(records)
    this.retryLater(records)
  }

  /** Exponential, with "equal jitter": between half and all of base * 2^(failures - 1), capped. */
  private backoffMs(): number {
    const ceiling = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** Math.max(0, this.failuresInARow - 1))
    return Math.round(ceiling / 2 + this.random() * (ceiling / 2))
  }

  // ---- plumbing ----

  private async whoAmI(): Promise<string | null> {
    try {
      const info = await this.transport.call<{ id: string }>('member', { lane: 'user-write' })
      await this.write(() => this.db.meta.put({ key: 'outbox:me', value: info.id }))
      return info.id
    } catch (error) {
      this.me = undefined
      throw error
    }
  }

  private checkAbort(): void {
    if (this.signal?.aborted) throw new Aborted('Replay was stopped.')
  }

  private write<T>(run: () => Promise<T>): Promise<T> {
    this.checkAbort()
    return journaledTransaction(this.db, this.journal, async (_appended, done) => {
      // A write inside another confirms with the outer one, which is the one that commits.
      const outer = this.replaced
      this.replaced ??= done
      try {
        return await run()
      } finally {
        this.replaced = outer
      }
    })
  }

  /**
   * Inside a write: a record journaled again as it is now (narrowed, rebased, an id taken out of it); the entries it
   * replaces are confirmed once the write committed.
   */
  private async journalAgain(r: OutboxRecord): Promise<void> {
    this.replaced!.push(...(await journalAgain(this.db, this.journal, r)))
  }
}

// ---- pure helpers ----

/** A staged file that is gone: found before anything was sent. */
function isMissingFile(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT'
}

/**
 * The items of a bulk epic update the service refused as not found (404, its errors naming `epics[i]`): none
 * when the refusal is of anything else, or names no item, or all of them.
 */
function missingBulkItems(error: unknown, count: number): Set<number> {
  const f = failureOf(error)
  if (f.kind !== 'http' || f.status !== 404 || !f.errors) return new Set()
  const items = new Set<number>()
  for (const key of Object.keys(f.errors)) {
    const index = /^epics\[(\d+)\]$/.exec(key)?.[1]
    if (index === undefined) return new Set()
    items.add(Number(index))
  }
  return [...items].every((i) => i < count) && items.size < count ? items : new Set()
}

/** A 4xx that is about the request itself (not auth, not the rate limit). */
function isRefusal(error: unknown): boolean {
  if (error instanceof LocalFailure) return true
  const f = failureOf(error)
  return f.kind === 'http' && f.status !== undefined && f.status >= 400 && f.status < 500 && f.status !== 429
}
