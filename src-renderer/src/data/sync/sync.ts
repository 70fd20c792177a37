// One sync run: every kind that is due, fetched at once (each kind's own
// requests in their order), so that a run takes as long as its longest kind,
// not the sum of them all: on a far link that is the round trips of the
// epics' walk.
//
// Bootstrap (a kind with no finished fetch) in the fewest requests the API
// allows, with E epics and D docs (archived included):
//   members, groups, categories, objectives, labels, custom fields, files,
//   linked files: one v3 list each ............................ 8
//   epic states: one v4 page of 100 ............................. 1
//   epics: the v3 list (every epic, its position and progress) .. 1
//          v4 pages of 100 (description, comments, health) ...... ceil(E/100)
//          the pages of what changed during the walk ............ 1
//   docs:  the v3 list (every doc's id and title) ............... 1
//          v4 pages of 100 (Markdown) ........................... ceil(D/100)
//          the pages of what changed during the walk ............ 1
// that is 13 + ceil(E/100) + ceil(D/100) (an empty list is still one page).
// The walks go from both ends of their list at once (walk.ts), so the round
// trips one after another are about ceil(ceil(E/100) / 2), and every answer
// is asked for with the fields the cache keeps (`fields`; the v3 list, which
// has none, is trimmed in the main side).
//
// Why epics cost ceil(E/100) + 2: comments and health exist per epic. The
// only ways to them are per-epic requests (v3 GET /epics/{id}, its comments,
// its health history: E requests or more) or the v4 epic list, whose pages
// carry each epic's `comments` (threaded-comment slims: id, text, deleted)
// and `healths` (slims: id, status, times). So the v4 pages are the floor for
// "epics with their comments and health". v4 has no `position`, which only v3
// gives, nor the stories' `stats`: the v3 list (one request) brings every
// epic with them, and every field but the description. A bootstrap stores its
// rows first (partial: the epic list shows every epic after one request), and
// the v4 pages, asked only for what it lacks (EPIC_V4_PAGE_FIELDS), complete
// them. The window is handed the list's rows before they are stored
// (ctx.handOver): storing 10,000 rows behind the walk's writes and reading
// them back takes seconds. What the slims lack (author, thread, times of
// comments; text and author of health) comes when an epic is opened
// (refreshEpic: 3 requests).
// Docs likewise: the v3 list names every doc by its title, handed to the
// window and stored first (partial: the doc list and its search hold every doc
// after one request),
// and the doc pages bring each whole; they need not wait for it.
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
//
// File contents are downloaded ahead of use once the lists are stored (the run
// says so through `listed`: the workspace is synced then), on the lowest lane.
import { failureOf } from '../transport.ts'
import type { EpicSlimV3 } from '../../../../src-shared/api/v3/epics.ts'
import type { DocSlimV3 } from '../../../../src-shared/api/v3/docs.ts'
import type { OperationFailure } from '../../../../src-shared/api/operations.ts'
import type { EntityId } from '../types.ts'
import {
  knownIds,
  removeFiles,
  removePartialDocs,
  removePartialEpics,
  newestOf,
  replaceAll,
  writeDocList,
  writeEpicList,
  storeEpicList,
  writeEpicListPart,
  type ListedEpic,
} from './cache.ts'
import { docFromListV3, EPIC_LIST_V3_FIELDS, epicFromListV3 } from '../convert.ts'
import { newestOrder } from '../epic-order.ts'
import { refreshEpicStories } from './refresh.ts'
import { FILE_KINDS, REFERENCE_KINDS, SYNC_KINDS, readCheckpoint, readCheckpoints, type KindCheckpoint, type SyncKind } from './checkpoints.ts'
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
  /** Download recent files ahead of use (the default); not while storage is short, nor on a metered link. */
  prefetch?: boolean
  /** Nothing the user did not ask for: no id sweeps, no story refreshes, no lists fetched again (a metered link). */
  metered?: boolean
  /** Told once the lists are stored, before files are downloaded ahead of use. */
  listed?: () => void | Promise<void>
}

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
  const due = (cp: KindCheckpoint, interval: number) =>
    !cp.bootstrapped || (options.metered !== true && (options.force === true || cp.syncedAt === null || now - cp.syncedAt >= interval))
  const wanted = (kind: SyncKind) => !(resuming && checkpoints.get(kind)!.bootstrapped)

  // The kinds go at once; a failure that ends the run stops the others where they are (what came is stored).
  const stop = new AbortController()
  const onAbort = () => stop.abort(ctx.signal?.reason)
  ctx.signal?.addEventListener('abort', onAbort, { once: true })
  const run: SyncContext = { ...ctx, signal: stop.signal, ahead: new Map() }
  let fatal: { error: unknown } | undefined
  /** One kind's fetch: its failure is the report's, or ends the run. */
  const task = async (kinds: SyncKind[], fetch: () => Promise<void>) => {
    try {
      await fetch()
      report.fetched.push(...kinds)
      for (const kind of kinds) if (checkpoints.get(kind)!.failure !== null) await ctx.db.checkpoints.update(kind, { failure: null })
    } catch (error) {
      if (endsTheRun(error, run.signal)) {
        fatal ??= { error }
        stop.abort(error)
        return
      }
      const failure = failureOf(error)
      const kind = kinds.at(-1)!
      report.failures.push({ kind, failure })
      await ctx.db.checkpoints.put({ ...(await readCheckpoint(ctx.db, kind)), failure: { status: failure.status, message: failure.message } })
    }
  }
  const count = (r: { written?: number; removed?: number }) => {
    report.written += r.written ?? 0
    report.removed += r.removed ?? 0
  }

  const tasks: Promise<void>[] = []
  try {
    // The walks first: their chains of pages are what a run waits for longest.
    const epics = checkpoints.get('epics')!
    const epicList = checkpoints.get('epicList')!
    if (wanted('epics') || wanted('epicList')) {
      if (!epics.bootstrapped) tasks.push(task(['epicList', 'epics'], async () => count(await bootstrapEpics(run, epicList))))
      else {
        const sweep = wanted('epicList') && due(epicList, ctx.options.sweepIntervalMs)
        tasks.push(
          task(sweep ? ['epicList', 'epics'] : ['epics'], async () => {
            const listed = sweep ? await sweepEpics(run, epicList, count) : undefined
            count(await walk(run, 'epics', { listed }))
          }),
        )
      }
    }
    const docs = checkpoints.get('docs')!
    const docList = checkpoints.get('docList')!
    if (wanted('docs') || wanted('docList')) {
      if (!docs.bootstrapped) tasks.push(task(['docList', 'docs'], async () => count(await bootstrapDocs(run, docList))))
      else {
        const sweep = wanted('docList') && due(docList, ctx.options.sweepIntervalMs)
        tasks.push(
          task(sweep ? ['docList', 'docs'] : ['docs'], async () => {
            if (sweep) await sweepDocs(run, docList, count)
            count(await walk(run, 'docs'))
          }),
        )
      }
    }
    for (const kind of [...REFERENCE_KINDS, ...FILE_KINDS]) {
      const cp = checkpoints.get(kind)!
      const interval = isIn(FILE_KINDS, kind) ? ctx.options.filesIntervalMs : ctx.options.referenceIntervalMs
      if (!wanted(kind) || !due(cp, interval)) continue
      tasks.push(task([kind], async () => count(await fetchList(run, kind, cp))))
    }
    await Promise.all(tasks)
    if (fatal) throw fatal.error

    if (!report.bootstrap && options.metered !== true) {
      try {
        report.storiesRefreshed = await refreshStaleStories(run)
      } catch (error) {
        if (endsTheRun(error, run.signal)) throw error
        report.failures.push({ kind: 'epics', failure: failureOf(error) })
      }
    }
    await options.listed?.()

    // Costs no request unless a recent file is missing and fits.
    if (ctx.options.fileBudgetBytes > 0 && options.prefetch !== false && options.metered !== true) {
      try {
        report.prefetched = await prefetchFiles(run)
      } catch (error) {
        if (endsTheRun(error, run.signal)) throw error
        report.failures.push({ kind: 'files', failure: failureOf(error) })
      }
    }
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort)
    stop.abort()
  }
  // The same order every time, whichever kind finished first.
  report.fetched.sort((a, b) => SYNC_KINDS.indexOf(a) - SYNC_KINDS.indexOf(b))
  if (report.failures.length > 0) throw new SyncError(report)
  return report
}

