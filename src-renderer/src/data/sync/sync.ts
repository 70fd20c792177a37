// One sync run: every kind in order, each fetched when it needs to be.
//
// Bootstrap (a kind with no finished fetch) in the fewest requests the API
// allows, with E epics and D docs (archived included):
//   members, groups, categories, objectives, labels, custom fields, files,
//   linked files: one v3 list each ............................ 8
//   epic states: one v4 page of 100 ............................. 1
//   epics: the v3 list (every epic's position and progress) ..... 1
//          v4 pages of 100 (every field, comments, health) ...... ceil(E/100)
//   docs:  v4 pages of 100 (markdown and HTML) .................. ceil(D/100)
// that is 10 + ceil(E/100) + ceil(D/100) (an empty list is still one page).
//
// Why epics cost ceil(E/100) + 1: comments and health exist per epic. The
// only ways to them are per-epic requests (v3 GET /epics/{id}, its comments,
// its health history: E requests or more) or the v4 epic list, whose pages
// carry each epic's `comments` (threaded-comment slims: id, text, deleted)
// and `healths` (slims: id, status, times). So the v4 pages are the floor for
// "epics with their comments and health", and they carry every epic field but
// one: v4 has no `position`, which only v3 gives, nor the stories' `stats`.
// The v3 list (one request) brings every epic's position and stats; its rows
// are not stored in a bootstrap, since the v4 pages bring each epic whole: an
// epic is written once. The pages come newest first, the epic list's own
// order: the first is stored before the v3 list is asked for (its 100 epics
// are put in their places when the list comes), so the epic list shows after
// the reference lists and one page.
// What the slims lack (author, thread, times of comments; text and author of
// health) comes when an epic is opened (refreshEpic: 3 requests).
//
// After the bootstrap, a run makes: the epic and doc walks (usually one page
// each); the whole lists of reference data and files when due; the id sweeps
// (the v3 epic list, which also refreshes positions, and the v3 doc list) when
// due. A whole list removes only rows the cache held before it was asked for
// (see knownIds), so a create written back while it was on its way stays.
//
// Stories are never fetched per epic by a run: an epic's come when it is opened
// (refreshEpic) or followed. A run refreshes only stories already cached whose
// epic changed since (its updated_at, or its stats' last_story_update, which the
// sweep's list carries): at most `storyRefreshesPerRun` epics, longest
// unrefreshed first, on the sync lane; the rest wait for the next run.
import { failureOf } from '../transport.ts'
import type { EpicSlimV3 } from '../../../../src-shared/api/v3/epics.ts'
import type { DocSlimV3 } from '../../../../src-shared/api/v3/docs.ts'
import type { OperationFailure } from '../../../../src-shared/api/operations.ts'
import type { EntityId } from '../types.ts'
import { knownIds, removeFiles, replaceAll, writeDocList, writeEpicList, type ListedEpic } from './cache.ts'
import { refreshEpicStories } from './refresh.ts'
import {
  FILE_KINDS,
  REFERENCE_KINDS,
  SYNC_KINDS,
  readCheckpoint,
  readCheckpoints,
  type KindCheckpoint,
  type SyncKind,
} from './checkpoints.ts'
import { allPages, call, type SyncContext } from './context.ts'
import { LIST_SOURCES, type ListKind } from './lists.ts'
import { walk } from './walk.ts'
import { prefetchFiles } from './files.ts'

export interface SyncReport {
  /** The run finished a bootstrap (or part of one). */
  bootstrap: boolean
  /** Kinds fetched in this run. */
  fetched: SyncKind[]
  /** Rows written and removed. */
  written: number
  removed: number
  /** File contents downloaded ahead of use. */
  prefetched: number
  /** Epics whose cached stories were fetched again. */
  storiesRefreshed: number
  /** Kinds that failed with an answer of the service (the others went on). */
  failures: { kind: SyncKind; failure: OperationFailure }[]
}

/** Some kinds failed; the report says which and why. */
export class SyncError extends Error {
  override readonly name = 'SyncError'
  constructor(readonly report: SyncReport) {
    super(report.failures.map((f) => `${f.kind}: ${f.failure.message}`).join('; '))
  }
}

export interface RunOptions {
  /** Fetch every list and run the sweeps now, due or not. */
  force?: boolean
  /** Download recent files ahead of use (the default); not while storage is short. */
  prefetch?: boolean
}

