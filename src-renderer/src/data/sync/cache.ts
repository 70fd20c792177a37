// Writing server state into the cache. Rules every writer here keeps:
// - a row is never replaced by an older version of itself (updated_at), so a
//   slow sync answer cannot undo a refresh or an outbox write-back that landed first;
// - removing an entity removes what hangs off it (an epic's comments, health and
//   doc links; a doc's links; a file's downloaded content);
// - `overlay` and `outbox` are never touched: local, unconfirmed changes belong
//   to the outbox, which reconciles them with what the server says.
import type { Table } from 'dexie'
import type { OutpostDb } from '../db.ts'
import { noticeOf } from '../notices.ts'
import type { CachedComment, CachedDoc, CachedDocEpic, CachedEpic, CachedHealth, EntityId, StoryProgress } from '../types.ts'
import type { KindCheckpoint } from './checkpoints.ts'
import {
  commentFromSlim,
  docFromListV3,
  docFromV4,
  EPIC_POSITION_STEP,
  epicFromListV3,
  epicFromV4,
  healthFromSlim,
  mergeRow,
  storyProgressOf,
  withProgress,
  storyFromV3,
  type StoryV3Fields,
  type DocV4Fields,
  type EpicV4Fields,
} from '../convert.ts'
import type { Slim } from '../../../../src-shared/api/common.ts'
import type { DocSlimV3 } from '../../../../src-shared/api/v3/docs.ts'
import type { EpicSlimV3 } from '../../../../src-shared/api/v3/epics.ts'

/** How a page is written: a bootstrap rewrites rows of the same version; an incremental skips them (de-duplication). */
export type WriteMode = 'bootstrap' | 'incremental'

/**
 * Whether whole lists are converted and read in slices. Only a window needs
 * it: its main thread also runs the screens, and a task over 50 ms is one a
 * person feels. A sync worker (sync-worker/), and Node, have a thread of
 * their own, where slices would only add round trips to IndexedDB. Writes are
 * sliced in a worker too, in longer slices (below).
 */
const SLICED = typeof document !== 'undefined'

/**
 * Rows per IndexedDB read, and per conversion between two turns of the event
 * loop, when a whole list is read or converted in a window. Reading copies
 * rows (structured clone) on the main thread as each answer arrives: 10,000
 * epics in one request would hold the thread for a long task. In slices, each
 * slice's copy is a task of its own and the page stays responsive between
 * them; the transaction is still one (the next slice is asked for from the
 * previous one's answer, so the transaction never goes idle and commits).
 */
const SLICE = 500

/**
 * Writes are sliced by time rather than by count: placing a put copies its
 * row and works out its index keys on the main thread before the call
 * returns, and what that costs depends on the rows and the machine (500 epics,
 * with their nine indexes, took 14–30 ms here; 500 files 7 ms). Each slice is
 * sized from the last one's cost to take about this long.
 */
const PUT_SLICE_MS = 6
/**
 * A worker's write slices: its thread also takes the answers the walk's chains of pages wait for, and
 * the v3 list of every epic in one call (10,000 rows, a third of a second or more) held them all back.
 */
const WORKER_PUT_SLICE_MS = 25
const FIRST_PUT_SLICE = 100
const PUT_SLICE_LIMITS = { min: 10, max: 2_000 }

/** The size of the next write slice, given that the last one of `rows` took `ms` to place. */
export function nextPutSlice(rows: number, ms: number, sliceMs = PUT_SLICE_MS): number {
  const fitting = Math.round((rows * sliceMs) / Math.max(ms, 0.1))
  // Halfway there, so one slice slowed by a garbage collection does not shrink the next to nothing.
  const size = Math.round((rows + fitting) / 2)
  return Math.min(PUT_SLICE_LIMITS.max, Math.max(PUT_SLICE_LIMITS.min, size))
}

