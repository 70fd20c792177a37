// Walks of v4 pages ordered by updated_at, for epics and docs.
//
// A bootstrap walks the whole list from both ends at once: the newest first
// (order_dir=desc) and the oldest first (asc), each end a chain of cursors, so
// the walk takes half the round trips one after another that one end would.
// The ends meet by count: each first page snapshots the ordered list on the
// service, and a page covers `limit` places of its end's snapshot, so once the
// places the two ends covered add up to the list's total, every item of it was
// in a page of one or the other. An end asks for its next page only while the
// places covered so far, and the other end's page on its way, fall short of the
// total: when nothing changes during the walk, no item comes twice (but for
// the remainder of a list whose size is not a multiple of the page's). Both
// ends start at once, before either knows the list's size: a list of one page
// comes twice, which costs a page and saves the round trip of waiting. Pages
// are stored, with where each end stands, as they come (AHEAD of the writes at
// most), so a walk stopped anywhere resumes from both ends; an end whose
// cursor the service has forgotten starts again.
//
// What changed while the walk went on: an item changed between the two ends'
// snapshots may have moved past the oldest end's part (it is newest in that
// snapshot), and pages render items as they are now. So the walk ends with
// the pages newer than its start, read down from the newest once both ends are
// done (the last page, the one round trip the walk adds): everything that
// changed since it began comes whole, at its latest version.
//
// An incremental walk reads down from the newest to the checkpoint (`since`:
// the newest updated_at when the last finished walk began), minus the
// overlap: what it meets again at a version already cached is not rewritten.
// Pages come newest first, so a page whose last item is below that floor is
// the last one needed.
//
// A bootstrap's epic pages ask only for what the v3 list of every epic, which
// the bootstrap stores first, lacks (EPIC_V4_PAGE_FIELDS): they complete its
// rows, and wait for it (`listStored`). An epic whose page and row are of
// different versions changed meanwhile, and comes whole with the last page.
// The newest end's first page is asked for whole and stored at once: the
// epic list's first screen, before the list of every epic has come.
import type { OutpostDb } from '../db.ts'
import type { EntityId } from '../types.ts'
import { writeDocPage, writeEpicPage, type ListedEpic, type WriteMode } from './cache.ts'
import { freshEnds, readCheckpoint, type KindCheckpoint, type WalkEnd, type WalkEnds, type WalkKind } from './checkpoints.ts'
import { call, cursorOf, isExpiredCursor, type ListAnswer, type SyncContext } from './context.ts'
import { DOC_V4_PAGE_FIELDS, EPIC_V4_FIELDS, EPIC_V4_PAGE_FIELDS } from '../convert.ts'
import type { OperationName, OperationQuery } from '../../../../src-shared/api/operations.ts'

type Item = { id: EntityId; updated_at: string }
type Page = ListAnswer<Item>

interface WalkSource {
  operation: OperationName
  /** What a bootstrap's pages ask for, and what pages that bring an item whole ask for. */
  bootstrapFields: readonly string[]
  fields: readonly string[]
  /** A bootstrap's pages complete rows stored before (the epics' v3 list). */
  merges: boolean
  /** `notices`: the items are changes after the bootstrap, noted for the notifications (epics). */
  write: (
    db: OutpostDb,
    items: Item[],
    mode: WriteMode,
    checkpoint: KindCheckpoint,
    listed: ReadonlyMap<number, ListedEpic> | undefined,
    merge: boolean,
    notices: boolean,
  ) => Promise<number>
}

const SOURCES: Record<WalkKind, WalkSource> = {
  epics: {
    operation: 'epics.list',
    bootstrapFields: EPIC_V4_PAGE_FIELDS,
    fields: EPIC_V4_FIELDS,
    merges: true,
    write: (db, items, mode, cp, listed, merge, notices) => writeEpicPage(db, items as never, mode, cp, listed, merge, notices),
  },
  docs: {
    operation: 'documents.list',
    bootstrapFields: DOC_V4_PAGE_FIELDS,
    fields: DOC_V4_PAGE_FIELDS,
    merges: false,
    write: (db, items, mode, cp) => writeDocPage(db, items as never, mode, cp),
  },
}