const isIn = <K extends string>(list: readonly K[], kind: string): kind is K => (list as readonly string[]).includes(kind)

/** Failures that would fail every other kind too, or that mean stop: they end the run. */
function endsTheRun(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true
  const f = failureOf(error)
  if (f.kind !== 'http') return true
  return f.status === undefined || f.status === 429 || f.status >= 500
}

/** Runs the bootstrap or an incremental sync, whichever each kind needs. Call it under the sync lock. */
export async function runSync(ctx: SyncContext, options: RunOptions = {}): Promise<SyncReport> {
  const checkpoints = await readCheckpoints(ctx.db)
  // A bootstrap under way (stopped, crashed, offline) goes on where it stopped,
  // and fetches nothing else until it is done. A kind the service refuses
  // (docs switched off: 403) does not hold the others back: it is tried each run.
  const resuming = [...checkpoints.values()].some((c) => !c.bootstrapped && c.failure === null)
  const report: SyncReport = {
    bootstrap: [...checkpoints.values()].some((c) => !c.bootstrapped),
    fetched: [],
    written: 0,
    removed: 0,
    prefetched: 0,
    storiesRefreshed: 0,
    failures: [],
  }
  const now = ctx.clock()
  const due = (cp: KindCheckpoint, interval: number) => !cp.bootstrapped || options.force === true || cp.syncedAt === null || now - cp.syncedAt >= interval
  let listed: ReadonlyMap<number, ListedEpic> | undefined
  /** Walks that finished a bootstrap in this run (the epics' may end with its first page, before the list). */
  const walked = new Set<SyncKind>()

  for (const kind of SYNC_KINDS) {
    const cp = checkpoints.get(kind)!
    if (resuming && cp.bootstrapped) continue
    try {
      if (isIn(REFERENCE_KINDS, kind) || isIn(FILE_KINDS, kind)) {
        const interval = isIn(FILE_KINDS, kind) ? ctx.options.filesIntervalMs : ctx.options.referenceIntervalMs
        if (!due(cp, interval)) continue
        const { written, removed } = await fetchList(ctx, kind, cp)
        report.written += written
        report.removed += removed
      } else if (kind === 'epicList') {
        if (!due(cp, ctx.options.sweepIntervalMs)) continue
        const epics = await readCheckpoint(ctx.db, 'epics')
        if (!epics.bootstrapped && epics.cursor === null) {
          // A bootstrap's first epic page (the newest 100) is stored before the list of all: the epic
          // list shows it without waiting for 10,000 positions. Its epics take their places when the list
          // comes (100 rows written again); the walk goes on from its checkpoint after the list.
          const head = await walk(ctx, 'epics', undefined, { pages: 1 })
          report.written += head.written
          if (head.finished) walked.add('epics')
        }
        const known = await knownIds(ctx.db.epics)
        // Ids, positions and stats (each epic's progress, which no other list carries). In a bootstrap the
        // v4 pages that follow bring every epic whole, with these positions and progress (v4 has neither): the list's
        // own rows are not stored, or each epic would be written twice. The list counts as fetched once
        // that walk is done, so a bootstrap stopped before then asks for it again (its positions).
        const list = await call<EpicSlimV3[]>(ctx, 'epics.v3List', { fields: ['id', 'position', 'stats'] })
        const done = { ...cp, syncedAt: ctx.clock(), done: list.length, total: list.length }
        const result = await writeEpicList(ctx.db, list, done, known)
        listed = result.listed
        report.written += result.written
        report.removed += result.removed
        ctx.progress({ kind, phase: cp.bootstrapped ? 'incremental' : 'bootstrap', done: list.length, total: list.length })
      } else if (kind === 'docList') {
        if (!due(cp, ctx.options.sweepIntervalMs)) continue
        if (!cp.bootstrapped) {
          // A bootstrap needs no doc sweep: the doc pages that follow bring every doc there is.
          await ctx.db.checkpoints.put({ ...cp, bootstrapped: true, syncedAt: ctx.clock() })
          continue
        }
        const known = await knownIds(ctx.db.docs)
        const list = await call<DocSlimV3[]>(ctx, 'documents.v3List')
        report.removed += await writeDocList(
          ctx.db,
          list.map((d) => d.id),
          { ...cp, syncedAt: ctx.clock(), done: list.length, total: list.length },
          known,
        )
        ctx.progress({ kind, phase: 'incremental', done: list.length, total: list.length })
      } else {
        if (!walked.has(kind)) {
          const result = await walk(ctx, kind, kind === 'epics' ? listed : undefined)
          report.written += result.written
          if (kind === 'epics' && result.phase === 'bootstrap') walked.add('epics')
        }
        if (kind === 'epics' && walked.has('epics')) await ctx.db.checkpoints.update('epicList', { bootstrapped: true })
      }
      report.fetched.push(kind)
      if (cp.failure !== null) await ctx.db.checkpoints.update(kind, { failure: null })
    } catch (error) {
      if (endsTheRun(error, ctx.signal)) throw error
      const failure = failureOf(error)
      report.failures.push({ kind, failure })
      await ctx.db.checkpoints.put({ ...(await readCheckpoint(ctx.db, kind)), failure: { status: failure.status, message: failure.message } })
    }
  }

  if (!report.bootstrap) {
    try {
      report.storiesRefreshed = await refreshStaleStories(ctx)
    } catch (error) {
      if (endsTheRun(error, ctx.signal)) throw error
      report.failures.push({ kind: 'epics', failure: failureOf(error) })
    }
  }

  // Costs no request unless a recent file is missing and fits.
  if (ctx.options.fileBudgetBytes > 0 && options.prefetch !== false) {
    try {
      report.prefetched = await prefetchFiles(ctx)
    } catch (error) {
      if (endsTheRun(error, ctx.signal)) throw error
      report.failures.push({ kind: 'files', failure: failureOf(error) })
    }
  }
  if (report.failures.length > 0) throw new SyncError(report)
  return report
}

