// The service's side of queued updates, read before they go, and each planned
// against it (conflict-plan.ts). Epic updates are checked all at once, once a
// pass, in as few requests as the API allows; other kinds one entity at a time.
// Functions over the replayer (replay.ts).
import type { OutpostDb } from '../db.ts'
import { readCheckpoint } from '../sync/checkpoints.ts'
import { DEFAULT_SYNC_OPTIONS } from '../sync/context.ts'
import { isNotFound } from '../transport.ts'
import type { OutboxRecord } from '../types.ts'
import { planOf, UNCHANGED, type Plan } from './conflict-plan.ts'
import { sameValue, type WritableKind } from './kinds.ts'
import { readyRecords } from './readiness.ts'
import { allEpics, epicsChangedSince, Gone, REQUESTS, type RequestContext, type Row } from './requests.ts'

/**
 * The conflict check of epic updates reads one page of "epics changed since" the oldest base when the cache
 * counts fewer epics changed since then than this (a page holds 100; the rest is room for changes the cache
 * has not heard of yet). Otherwise it reads every epic in one request.
 */
const CHANGED_PAGE_FILL = 90

/** Epics changed since the last sync that the first page of the check after a sync has room for, beyond those the cache knows of. */
const SINCE_SYNC_ROOM = 10

/** Some of these changes set a description: the check reads the service's (most of an epic's bytes otherwise left out). */
const describes = (records: OutboxRecord[]) => records.some((r) => 'description' in r.payload)

/** What the conflict check needs of the pass (replay.ts's Replayer). */
export interface CheckingPass {
  readonly db: OutpostDb
  readonly ctx: RequestContext
  /** The service's epic for epic updates still to go this pass, by record seq: one check for all (checkEpics). */
  readonly checked: Map<number, Row | typeof UNCHANGED>
  checkAbort(): void
}

/** What each update still has to send, after comparing with the service: applied, mine to send, or conflicts. */
export async function planUpdates(pass: CheckingPass, records: OutboxRecord[]): Promise<Plan[]> {
  const theirs = new Map<number, Row | typeof UNCHANGED | null>()
  if (records.filter((r) => r.kind === 'epic' && !pass.checked.has(r.seq!)).length > 2) await checkEpics(pass)
  for (const r of records) {
    const known = pass.checked.get(r.seq!)
    // Used once: a record tried again in this pass (its bulk failed for want of time) is checked again.
    pass.checked.delete(r.seq!)
    if (known !== undefined) {
      theirs.set(r.seq!, known)
      continue
    }
    try {
      theirs.set(r.seq!, await REQUESTS[r.kind as WritableKind].fetch!(pass.ctx, r))
    } catch (error) {
      if (!(error instanceof Gone) && !isNotFound(error)) throw error
      theirs.set(r.seq!, null)
    }
    pass.checkAbort()
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
async function checkEpics(pass: CheckingPass): Promise<void> {
  const waiting = readyRecords(await pass.db.outbox.toArray()).filter((r) => r.kind === 'epic' && r.op === 'update' && !pass.checked.has(r.seq!))
  let open = await checkEpicsSinceSync(pass, waiting)
  if (open.length <= 2) return
  const bases = open.map((r) => r.baseUpdatedAt)
  if (bases.every((b): b is string => b !== undefined)) {
    const since = bases.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b))
    if ((await pass.db.epics.where('updated_at').aboveOrEqual(since).count()) < CHANGED_PAGE_FILL) {
      const { rows, coveredFrom } = await epicsChangedSince(pass.ctx, since, 1, 100, describes(open))
      pass.checkAbort()
      const left = open
      open = []
      for (const r of left) {
        const row = rows.get(Number(r.entityId))
        if (row) pass.checked.set(r.seq!, row)
        else if (coveredFrom === null || Date.parse(coveredFrom) <= Date.parse(r.baseUpdatedAt!)) pass.checked.set(r.seq!, UNCHANGED)
        else open.push(r)
      }
    }
  }
  if (open.length <= 2) return
  const all = await allEpics(pass.ctx, describes(open))
  pass.checkAbort()
  for (const r of open) {
    const row = all.get(Number(r.entityId))
    if (row) pass.checked.set(r.seq!, row)
  }
}

/**
 * The cache holds every epic as the service had it when its last sync walked down to (the epics checkpoint,
 * less the sync's overlap): one page of what changed since then, if it covers it, tells the rest. An epic the
 * page does not bring is as the cache has it: unchanged when that is the version the change was made over,
 * else the cached row is theirs (when it holds every field the change sets). Answers what is left open.
 */
async function checkEpicsSinceSync(pass: CheckingPass, waiting: OutboxRecord[]): Promise<OutboxRecord[]> {
  const cp = await readCheckpoint(pass.db, 'epics')
  if (!cp.bootstrapped || cp.since === null || waiting.length <= 2) return waiting
  const since = new Date(Date.parse(cp.since) - DEFAULT_SYNC_OPTIONS.overlapMs).toISOString()
  const known = await pass.db.epics.where('updated_at').aboveOrEqual(since).count()
  if (known >= CHANGED_PAGE_FILL) return waiting
  // A page the size of what the cache knows changed since, and room for what it has not heard of yet: most
  // often a few epics, where a whole page would cost more bytes than the changes being sent.
  const { rows, coveredFrom } = await epicsChangedSince(pass.ctx, since, 2, Math.min(100, known + SINCE_SYNC_ROOM), describes(waiting))
  pass.checkAbort()
  // More changed since than a page holds: the other checks.
  if (coveredFrom !== null && Date.parse(coveredFrom) >= Date.parse(since)) return waiting
  const cached = await pass.db.epics.bulkGet(waiting.map((r) => Number(r.entityId)))
  const open: OutboxRecord[] = []
  waiting.forEach((r, i) => {
    const changed = rows.get(Number(r.entityId))
    const row = cached[i] as (Row & { partial?: true }) | undefined
    if (changed) pass.checked.set(r.seq!, changed)
    else if (row && r.baseUpdatedAt !== undefined && sameValue(row.updated_at, r.baseUpdatedAt)) pass.checked.set(r.seq!, UNCHANGED)
    else if (row && !row.partial && Object.keys(r.payload).every((field) => field in row)) pass.checked.set(r.seq!, row)
    else open.push(r)
  })
  return open
}