export interface WalkResult {
  phase: WriteMode
  /** Requests made. */
  pages: number
  written: number
  /** Items this run's pages brought (a bootstrap's, which complete the rows its list stored). */
  brought?: ReadonlySet<EntityId>
}

/**
 * Pages asked for ahead of the cache's writes, at most. Each write takes the pages that have come (WRITE_PAGES at
 * most), in one transaction with the checkpoint of the last: a transaction's first request waits its turn in
 * IndexedDB's process (10–13 ms of an epic page's 27 ms in a bootstrap), and pages written together pay
 * that wait once.
 */
export const AHEAD = 4

/** Pages of a bootstrap walk that may wait for the epics' v3 list to be stored before theirs are written. */
const WAITING_PAGES = 64

/**
 * Pages written in one transaction at most. A user's write made meanwhile waits for it: with the pages that
 * waited for the epics' v3 list (50,000 epics: 64 pages) written in one, a rename waited 5 s.
 */
export const WRITE_PAGES = AHEAD

/** Items a page asks for at the end of a bootstrap walk (what changed while it went on: usually none). */
export const LAST_PAGE_SIZE = 25

const later = (a: string | null, b: string | null | undefined): string | null => (!a ? (b ?? null) : !b ? a : b > a ? b : a)
const earlier = (a: string | null, b: string | null | undefined): string | null => (!a ? (b ?? null) : !b ? a : b < a ? b : a)

export interface WalkOptions {
  /** The v3 list of this run (positions and progress), when it ran. */
  listed?: ReadonlyMap<number, ListedEpic>
  /** A bootstrap's pages are written once this has resolved (the epics' v3 list stored); its failure ends the walk. */
  listStored?: Promise<unknown>
  /** The newest updated_at the bootstrap's v3 list held: the last page reads down to it too. */
  listNewest?: () => Promise<string | null>
}

/** One walk of a kind: the bootstrap (both ends, then what changed meanwhile) or an incremental walk. */
export async function walk(ctx: SyncContext, kind: WalkKind, options: WalkOptions = {}): Promise<WalkResult> {
  const cp = await readCheckpoint(ctx.db, kind)
  if (cp.bootstrapped) {
    // Read down to the checkpoint, less the overlap.
    const floor = cp.since ? Date.parse(cp.since) - ctx.options.overlapMs : null
    return walkDown(ctx, kind, { floor, mode: 'incremental', listed: options.listed, limit: ctx.options.pageSize })
  }
  try {
    const both = await walkBothEnds(ctx, kind, options)
    // What changed since the walk began, whole: down to its start (and the list's), less the overlap.
    ctx.ahead?.set(kind, 1)
    const start = earlier((await readCheckpoint(ctx.db, kind)).walkSince, await options.listNewest?.())
    const floor = start ? Date.parse(start) - ctx.options.overlapMs : null
    const last = await walkDown(ctx, kind, { floor, mode: 'incremental', listed: options.listed, limit: LAST_PAGE_SIZE, ending: true, brought: both.brought })
    return { phase: 'bootstrap', pages: both.pages + last.pages, written: both.written + last.written, brought: both.brought }
  } finally {
    ctx.ahead?.delete(kind)
  }
}

interface DownOptions {
  /** Items older than this (ms) are not wanted; null: all of them. */
  floor: number | null
  mode: WriteMode
  listed?: ReadonlyMap<number, ListedEpic>
  limit: number
  /** The last pages of a bootstrap: its checkpoint then says it is done. */
  ending?: boolean
  /** Where the items of its pages are noted. */
  brought?: Set<EntityId>
}