const isIn = <K extends string>(list: readonly K[], kind: string): kind is K => (list as readonly string[]).includes(kind)

/**
 * The epics' bootstrap: the v3 list of every epic, stored first (every epic shows in the list, partial), and the
 * walk from both ends completing its rows, at once. Epics the list stored that no page completed were deleted
 * meanwhile. The list is not asked again once stored (a bootstrap that resumes goes on with the walk); one the link
 * cut on its way is resumed from where it stopped (listRest).
 */
async function bootstrapEpics(ctx: SyncContext, listCp: KindCheckpoint): Promise<{ written: number; removed: number }> {
  let written = 0
  let listNewest = listCp.since
  /** The epics the list stored in this run (partial until a page completes them); undefined when it was not whole. */
  let listIds: number[] | undefined
  const storeWhole = async () => {
    const known = await knownIds(ctx.db.epics)
    const list = await call<EpicSlimV3[]>(ctx, 'epics.v3List', { fields: [...EPIC_LIST_V3_FIELDS] }).catch(async (error: unknown) => {
      await keepListPart(ctx, listCp, failureOf(error).received as EpicSlimV3[] | undefined)
      throw error
    })
    listNewest = newestOf(list)
    listIds = list.map((e) => e.id)
    handEpics(ctx, list)
    const done = { ...listCp, bootstrapped: true, syncedAt: ctx.clock(), since: listNewest, done: list.length, total: list.length }
    const result = await storeEpicList(ctx.db, list, listCp, done, known, (stored) =>
      ctx.progress({ kind: 'epicList', phase: 'bootstrap', done: stored, total: list.length }),
    )
    written += result.written
    ctx.progress({ kind: 'epicList', phase: 'bootstrap', done: list.length, total: list.length })
  }
  const listStored = listCp.bootstrapped
    ? Promise.resolve()
    : listCp.done > 0
      ? // The rest of a list the link cut; the whole list again should its pages not follow the part that came.
        listRest(ctx, listCp).then((rest) => (rest === undefined ? storeWhole() : void (written += rest)))
      : storeWhole()
  // The walk waits for it before its first write; should the list fail, the walk stops with it.
  listStored.catch(() => undefined)
  const walked = await walk(ctx, 'epics', { listStored, listNewest: async () => listNewest })
  await listStored
  const removed = await removePartialEpics(ctx.db, await readCheckpoint(ctx.db, 'epics'), notBrought(listIds, walked))
  return { written: written + walked.written, removed }
}