/** `rows` stored inside the caller's transaction, in slices sized by time (PUT_SLICE_MS in a window, WORKER_PUT_SLICE_MS elsewhere). */
async function putInSlices<T, Key, Insert>(table: Table<T, Key, Insert>, rows: readonly Insert[]): Promise<void> {
  const sliceMs = SLICED ? PUT_SLICE_MS : WORKER_PUT_SLICE_MS
  let size = FIRST_PUT_SLICE
  for (let i = 0; i < rows.length;) {
    const slice = rows.slice(i, i + size)
    const start = performance.now()
    const placed = table.bulkPut(slice)
    size = nextPutSlice(slice.length, performance.now() - start, sliceMs)
    i += slice.length
    await placed
  }
}

/**
 * Dexie's change events name the keys of a write of fewer than 50 rows, and say only "the table
 * changed" of a bigger one. A sync page is written in writes of NAMED_ROWS, so that the window's
 * epic list and search index read again the rows it changed, not the whole table (data/watch.ts,
 * search/changes.ts). The writes go out together, in the caller's transaction.
 */
const NAMED_ROWS = 49

async function putNamed<T, Key, Insert>(table: Table<T, Key, Insert>, rows: readonly Insert[]): Promise<void> {
  const writes: Promise<unknown>[] = []
  for (let i = 0; i < rows.length; i += NAMED_ROWS) writes.push(table.bulkPut(rows.slice(i, i + NAMED_ROWS)))
  await Promise.all(writes)
}

/**
 * The rows of these epics in a table indexed by `epic_id`: one lookup per epic, all asked at once. Not
 * `anyOf`, which walks one cursor over the index from the lowest id to the highest, a round trip to the
 * database for each step over another epic's rows: a page's ids are scattered, so in a bootstrap that
 * was most of the index, and most of each page's write (40 of its 60 ms in a window).
 */
async function rowsOfEpics<T, Insert>(table: Table<T, EntityId, Insert>, ids: readonly EntityId[]): Promise<T[]> {
  return (await Promise.all(ids.map((id) => table.where('epic_id').equals(id).toArray()))).flat()
}

/** Every row of a table, inside the caller's transaction; in a window in slices by primary key (see SLICE). */
async function readInSlices<T extends { id: EntityId }, Insert>(table: Table<T, EntityId, Insert>): Promise<T[]> {
  if (!SLICED) return table.toArray()
  const rows: T[] = []
  for (;;) {
    const last = rows.at(-1)?.id
    const from = last === undefined ? table.toCollection() : table.where(':id').above(last)
    const slice = await from.limit(SLICE).toArray()
    rows.push(...slice)
    if (slice.length < SLICE) return rows
  }
}

const epicTables = (db: OutpostDb) => [db.epics, db.epicComments, db.epicHealth, db.docEpics, db.stories, db.storyLists]

/**
 * Should `incoming` (a whole row) replace `cached`? Never with an older version; with the same one only in a
 * bootstrap, or over a row that is not whole (an epic stored from the v3 list).
 */
function replaces(cached: { updated_at: string; partial?: true } | undefined, incomingUpdatedAt: string, mode: WriteMode): boolean {
  // A row without a version is not one sync wrote (corrupt, or another program's): the service's copy goes over it.
  if (!cached || typeof cached.updated_at !== 'string') return true
  if (incomingUpdatedAt > cached.updated_at) return true
  return (mode === 'bootstrap' || cached.partial === true) && incomingUpdatedAt === cached.updated_at
}

/** The largest cached epic position (epics carry no index on it: one scan, only when an unknown epic needs one). */
async function lastEpicPosition(db: OutpostDb): Promise<number> {
  let last = 0
  await db.epics.each((e) => {
    if (e.position > last) last = e.position
  })
  return last
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>()
  for (const item of items) {
    const k = key(item)
    const list = out.get(k)
    if (list) list.push(item)
    else out.set(k, [item])
  }
  return out
}

/**
 * An epic's slims of one kind (its comments or health) over the rows the cache
 * has of them: each listed one is converted into `rows`, and the ids of cached
 * ones the list no longer holds go to `gone`.
 */
function slimsOver<R extends { id: EntityId }>(
  epicId: EntityId,
  slims: Slim[] | undefined,
  cached: R[] | undefined,
  convert: (epicId: EntityId, slim: Slim, cached?: R) => R,
  rows: R[],
  gone: EntityId[],
): void {
  const have = new Map((cached ?? []).map((r) => [r.id, r]))
  const listed = new Set<EntityId>()
  for (const s of slims ?? []) {
    listed.add(s.id)
    rows.push(convert(epicId, s, have.get(s.id)))
  }
  for (const id of have.keys()) if (!listed.has(id)) gone.push(id)
}