/** Pages from the newest down to `floor`, written as they come with the checkpoint (see the file's head). */
async function walkDown(ctx: SyncContext, kind: WalkKind, o: DownOptions): Promise<WalkResult> {
  const source = SOURCES[kind]
  const fields = source.fields.join(',')
  let cp = await readCheckpoint(ctx.db, kind)
  const result: WalkResult = { phase: o.mode, pages: 0, written: 0 }
  const reachesFloor = (page: Page) => {
    const oldest = page.entities.at(-1)?.updated_at
    return o.floor !== null && oldest !== undefined && Date.parse(oldest) < o.floor
  }
  const pages = chainOfPages(
    ctx,
    source.operation,
    o.ending ? null : cp.cursor,
    (from) => {
      // The last page of a bootstrap is asked for: none of this walk's is still to come.
      if (o.ending) ctx.ahead?.set(kind, 0)
      return from ? { cursor: from, fields } : { limit: o.limit, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived', fields }
    },
    reachesFloor,
  )
  let done = cp.cursor && !o.ending ? cp.done : 0
  const bothEnds = cp.total
  try {
    for (;;) {
      const batch = await pages.take()
      const items: Item[] = []
      let last = false
      let total = 0
      for (const { page, from, restarted } of batch) {
        result.pages++
        if (restarted) done = 0
        const finished = !page.next_page_url || reachesFloor(page)
        const kept = o.floor === null ? page.entities : page.entities.filter((e) => Date.parse(e.updated_at) >= o.floor!)
        items.push(...kept)
        for (const item of kept) o.brought?.add(item.id)
        done += kept.length
        // An incremental walk cannot know how many changed: it says one more page may come until it ends.
        total = finished ? done : done + o.limit
        if (o.ending) {
          cp = finished
            ? { ...cp, bootstrapped: true, cursor: null, done: 0, total: 0, since: cp.walkSince, walkSince: null, ends: null, syncedAt: ctx.clock() }
            : cp
        } else {
          const walkSince = from ? cp.walkSince : later(cp.since, page.entities[0]?.updated_at)
          cp = finished
            ? { ...cp, cursor: null, done: 0, total: 0, since: walkSince, walkSince: null, syncedAt: ctx.clock() }
            : { ...cp, cursor: cursorOf(page.next_page_url), done, total, walkSince }
        }
        if (finished) last = true
      }
      // What came is stored, even when the walk was stopped meanwhile: its requests need not be made again.
      // A bootstrap's last pages bring what changed while it ran: part of the first download, not news.
      result.written += await source.write(ctx.db, items, o.mode, cp, o.listed, false, o.mode === 'incremental' && !o.ending)
      // The last pages of a bootstrap: the walk is done once they are, at the total of both ends.
      if (!o.ending) ctx.progress({ kind, phase: o.mode, done, total })
      else if (last) ctx.progress({ kind, phase: 'bootstrap', done: bothEnds, total: bothEnds })
      if (last) return result
    }
  } finally {
    pages.stop()
  }
}

/** A page as it came, the cursor it was asked with, and whether its chain started over with it. */
interface Fetched {
  page: Page
  from: string | null
  restarted: boolean
}

/**
 * One chain of cursors asked for ahead of the writes: each page is asked for once the one before came (it
 * needs its cursor), at most AHEAD waiting to be written, until a page with no next one or that `isLast`.
 * `take` gives every page that came since.
 */
function chainOfPages(
  ctx: SyncContext,
  operation: OperationName,
  start: string | null,
  query: (from: string | null) => OperationQuery,
  isLast: (page: Page) => boolean,
) {
  const came: Fetched[] = []
  let fetching = true
  let failure: { error: unknown } | undefined
  let stopped = false
  let wake: (() => void) | undefined
  let room: (() => void) | undefined
  const run = async () => {
    let from = start
    let restarted = false
    try {
      while (!stopped) {
        if (came.length >= AHEAD) {
          await new Promise<void>((resolve) => (room = resolve))
          continue
        }
        let page: Page
        try {
          page = await call<Page>(ctx, operation, { query: query(from) })
        } catch (e) {
          if (from && isExpiredCursor(e)) {
            // Start over, skipping nothing: pages already stored are read again (and not rewritten when unchanged).
            from = null
            restarted = true
            continue
          }
          throw e
        }
        came.push({ page, from, restarted })
        restarted = false
        wake?.()
        if (!page.next_page_url || isLast(page)) return
        from = cursorOf(page.next_page_url)
      }
    } catch (error) {
      failure = { error }
    } finally {
      fetching = false
      wake?.()
    }
  }
  void run()
  return {
    async take(): Promise<Fetched[]> {
      while (came.length === 0 && fetching) await new Promise<void>((resolve) => (wake = resolve))
      if (came.length === 0) throw failure?.error ?? new Error('the walk ended without its last page')
      const batch = came.splice(0)
      room?.()
      return batch
    },
    stop() {
      stopped = true
      room?.()
    },
  }
}

type End = 'desc' | 'asc'
const other = (end: End): End => (end === 'desc' ? 'asc' : 'desc')

/** A page of one end as it came, and where that end stood after it (what the checkpoint says once it is stored). */
interface EndPage {
  end: End
  page: Page
  state: WalkEnd
  total: number | null
  restarted: boolean
  /** Its items are whole (the newest end's first page): stored at once, without waiting for the list. */
  whole: boolean
}

/** Both ends of a bootstrap walk, until they meet (see the file's head). */
async function walkBothEnds(ctx: SyncContext, kind: WalkKind, options: WalkOptions): Promise<{ pages: number; written: number; brought: Set<EntityId> }> {
  const source = SOURCES[kind]
  const fields = source.bootstrapFields.join(',')
  const wholeFields = source.fields.join(',')
  const size = ctx.options.pageSize
  let cp = await readCheckpoint(ctx.db, kind)
  // Where the ends stand as fetched (ahead of what is stored by the pages waiting to be written).
  const ends: WalkEnds = structuredClone(cp.ends ?? freshEnds())
  const asking: Record<End, boolean> = { desc: false, asc: false }
  const came: EndPage[] = []
  let fetching = 2
  let failure: { error: unknown } | undefined
  let stopped = false
  let wake: (() => void) | undefined
  const rooms: (() => void)[] = []
  let writing = !options.listStored
  const wakeWriter = () => {
    const w = wake
    wake = undefined
    w?.()
  }
  const waitForRoom = () => new Promise<void>((resolve) => rooms.push(resolve))
  /** Tells the run the pages still to ask for once the list's size is known, and the last page (SyncContext.ahead). */
  const tellAhead = () => {
    if (ends.total === null) return
    const asked = ends.desc.pages + ends.asc.pages + (asking.desc ? 1 : 0) + (asking.asc ? 1 : 0)
    ctx.ahead?.set(kind, Math.max(0, Math.ceil(ends.total / size) - asked) + 1)
  }
  /** Places of the list the ends covered, counting the other end's page on its way. */
  const met = (end: End) => ends.total !== null && (ends.desc.pages + ends.asc.pages + (asking[other(end)] ? 1 : 0)) * size >= ends.total

  const chain = async (end: End) => {
    const me = ends[end]
    try {
      while (!stopped && !me.finished) {
        if (met(end)) {
          me.finished = true
          break
        }
        // Until the pages may be written (the epics' v3 list stored), many wait: they are small, and the ends go on.
        if (came.length >= (writing ? 2 * AHEAD : WAITING_PAGES)) {
          await waitForRoom()
          continue
        }
        asking[end] = true
        tellAhead()
        // The newest end's first page whole: stored at once, it is the epic list's first screen.
        const whole = end === 'desc' && me.pages === 0 && !me.cursor
        let page: Page
        try {
          page = await call<Page>(ctx, source.operation, {
            query: me.cursor
              ? { cursor: me.cursor, fields }
              : { limit: size, order_by: 'updated_at', order_dir: end, filter: 'include_archived', fields: whole ? wholeFields : fields },
          })
        } catch (e) {
          asking[end] = false
          if (me.cursor && isExpiredCursor(e)) {
            // This end starts over from its first page: what it brought is read again (and written again, unchanged).
            me.cursor = null
            me.pages = 0
            came.push({ end, page: { entities: [], total_items: ends.total ?? 0 }, state: { ...me }, total: ends.total, restarted: true, whole: false })
            continue
          }
          throw e
        }
        asking[end] = false
        const first = me.pages === 0
        me.pages++
        me.cursor = cursorOf(page.next_page_url)
        if (!me.cursor) me.finished = true
        // The list's size as the newest end's snapshot has it (the oldest end's until that one comes).
        if (first && (end === 'desc' || ends.total === null)) ends.total = page.total_items
        tellAhead()
        came.push({ end, page, state: { ...me }, total: ends.total, restarted: false, whole })
        wakeWriter()
      }
    } catch (error) {
      failure ??= { error }
      stopped = true
    } finally {
      fetching--
      wakeWriter()
    }
  }
  void chain('desc')
  void chain('asc')

  /** Items this walk stored: an item an end brings again (a restart, the two ends' overlap) is not written twice. */
  const seen = new Set<EntityId>()
  const result = { pages: 0, written: 0, brought: seen }
  let done = cp.done
  const listStored = options.listStored?.then(() => (writing = true))
  // What the checkpoint says: each end as its stored pages left it (an end's pages are stored in their order).
  const stored: WalkEnds = structuredClone(cp.ends ?? freshEnds())
  try {
    for (;;) {
      const ready = () => (writing ? came.length > 0 : came.some((c) => c.whole))
      while (!ready() && fetching > 0 && !failure) await Promise.race([new Promise<void>((resolve) => (wake = resolve)), ...(writing ? [] : [listStored])])
      // What came is stored before a failure ends the walk: its requests need not be made again.
      if (failure && !ready()) throw failure.error
      if (!ready()) {
        if (fetching > 0) continue
        if (!writing) {
          // Both ends are done before the list is stored: what came waits for it.
          await listStored
          continue
        }
        break
      }
      // Until the list is stored, only whole pages go (the newest end's first); then those that came, a few at a time.
      const batch = writing ? came.splice(0, WRITE_PAGES) : came.filter((c) => c.whole)
      if (!writing) came.splice(0, came.length, ...came.filter((c) => !c.whole))
      for (const room of rooms.splice(0)) room()
      const items: Item[] = []
      for (const { end, page, state, total, restarted } of batch) {
        if (!restarted) result.pages++
        for (const item of page.entities) {
          if (seen.has(item.id)) continue
          seen.add(item.id)
          items.push(item)
        }
        stored[end] = state
        if (total !== null && (end === 'desc' || stored.total === null)) stored.total = total
        // The walk's start: the newest item when the newest end began (its first page's first).
        if (end === 'desc' && state.pages === 1 && !restarted && cp.walkSince === null) cp = { ...cp, walkSince: page.entities[0]?.updated_at ?? null }
      }
      done += items.length
      cp = { ...cp, ends: structuredClone(stored), done, total: stored.total ?? done }
      result.written += await source.write(ctx.db, items, 'bootstrap', cp, options.listed, source.merges && !batch.every((b) => b.whole), false)
      ctx.progress({ kind, phase: 'bootstrap', done: Math.min(done, cp.total), total: cp.total })
    }
    // Both ends done: said so, so that a walk stopped now goes on with its last page.
    cp = { ...cp, ends: { ...stored, desc: { ...stored.desc, finished: true }, asc: { ...stored.asc, finished: true } } }
    await ctx.db.checkpoints.put(cp)
    return result
  } finally {
    stopped = true
    for (const room of rooms.splice(0)) room()
  }
}