/** Epics of the v3 list (whole or part) handed to the window before they are stored (ctx.handOver). */
const handEpics = (ctx: SyncContext, list: readonly EpicSlimV3[]) =>
  // In the list's order: the window then merges them in one pass (a sort of 50,000 there is a long task).
  ctx.handOver?.({ kind: 'epic', rows: list.map((e) => epicFromListV3(e)).sort(newestOrder) })

/**
 * The epics that came of a v3 list the link cut on its way (the gateway keeps those that came whole), stored as the
 * list's first `done`, so that the run that resumes asks only for the rest. Its `since` bounds what the walk reads
 * again at its end: an epic that changed after the list was made is newer than any epic in it.
 */
async function keepListPart(ctx: SyncContext, listCp: KindCheckpoint, part: EpicSlimV3[] | undefined): Promise<void> {
  if (!part?.length) return
  handEpics(ctx, part)
  await writeEpicListPart(ctx.db, part, { ...listCp, since: newestOf(part), done: part.length, total: 0 })
  ctx.progress({ kind: 'epicList', phase: 'bootstrap', done: part.length, total: part.length })
}

/** Epics a page of the v3 list's paginated twin holds: its most. */
export const LIST_PAGE_SIZE = 250
/**
 * Epics asked for again before where a cut list stopped: each epic deleted meanwhile moves those after it one place
 * back, so that the first ones not stored would be on the page before.
 */
export const LIST_PAGE_OVERLAP = 50
/** Pages of the list's rest asked for at once: the walks' pages, the run's longest chain, go alongside. */
const LIST_PAGES_AT_ONCE = 3

interface ListPage {
  data: EpicSlimV3[]
  next: number | null
  total: number
}

/**
 * The rest of a v3 epic list the link cut: its paginated twin (same order, by page number), from the page holding
 * the first epic not stored, each page stored as it comes. The checkpoint's `done` follows the pages stored one after
 * another, so that a cut here too resumes from there. Answers the rows written; undefined, having stored nothing,
 * when the first page does not follow on from the part stored (the two lists' orders differ).
 */