/** What the v3 epic list says of an epic that v4 does not: its position, and its progress when the list has its stats. */
export interface ListedEpic {
  position: number
  progress?: StoryProgress
}

/** What a bootstrap's epic page carries of each epic (EPIC_V4_PAGE_FIELDS): the rest is in the row the v3 list stored. */
export type EpicPageItem = Pick<EpicV4Fields, 'id' | 'updated_at' | 'description' | 'comments' | 'healths'>

/**
 * One page of v4 epics with the comment and health slims they carry, and the
 * walk's checkpoint, in one transaction. An epic's `comments` and `healths`
 * pages are complete, so rows of that epic they no longer list are gone.
 * Position and progress come from `listed` (the v3 list of this run) or the
 * cached row. Returns how many epics were written.
 *
 * `merge`: the page's items carry only what the v3 list lacks (a bootstrap's pages, EpicPageItem) and complete
 * the rows that list stored. An item whose version is not the row's (the epic changed between the list and
 * its page) is left out: the walk's last page, asked for once every other page came, brings it whole.
 *
 * `notices`: each epic the cache held whole at another version is noted (EpicNotice) in the same
 * transaction, for the notifications: a sync after the bootstrap.
 */
export async function writeEpicPage(
  db: OutpostDb,
  page: EpicV4Fields[] | EpicPageItem[],
  mode: WriteMode,
  checkpoint: KindCheckpoint,
  listed?: ReadonlyMap<number, ListedEpic>,
  merge = false,
  notices = false,
): Promise<number> {
  return db.transaction('rw', [...epicTables(db), db.checkpoints, db.epicNotices], async () => {
    const cached = await db.epics.bulkGet(page.map((e) => e.id))
    const fresh = page.filter((e, i) => (merge ? cached[i]?.updated_at === e.updated_at : replaces(cached[i], e.updated_at, mode)))
    if (fresh.length > 0) {
      const cachedById = new Map(cached.filter((c): c is CachedEpic => !!c).map((c) => [c.id, c]))
      // The comments and health held of the fresh epics the cache has whole. An epic's rows are written and
      // removed with it (a page, an opened epic, the deletion of the epic), so one not cached has none, nor
      // one the v3 list stored (partial) that no page completed yet; the exception, a write-back of the
      // user's own comment or health after the cache was lost, is on the service and so in the page too
      // (deleted there since, it stays until the epic is opened). In a first bootstrap no epic is held
      // whole: 200 lookups a page, most of its write, are not made.
      const held = fresh.filter((e) => cachedById.has(e.id) && !cachedById.get(e.id)!.partial).map((e) => e.id)
      const [cachedComments, cachedHealths] =
        held.length === 0 ? [[], []] : await Promise.all([rowsOfEpics(db.epicComments, held), rowsOfEpics(db.epicHealth, held)])
      const comments = groupBy(cachedComments, (c) => c.epic_id)
      const healths = groupBy(cachedHealths, (h) => h.epic_id)
      let last: number | undefined
      const epicRows: CachedEpic[] = []
      const commentRows: CachedComment[] = []
      const healthRows: CachedHealth[] = []
      const goneComments: EntityId[] = []
      const goneHealth: EntityId[] = []
      for (const e of fresh) {
        const held = cachedById.get(e.id)
        if (merge) {
          epicRows.push(mergeRow(held!, { description: e.description ?? '' }))
        } else {
          const listing = listed?.get(e.id)
          let position = listing?.position ?? held?.position
          if (position === undefined) {
            last = (last ?? (await lastEpicPosition(db))) + EPIC_POSITION_STEP
            position = last
          }
          epicRows.push(epicFromV4(e as EpicV4Fields, position, listing?.progress ?? held?.progress))
        }
        slimsOver(e.id, e.comments?.entities, comments.get(e.id), commentFromSlim, commentRows, goneComments)
        slimsOver(e.id, e.healths?.entities, healths.get(e.id), healthFromSlim, healthRows, goneHealth)
      }
      await putNamed(db.epics, epicRows)
      if (notices) {
        const at = Date.now()
        const noted = epicRows.flatMap((after) => noticeOf(cachedById.get(after.id), after, at) ?? [])
        if (noted.length > 0) await db.epicNotices.bulkAdd(noted)
      }
      if (goneComments.length > 0) await db.epicComments.bulkDelete(goneComments)
      if (goneHealth.length > 0) await db.epicHealth.bulkDelete(goneHealth)
      await putNamed(db.epicComments, commentRows)
      await putNamed(db.epicHealth, healthRows)
    }
    await db.checkpoints.put(checkpoint)
    return fresh.length
  })
}

