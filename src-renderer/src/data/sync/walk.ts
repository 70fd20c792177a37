// Walks of v4 pages, newest first (order_by=updated_at, order_dir=desc), for
// epics and docs: the bootstrap walks them all, an incremental walk stops at
// the checkpoint. Pages are stored with the walk's checkpoint in one
// transaction, so a walk stopped anywhere resumes after its last stored page;
// a cursor the service has forgotten restarts the walk from its first page.
//
// The checkpoint (`since`) is the newest updated_at when the walk began: the
// first item of its first page. The service snapshots the order on that first
// page, so anything changed later has a later (or, within a millisecond, the
// same) updated_at. The next walk reads down to `since` minus the overlap;
// what it meets again at a version already cached is not rewritten. Pages come
// newest first, so a page whose last item is below that floor is the last one
// needed: the walk never asks for a page that would be entirely older. The
// pages are asked for ahead of the writes (AHEAD at most), and each write
// stores all that came while the last one ran. Why the checkpoint is not the newest updated_at seen anywhere in the walk: an item
// changed after its page was read would be missed if a later page showed a
// newer change to another item.
import type { OutpostDb } from '../db.ts'
import { writeDocPage, writeEpicPage, type ListedEpic, type WriteMode } from './cache.ts'
import { readCheckpoint, type KindCheckpoint, type WalkKind } from './checkpoints.ts'
import { call, cursorOf, isExpiredCursor, type ListAnswer, type SyncContext } from './context.ts'
import { DOC_V4_FIELDS, EPIC_V4_FIELDS, type DocV4Fields, type EpicV4Fields } from '../convert.ts'
import type { OperationName } from '../../../../src-shared/api/operations.ts'

interface WalkSource<T extends { updated_at: string }> {
  operation: OperationName
  fields: readonly string[]
  write: (db: OutpostDb, page: T[], mode: WriteMode, checkpoint: KindCheckpoint, listed?: ReadonlyMap<number, ListedEpic>) => Promise<number>
}

const SOURCES: { epics: WalkSource<EpicV4Fields>; docs: WalkSource<DocV4Fields> } = {
  epics: { operation: 'epics.list', fields: EPIC_V4_FIELDS, write: writeEpicPage },
  docs: { operation: 'documents.list', fields: DOC_V4_FIELDS, write: writeDocPage },
}

export interface WalkResult {
  phase: WriteMode
  /** Requests made. */
  pages: number
  written: number
  /** The walk reached its end (false when it stopped after the pages it was asked for). */
  finished?: boolean
}

/**
 * Pages asked for ahead of the cache's writes, at most. Each write takes every page that has come, in
 * one transaction with the checkpoint of the last: a transaction's first request waits its turn in
 * IndexedDB's process (10–13 ms of an epic page's 27 ms in a bootstrap), and pages written together pay
 * that wait once.
 */
export const AHEAD = 4

const later = (a: string | null, b: string | null | undefined): string | null => (!a ? (b ?? null) : !b ? a : b > a ? b : a)

/**
 * One walk of a kind: the bootstrap when the kind has none finished yet,
 * otherwise an incremental walk down to its checkpoint. `listed` (the v3
 * epic list of this run, when it ran) places epics and gives their progress.
 */