/**
 * The cached story lists whose epic changed since they were fetched, fetched again: at most
 * `storyRefreshesPerRun`, the longest unrefreshed first. Returns how many were.
 */
async function refreshStaleStories(ctx: SyncContext): Promise<number> {
  const limit = ctx.options.storyRefreshesPerRun
  if (limit <= 0) return 0
  const lists = await ctx.db.storyLists.orderBy('fetchedAt').toArray()
  if (lists.length === 0) return 0
  const ids = lists.map((l) => l.epic_id)
  const epics = await ctx.db.epics.bulkGet(ids)
  const stale = lists.filter((l, i) => {
    const epic = epics[i]
    if (!epic) return false
    const lastStoryUpdate = epic.progress?.last_story_update ?? null
    return epic.updated_at > l.epicUpdatedAt || (lastStoryUpdate !== null && lastStoryUpdate !== l.lastStoryUpdate)
  })
  let done = 0
  for (const l of stale.slice(0, limit)) {
    if (ctx.signal?.aborted) break
    await refreshEpicStories({ db: ctx.db, transport: ctx.transport, clock: ctx.clock }, l.epic_id as number, 'sync')
    done++
  }
  return done
}

/** A whole list, stored in place of what the cache held of that kind. */
async function fetchList(ctx: SyncContext, kind: ListKind, cp: KindCheckpoint): Promise<{ written: number; removed: number }> {
  const source = LIST_SOURCES[kind]
  const table = source.table(ctx.db)
  // Asked for only now, in its turn: a list asked for early would miss what a replay made meanwhile (a
  // label created by name on an epic), and the kind would count as fetched until its next turn.
  const known = await knownIds(table)
  const items: unknown[] = source.paged ? await allPages(ctx, source.operation, source.query) : await call<unknown[]>(ctx, source.operation, { query: source.query })
  const rows = items.map((item) => source.convert(item as never))
  const next: KindCheckpoint = { ...cp, bootstrapped: true, cursor: null, syncedAt: ctx.clock(), done: rows.length, total: rows.length }
  const phase = cp.bootstrapped ? 'incremental' : 'bootstrap'
  if (kind === 'files') {
    // A file deleted on the service takes its downloaded content with it.
    let discard: string[] = []
    const result = await replaceAll(ctx.db, table, rows, next, known, [ctx.db.fileContents], async (removed: EntityId[]) => {
      discard = await removeFiles(ctx.db, removed)
    })
    await Promise.all(discard.map((path) => ctx.transport.discard(path).catch(() => undefined)))
    ctx.progress({ kind, phase, done: rows.length, total: rows.length })
    return { written: result.written, removed: result.removed.length }
  }
  const result = await replaceAll(ctx.db, table, rows, next, known)
  ctx.progress({ kind, phase, done: rows.length, total: rows.length })
  return { written: result.written, removed: result.removed.length }
}