/**
 * The rows of `table` still partial: among `among` when the caller knows the only ones that can be (reading every
 * row is a scan of the whole table, in the last moments of a bootstrap), else all of them.
 */
async function partialIds<T extends { id: EntityId; partial?: true }, I>(table: Table<T, EntityId, I>, among?: EntityId[]): Promise<EntityId[]> {
  return among
    ? (await table.bulkGet(among)).filter((row) => row?.partial === true).map((row) => row!.id)
    : ((await table.filter((row) => row.partial === true).primaryKeys()) as EntityId[])
}

/**
 * The epics the v3 list stored that no page completed, once a bootstrap's walk has met and its last page
 * came: each was in the list and in neither end of the walk nor among what changed since, so it was
 * deleted on the service meanwhile. Removed, with the checkpoint, in one transaction; returns how many.
 * `among`: the only epics that can be partial (the list's that no page of this run brought).
 */
export async function removePartialEpics(db: OutpostDb, checkpoint: KindCheckpoint, among?: EntityId[]): Promise<number> {
  return db.transaction('rw', [...epicTables(db), db.checkpoints], async () => {
    const gone = await partialIds(db.epics, among)
    await removeEpics(db, gone)
    await db.checkpoints.put(checkpoint)
    return gone.length
  })
}

/** One page of v4 docs (both contents) and the walk's checkpoint, in one transaction. */
export async function writeDocPage(db: OutpostDb, page: DocV4Fields[], mode: WriteMode, checkpoint: KindCheckpoint): Promise<number> {
  return db.transaction('rw', [db.docs, db.checkpoints], async () => {
    const cached = await db.docs.bulkGet(page.map((d) => d.id))
    const rows: CachedDoc[] = []
    page.forEach((d, i) => {
      if (replaces(cached[i], d.updated_at, mode)) rows.push(docFromV4(d, cached[i]))
    })
    await putNamed(db.docs, rows)
    await db.checkpoints.put(checkpoint)
    return rows.length
  })
}

export interface EpicListResult {
  /** Each listed epic's position and progress (the v4 pages that follow have neither). */
  listed: Map<number, ListedEpic>
  written: number
  removed: number
}

/**
 * The ids a table holds, read just before its whole list is requested. Only
 * these can be found deleted by that list: a row stored while the request was
 * on its way (an outbox write-back of a create) is newer than the list, and
 * must not be taken for one the service dropped.
 */
export async function knownIds(table: Pick<Table, 'toCollection'>): Promise<ReadonlySet<EntityId>> {
  return new Set((await table.toCollection().primaryKeys()) as EntityId[])
}

/** Known before the list was asked for, not in it, still cached, and a server id (not a local one). */
const droppedFrom = (cachedIds: EntityId[], listed: ReadonlySet<EntityId>, known: ReadonlySet<EntityId>) =>
  cachedIds.filter((id) => known.has(id) && !listed.has(id) && !isLocalId(id))

/**
 * The v3 list of every epic (archived too), which is also the epic id sweep:
 * - cached epics it does not list were deleted on the service: removed;
 * - positions and progress (from `stats`, when the list carries them) are refreshed, in the rows where
 *   they changed (the service renumbers neighbours, and counts stories, without touching updated_at);
 * - epics not cached yet are left to the v4 walk, which brings them whole (with `listed`). A bootstrap's list,
 *   which carries the cached fields, stores them (storeEpicList).
 */