export async function walk(ctx: SyncContext, kind: WalkKind, listed?: ReadonlyMap<number, ListedEpic>, options: { pages?: number } = {}): Promise<WalkResult> {
  const source = SOURCES[kind] as WalkSource<{ updated_at: string }>
  const fields = source.fields.join(',')
  let cp = await readCheckpoint(ctx.db, kind)
  const phase: WriteMode = cp.bootstrapped ? 'incremental' : 'bootstrap'
  // Read down to this (ms); a bootstrap reads everything.
  const floor = phase === 'incremental' && cp.since ? Date.parse(cp.since) - ctx.options.overlapMs : null
  const result: WalkResult = { phase, pages: 0, written: 0 }
  /** Pages come newest first: one whose oldest item is below the floor is the last an incremental walk needs. */
  const reachesFloor = (page: ListAnswer<{ updated_at: string }>) => {
    const oldest = page.entities.at(-1)?.updated_at
    return floor !== null && oldest !== undefined && Date.parse(oldest) < floor
  }
  const ask = (from: string | null): Promise<ListAnswer<{ updated_at: string }>> =>
    call<ListAnswer<{ updated_at: string }>>(ctx, source.operation, {
      query: from ? { cursor: from, fields } : { limit: ctx.options.pageSize, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived', fields },
    })
  /** A page as it came, the cursor it was asked with, and whether the walk started over with it. */
  type Fetched = { page: ListAnswer<{ updated_at: string }>; from: string | null; restarted: boolean }
  const came: Fetched[] = []
  let fetching = true
  let failure: { error: unknown } | undefined
  let stopped = false
  let wake: (() => void) | undefined
  let room: (() => void) | undefined
  // The pages are asked for one after the other (each needs the cursor of the one before), ahead of the writes.
  const fetchAll = async () => {
    let from = cp.cursor
    let restarted = false
    let asked = 0
    try {
      while (!stopped) {
        if (came.length >= AHEAD) {
          await new Promise<void>((resolve) => (room = resolve))
          continue
        }
        let page: ListAnswer<{ updated_at: string }>
        try {
          page = await ask(from)
        } catch (e) {
          if (from && isExpiredCursor(e)) {
            // Start over, skipping nothing: pages already stored are read again (and not rewritten when unchanged).
            from = null
            restarted = true
            continue
          }
          throw e
        }
        asked++
        came.push({ page, from, restarted })
        restarted = false
        wake?.()
        if (!page.next_page_url || reachesFloor(page) || (options.pages !== undefined && asked >= options.pages)) return
        from = cursorOf(page.next_page_url)
      }
    } catch (error) {
      failure = { error }
    } finally {
      fetching = false
      wake?.()
    }
  }
  void fetchAll()

  let done = cp.cursor ? cp.done : 0
  try {
    for (;;) {
      while (came.length === 0 && fetching) await new Promise<void>((resolve) => (wake = resolve))
      if (came.length === 0) throw failure?.error ?? new Error(`the ${kind} walk ended without its last page`)
      const batch = came.splice(0)
      room?.()
      const items: { updated_at: string }[] = []
      let last = false
      let total = 0
      for (const { page, from, restarted } of batch) {
        result.pages++
        if (restarted) done = 0
        const walkSince = from ? cp.walkSince : later(cp.since, page.entities[0]?.updated_at)
        const finished = !page.next_page_url || reachesFloor(page)
        const kept = floor === null ? page.entities : page.entities.filter((e) => Date.parse(e.updated_at) >= floor)
        items.push(...kept)
        done += kept.length
        // An incremental walk cannot know how many changed: it says one more page may come until it ends.
        total = finished ? done : phase === 'bootstrap' ? page.total_items : done + ctx.options.pageSize
        cp = finished
          ? { ...cp, bootstrapped: true, cursor: null, done: 0, total: 0, since: walkSince, walkSince: null, syncedAt: ctx.clock() }
          : { ...cp, cursor: cursorOf(page.next_page_url), done, total, walkSince }
        // Asked to stop after this page (`pages`): the walk goes on from its checkpoint next time.
        const pausing = !finished && options.pages !== undefined && result.pages >= options.pages
        if (finished || pausing) {
          result.finished = finished
          last = true
        }
      }
      // What came is stored, even when the walk was stopped meanwhile: its requests need not be made again.
      result.written += await source.write(ctx.db, items, phase, cp, listed)
      ctx.progress({ kind, phase, done, total })
      if (last) return result
    }
  } finally {
    stopped = true
    room?.()
  }
}
