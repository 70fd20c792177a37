// A read of whole tables kept fresh as they change, for the lists that hold
// thousands of rows (10,000 epics). Dexie's liveQuery re-runs its query on
// every commit that touches what it read, and throws a run away when a commit
// lands during it; while a bootstrap commits 500 epics at a time, that is a
// full re-read of the list after every commit (101 a bootstrap, ~80 ms each).
//
// Here a read runs at once after a quiet spell (an edit shows without delay);
// while commits keep coming, the next read waits `PACE` times as long as the
// last one took, so re-reading stays a small share of the main thread and
// every commit of the burst is still in the read that follows it. A read is
// never discarded: its answer is delivered, and one more read follows when
// something changed meanwhile. A read that fails is reported and made again,
// whole, after a wait that doubles with each failure in a row.
//
// A reader that can take in only what changed (`update`) is handed the keys
// each commit named, after its first whole read: a sync page of 100 epics is
// then 100 rows read again, not 10,000. A change that names no keys (a range
// deleted, a table cleared, Dexie's "everything") makes the next read whole.
import { yieldToEventLoop } from '../lib/yield.ts'
import Dexie, { cmp, rangesOverlap, RangeSet, type IndexableType, type IntervalTree, type ObservabilitySet } from 'dexie'

/** Waiting PACE times a read's duration before the next keeps reads under 1 / (PACE + 1) of the time. */
const PACE = 4
/** A failed read is tried again whole after this, twice as long after each failure in a row, up to the most. */
export const RETRY_FIRST_MS = 500
const RETRY_MOST_MS = 30_000

/** How long to wait before reading again after `failures` failed reads in a row (at least one). */
export const retryWait = (failures: number): number => Math.min(RETRY_MOST_MS, RETRY_FIRST_MS * 2 ** (failures - 1))

export interface Watched {
  /** A table whose every change matters. */
  table: string
  /** Only rows whose primary key is in [from, to] matter (the overlay rows of one kind: ['epic'] to ['epic', []]). */
  keys?: { from: IndexableType; to: IndexableType }
}

export interface WatchObserver<T> {
  next(value: T): void
  error(error: unknown): void
}

/** The primary keys written or deleted in each watched table (by its name) since the last read. */
export type ChangedKeys = Map<string, IndexableType[]>

/** The single keys of a range set, or null if it holds a real range (many unnamed keys). */
export function pointKeys(tree: IntervalTree): IndexableType[] | null {
  const keys: IndexableType[] = []
  // Events from other windows arrive structured-cloned: RangeSet() gives them back their iterator.
  for (const node of RangeSet(tree)) {
    if (cmp(node.from, node.to) !== 0) return null
    keys.push(node.from)
  }
  return keys
}

/**
 * Reads now, then again after changes to what `watched` names, until the returned function is called.
 * With `update`, a read after the first is `update(keys)` when every change since named its keys.
 */
export function watchTables<T>(
  db: Dexie,
  watched: Watched[],
  read: () => Promise<T>,
  observer: WatchObserver<T>,
  update?: (changed: ChangedKeys) => Promise<T>,
): () => void {
  const parts = watched.map((w) => ({
    table: w.table,
    part: `idb://${db.name}/${w.table}/`,
    from: w.keys?.from,
    to: w.keys?.to,
    keys: w.keys ? new RangeSet(w.keys.from, w.keys.to) : undefined,
  }))
  let closed = false
  let running = false
  let dirty = true
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastEnd = -Infinity
  let lastDuration = 0
  let failures = 0
  // What changed since the last read began: keys by table, or null for "read it all".
  let changedKeys: ChangedKeys | null = null

  /** Notes what a commit changed of ours; false when nothing. */
  const note = (mutated: ObservabilitySet): boolean => {
    if (mutated.all !== undefined) {
      changedKeys = null
      return true
    }
    let touched = false
    for (const { table, part, from, to, keys } of parts) {
      const tree = mutated[part]
      if (tree === undefined || (keys !== undefined && !rangesOverlap(tree, keys))) continue
      touched = true
      if (changedKeys === null) continue
      const points = pointKeys(tree)
      if (points === null) {
        changedKeys = null
        continue
      }
      const inRange = from === undefined ? points : points.filter((k) => cmp(k, from) >= 0 && cmp(k, to) <= 0)
      const list = changedKeys.get(table)
      if (list) list.push(...inRange)
      else changedKeys.set(table, inRange)
    }
    return touched
  }

  const schedule = () => {
    if (closed || running || timer !== undefined || !dirty) return
    // After a failure, the retry's wait if it is the longer; otherwise the pace's.
    const paced = lastEnd + PACE * lastDuration
    const at = failures === 0 ? paced : Math.max(paced, lastEnd + retryWait(failures))
    timer = setTimeout(run, Math.max(0, at - performance.now()))
  }

  const run = async () => {
    timer = undefined
    if (closed) return
    running = true
    dirty = false
    // The first read is whole; later ones take in what the commits since named, when they all did.
    const changes = update ? changedKeys : null
    changedKeys = new Map()
    const start = performance.now()
    try {
      const value = await (changes ? update!(changes) : read())
      // The read's last page is decoded and merged in one task; what the list then does with it
      // (sorting, filtering, rendering 10,000 epics) takes a task of its own.
      await yieldToEventLoop()
      failures = 0
      if (!closed) observer.next(value)
    } catch (error) {
      // A database closed under the read (the workspace is closing) is not the list's error.
      if (!closed && !(error instanceof Dexie.DatabaseClosedError)) observer.error(error)
      // What that read was to take in is read whole, and not only at the next commit: a list that failed
      // once (a transaction aborted under it, say) would otherwise stay as it was, or an error, until then.
      changedKeys = null
      dirty = true
      failures++
    } finally {
      running = false
      lastEnd = performance.now()
      lastDuration = lastEnd - start
      schedule()
    }
  }

  const onMutated = (mutated: ObservabilitySet) => {
    if (closed || !note(mutated)) return
    dirty = true
    schedule()
  }

  Dexie.on('storagemutated', onMutated)
  schedule()
  return () => {
    closed = true
    clearTimeout(timer)
    Dexie.on.storagemutated.unsubscribe(onMutated)
  }
}