export async function writeEpicList(
  db: OutpostDb,
  list: (Pick<EpicSlimV3, 'id' | 'position' | 'stats'> & Partial<EpicSlimV3>)[],
  checkpoint: KindCheckpoint,
  known: ReadonlySet<EntityId>,
): Promise<EpicListResult> {
  const listed = new Map<number, ListedEpic>(list.map((e) => [e.id, { position: e.position, ...withProgress(storyProgressOf(e)) }]))
  return db.transaction('rw', [...epicTables(db), db.checkpoints], async () => {
    const cached = await readInSlices(db.epics)
    const held = new Map(cached.map((e) => [e.id, e]))
    const changed = list.flatMap((e) => {
      const row = held.get(e.id)
      const moved = row && relisted(row, e)
      return moved ? [moved] : []
    })
    await putInSlices(db.epics, changed)
    const gone = droppedFrom(
      cached.map((e) => e.id),
      new Set(listed.keys()),
      known,
    )
    await removeEpics(db, gone)
    await db.checkpoints.put(checkpoint)
    return { listed, written: changed.length, removed: gone.length }
  })
}

/** Epics of a bootstrap's v3 list stored in one transaction (storeEpicList). */
export const LIST_WRITE_SLICE = 1_000

/**
 * A bootstrap's v3 list of every epic, stored as writeEpicList stores it, LIST_WRITE_SLICE epics a transaction in
 * the list's order: each slice's checkpoint says how many are stored, as a cut list's part does, so that a run that
 * stops between two goes on with the rest (sync.ts, listRest). Then the epics it no longer lists are removed, with
 * `checkpoint`. A write of the user's waits for a slice, not for the whole list: at 50,000 epics, one transaction
 * held the epics for about 12 s. `stored` is told how many are stored after each slice but the last.
 */
export async function storeEpicList(
  db: OutpostDb,
  list: EpicSlimV3[],
  base: KindCheckpoint,
  checkpoint: KindCheckpoint,
  known: ReadonlySet<EntityId>,
  stored?: (done: number) => void,
): Promise<{ written: number; removed: number }> {
  let written = 0
  let since: string | null = null
  for (let at = 0; at < list.length; at += LIST_WRITE_SLICE) {
    const part = list.slice(at, at + LIST_WRITE_SLICE)
    since = newestOf(part, since)
    written += await writeEpicListPart(db, part, { ...base, since, done: at + part.length, total: 0 })
    if (at + part.length < list.length) stored?.(at + part.length)
  }
  const removed = await db.transaction('rw', [...epicTables(db), db.checkpoints], async () => {
    const cachedIds = (await db.epics.toCollection().primaryKeys()) as EntityId[]
    const gone = droppedFrom(cachedIds, new Set(list.map((e) => e.id)), known)
    await removeEpics(db, gone)
    await db.checkpoints.put(checkpoint)
    return gone.length
  })
  return { written, removed }
}

/**
 * Part of a bootstrap's v3 list (the epics that came of one cut on its way, a page of its paginated twin), stored
 * as writeEpicList stores the whole list, for these epics alone: a part does not tell which epics are gone.
 */
export async function writeEpicListPart(db: OutpostDb, part: EpicSlimV3[], checkpoint: KindCheckpoint): Promise<number> {
  return db.transaction('rw', [...epicTables(db), db.checkpoints], async () => {
    const held = await db.epics.bulkGet(part.map((e) => e.id))
    const written = await storeListed(db, part, new Map(held.filter((e): e is CachedEpic => !!e).map((e) => [e.id, e])))
    await db.checkpoints.put(checkpoint)
    return written
  })
}

/**
 * What a part of the v3 list says of the cached epics `held`, written (inside the caller's transaction): the epics
 * not held, or held at an older version than the list's, stored from the list; the positions and progress of the
 * others. Answers how many rows were written.
 */