async function listRest(ctx: SyncContext, listCp: KindCheckpoint): Promise<number | undefined> {
  const first = Math.floor(Math.max(0, listCp.done - LIST_PAGE_OVERLAP) / LIST_PAGE_SIZE) + 1
  const ask = (page: number) => call<ListPage>(ctx, 'epics.v3Page', { query: { page, page_size: LIST_PAGE_SIZE } })
  let cp = listCp
  let written = 0
  /** Pages that came and are not stored yet, by number: stored in their order. */
  const came = new Map<number, EpicSlimV3[]>()
  let next = first
  let storing = Promise.resolve()
  const store = () =>
    (storing = storing.then(async () => {
      for (let part = came.get(next); part; part = came.get(next)) {
        came.delete(next)
        handEpics(ctx, part)
        cp = { ...cp, done: Math.max(cp.done, (next - 1) * LIST_PAGE_SIZE + part.length) }
        written += await writeEpicListPart(ctx.db, part, cp)
        next++
      }
    }))
  const head = await ask(first)
  // The pages' order is the list's (docs/service.md): then the epics just before where the part stopped are
  // stored already, whatever was deleted meanwhile (the overlap's first half).
  const offset = (first - 1) * LIST_PAGE_SIZE
  const seam = head.data.slice(Math.max(0, listCp.done - LIST_PAGE_OVERLAP - offset), Math.max(0, listCp.done - LIST_PAGE_OVERLAP / 2 - offset))
  if ((await ctx.db.epics.bulkGet(seam.map((e) => e.id))).some((e) => e === undefined)) return undefined
  came.set(first, head.data)
  await store()
  const last = Math.max(first, Math.ceil(head.total / LIST_PAGE_SIZE))
  let asked = first
  await Promise.all(
    Array.from({ length: Math.min(LIST_PAGES_AT_ONCE, last - first) }, async () => {
      while (asked < last) {
        const page = ++asked
        came.set(page, (await ask(page)).data)
        await store()
      }
    }),
  )
  await storing
  const done = { ...cp, bootstrapped: true, syncedAt: ctx.clock(), done: head.total, total: head.total }
  await ctx.db.checkpoints.put(done)
  ctx.progress({ kind: 'epicList', phase: 'bootstrap', done: head.total, total: head.total })
  return written
}

/**
 * The rows a bootstrap's list may have left partial: of this run's list, those its walk's pages did not bring (else,
 * a list stored by a run before, undefined: all are looked at).
 */
const notBrought = (listIds: EntityId[] | undefined, walked: { brought?: ReadonlySet<EntityId> }): EntityId[] | undefined =>
  listIds && walked.brought ? listIds.filter((id) => !walked.brought!.has(id)) : undefined

/** The epic id sweep (the v3 list: ids, positions, progress): deletions found, positions and progress refreshed. */
async function sweepEpics(
  ctx: SyncContext,
  cp: KindCheckpoint,
  count: (r: { written: number; removed: number }) => void,
): Promise<ReadonlyMap<number, ListedEpic>> {
  const known = await knownIds(ctx.db.epics)
  const list = await call<EpicSlimV3[]>(ctx, 'epics.v3List', { fields: ['id', 'position', 'stats'] })
  const done = { ...cp, syncedAt: ctx.clock(), done: list.length, total: list.length }
  const result = await writeEpicList(ctx.db, list, done, known)
  count(result)
  ctx.progress({ kind: 'epicList', phase: 'incremental', done: list.length, total: list.length })
  return result.listed
}

/** The doc id sweep (the v3 list): docs deleted on the service removed. */
async function sweepDocs(ctx: SyncContext, cp: KindCheckpoint, count: (r: { removed: number }) => void): Promise<void> {
  const known = await knownIds(ctx.db.docs)
  const list = await call<DocSlimV3[]>(ctx, 'documents.v3List')
  count(await writeDocList(ctx.db, list, { ...cp, syncedAt: ctx.clock(), done: list.length, total: list.length }, known))
  ctx.progress({ kind: 'docList', phase: 'incremental', done: list.length, total: list.length })
}

/**
 * The docs' bootstrap: the v3 list of every doc (ids and titles: one request), stored first as partial rows, and
 * the walk, which brings each doc whole, at once; the walk does not wait for the list, whose rows go only where
 * no page came first. Docs the list stored that no page completed were deleted meanwhile. The list is not asked
 * again once stored; should it fail, the walk's pages are stored all the same, and the failure is the run's.
 */
async function bootstrapDocs(ctx: SyncContext, listCp: KindCheckpoint): Promise<{ written: number; removed: number }> {
  /** The docs the list stored in this run (partial until a page completes them). */
  let listIds: EntityId[] | undefined
  const listStored = listCp.bootstrapped
    ? Promise.resolve({ written: 0, removed: 0 })
    : (async () => {
        const known = await knownIds(ctx.db.docs)
        const list = await call<DocSlimV3[]>(ctx, 'documents.v3List')
        listIds = list.map((d) => d.id)
        ctx.handOver?.({ kind: 'doc', rows: list.map(docFromListV3) })
        const result = await writeDocList(
          ctx.db,
          list,
          { ...listCp, bootstrapped: true, syncedAt: ctx.clock(), done: list.length, total: list.length },
          known,
          true,
        )
        ctx.progress({ kind: 'docList', phase: 'bootstrap', done: list.length, total: list.length })
        return result
      })()
  listStored.catch(() => undefined)
  const walked = await walk(ctx, 'docs')
  const listed = await listStored
  const removed = await removePartialDocs(ctx.db, notBrought(listIds, walked))
  return { written: listed.written + walked.written, removed: listed.removed + removed }
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
  const items: unknown[] = source.paged
    ? await allPages(ctx, source.operation, source.query)
    : await call<unknown[]>(ctx, source.operation, { query: source.query })
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