async function storeListed(db: OutpostDb, part: EpicSlimV3[], held: ReadonlyMap<EntityId, CachedEpic>): Promise<number> {
  const changed: CachedEpic[] = []
  /** Rows the list's copy goes over (older, or not one sync wrote): what hung off them comes again with their page. */
  const redone: EntityId[] = []
  for (const e of part) {
    const row = held.get(e.id)
    if (!row || (replaces(row, e.updated_at, 'incremental') && row.updated_at !== e.updated_at)) {
      if (row) redone.push(e.id)
      changed.push(epicFromListV3(e, typeof row?.description === 'string' ? row.description : ''))
      continue
    }
    const moved = relisted(row, e)
    if (moved) changed.push(moved)
  }
  if (redone.length > 0) {
    await db.epicComments.where('epic_id').anyOf(redone).delete()
    await db.epicHealth.where('epic_id').anyOf(redone).delete()
  }
  await putInSlices(db.epics, changed)
  return changed.length
}

/** A cached epic with the position and progress its list entry gives, or undefined when the row has them already. */
function relisted(row: CachedEpic, e: Pick<EpicSlimV3, 'position' | 'stats'>): CachedEpic | undefined {
  const progress = storyProgressOf(e) ?? row.progress
  return e.position !== row.position || !sameProgress(row.progress, progress) ? { ...row, position: e.position, ...withProgress(progress) } : undefined
}

/** The newest updated_at of a list, or `from` when it is newer (null for none). */
export const newestOf = (list: readonly { updated_at: string }[], from: string | null = null) =>
  list.reduce<string | null>((newest, e) => (newest === null || e.updated_at > newest ? e.updated_at : newest), from)

const sameProgress = (a: StoryProgress | undefined, b: StoryProgress | undefined) =>
  a === b || (a !== undefined && b !== undefined && (Object.keys(b) as (keyof StoryProgress)[]).every((k) => a[k] === b[k]))

/**
 * An epic's stories as its story list gives them, in place of what the cache held, with when they
 * were fetched and what the epic said then (`epic`: its updated_at and stats, as cached now).
 */
export async function writeEpicStories(
  db: OutpostDb,
  epicId: EntityId,
  stories: StoryV3Fields[],
  fetchedAt: number,
  epic: { updated_at?: string; stats?: EpicSlimV3['stats'] },
): Promise<void> {
  await db.transaction('rw', [db.epics, db.stories, db.storyLists], async () => {
    // Deleted meanwhile (a sweep, or a 404 elsewhere): nothing to hang the stories on.
    const cached = await db.epics.get(epicId)
    if (!cached) return
    await db.stories.where('epic_id').equals(epicId).delete()
    if (stories.length > 0) await db.stories.bulkPut(stories.map((s) => storyFromV3(epicId, s)))
    const progress = storyProgressOf(epic) ?? cached.progress
    if (progress && !sameProgress(cached.progress, progress)) await db.epics.put({ ...cached, progress })
    await db.storyLists.put({
      epic_id: epicId,
      fetchedAt,
      epicUpdatedAt: epic.updated_at && epic.updated_at > cached.updated_at ? epic.updated_at : cached.updated_at,
      lastStoryUpdate: progress?.last_story_update ?? null,
    })
  })
}

/**
 * The v3 list of every doc (archived too), which is also the doc id sweep: cached docs it does not list are
 * removed. A bootstrap's list (`store`) also stores the docs not cached yet, by their title (`partial` until a
 * v4 page completes them: the doc list and its search show every doc after one request). Returns how many
 * were removed and stored.
 */
export async function writeDocList(
  db: OutpostDb,
  list: readonly DocSlimV3[],
  checkpoint: KindCheckpoint,
  known: ReadonlySet<EntityId>,
  store = false,
): Promise<{ removed: number; written: number }> {
  return db.transaction('rw', [db.docs, db.docEpics, db.checkpoints], async () => {
    const cachedIds = (await db.docs.toCollection().primaryKeys()) as EntityId[]
    const gone = droppedFrom(cachedIds, new Set(list.map((d) => d.id)), known)
    await removeDocs(db, gone)
    // Only over nothing: a page (or a write-back) that came first stored the doc whole.
    const cached = new Set(cachedIds)
    const fresh = store ? list.filter((d) => !cached.has(d.id)).map(docFromListV3) : []
    await putInSlices(db.docs, fresh)
    await db.checkpoints.put(checkpoint)
    return { removed: gone.length, written: fresh.length }
  })
}

/**
 * The docs the v3 list stored that no page completed, once a bootstrap's doc walk has met and its last page
 * came: deleted on the service meanwhile (as removePartialEpics). `among`: the only docs that can be partial
 * (the list's that no page of this run brought); without it, every doc is looked at. Returns how many.
 */
export async function removePartialDocs(db: OutpostDb, among?: EntityId[]): Promise<number> {
  return db.transaction('rw', [db.docs, db.docEpics], async () => {
    const gone = await partialIds(db.docs, among)
    await removeDocs(db, gone)
    return gone.length
  })
}

/**
 * A whole list (reference data, files): what it holds is stored (never over
 * a newer version of a row), what the cache held and it no longer lists is
 * removed, with the checkpoint, in one transaction. Returns the removed ids (a
 * removed file's content is discarded by the caller).
 */
export async function replaceAll<T extends { id: EntityId }>(
  db: OutpostDb,
  table: Table<T, EntityId>,
  rows: T[],
  checkpoint: KindCheckpoint,
  known: ReadonlySet<EntityId>,
  also: Table[] = [],
  onRemoved?: (ids: EntityId[]) => Promise<void>,
): Promise<{ written: number; removed: EntityId[] }> {
  return db.transaction('rw', [table, db.checkpoints, ...also], async () => {
    const removed = droppedFrom((await table.toCollection().primaryKeys()) as EntityId[], new Set(rows.map((r) => r.id)), known)
    if (removed.length > 0) await table.bulkDelete(removed)
    const cached = await table.bulkGet(rows.map((r) => r.id))
    const updatedAt = (row: unknown) => (row as { updated_at?: unknown } | undefined)?.updated_at
    const fresh = rows.filter((r, i) => {
      const mine = updatedAt(cached[i])
      const theirs = updatedAt(r)
      return typeof mine !== 'string' || typeof theirs !== 'string' || theirs >= mine
    })
    await putInSlices(table, fresh)
    await onRemoved?.(removed)
    await db.checkpoints.put(checkpoint)
    return { written: fresh.length, removed }
  })
}

/** Ids of entities created offline and not yet confirmed (types.ts); the server cannot list them. */
const isLocalId = (id: EntityId): boolean => typeof id === 'string' && id.startsWith('local:')

// ---- removal (deleted on the service) ----

export async function removeEpics(db: OutpostDb, ids: EntityId[]): Promise<void> {
  if (ids.length === 0) return
  await db.transaction('rw', epicTables(db), async () => {
    await db.epics.bulkDelete(ids)
    await db.epicComments.where('epic_id').anyOf(ids).delete()
    await db.epicHealth.where('epic_id').anyOf(ids).delete()
    await db.docEpics.where('epic_id').anyOf(ids).delete()
    await db.stories.where('epic_id').anyOf(ids).delete()
    await db.storyLists.bulkDelete(ids)
  })
}

export async function removeDocs(db: OutpostDb, ids: EntityId[]): Promise<void> {
  if (ids.length === 0) return
  await db.transaction('rw', [db.docs, db.docEpics], async () => {
    await db.docs.bulkDelete(ids)
    await db.docEpics.where('doc_id').anyOf(ids).delete()
  })
}

/** Removes files and their content rows; returns the paths of content to discard once the transaction is done. */
export async function removeFiles(db: OutpostDb, ids: EntityId[]): Promise<string[]> {
  if (ids.length === 0) return []
  return db.transaction('rw', [db.files, db.fileContents], async () => {
    const contents = (await db.fileContents.bulkGet(ids)).filter((c) => c !== undefined)
    await db.files.bulkDelete(ids)
    await db.fileContents.bulkDelete(ids)
    return contents.map((c) => c.path)
  })
}

/** Replaces the doc links of one epic (or of one doc) with what the service listed. */
export async function replaceDocLinks(db: OutpostDb, side: 'epic_id' | 'doc_id', id: EntityId, links: CachedDocEpic[]): Promise<void> {
  await db.transaction('rw', [db.docEpics], async () => {
    await db.docEpics.where(side).equals(id).delete()
    if (links.length > 0) await db.docEpics.bulkPut(links)
  })
}
