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
// something changed meanwhile.
import { yieldToEventLoop } from '../lib/yield.ts'
import Dexie, { rangesOverlap, RangeSet, type IndexableType, type ObservabilitySet } from 'dexie'

/** Waiting PACE times a read's duration before the next keeps reads under 1 / (PACE + 1) of the time. */
const PACE = 4

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

/** Reads now, then again after changes to what `watched` names, until the returned function is called. */
export function watchTables<T>(db: Dexie, watched: Watched[], read: () => Promise<T>, observer: WatchObserver<T>): () => void {
  const parts = watched.map((w) => ({
    part: `idb://${db.name}/${w.table}/`,
    keys: w.keys ? new RangeSet(w.keys.from, w.keys.to) : undefined,
  }))
  let closed = false
  let running = false
  let dirty = true
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastEnd = -Infinity
  let lastDuration = 0

  const changed = (mutated: ObservabilitySet) =>
    parts.some(({ part, keys }) => {
      const tree = mutated[part]
      return tree !== undefined && (keys === undefined || rangesOverlap(tree, keys))
    })

  const schedule = () => {
    if (closed || running || timer !== undefined || !dirty) return
    const wait = Math.max(0, lastEnd + PACE * lastDuration - performance.now())
    timer = setTimeout(run, wait)
  }

  const run = async () => {
    timer = undefined
    if (closed) return
    running = true
    dirty = false
    const start = performance.now()
    try {
      const value = await read()
      // The read's last page is decoded and merged in one task; what the list then does with it
      // (sorting, filtering, rendering 10,000 epics) takes a task of its own.
      await yieldToEventLoop()
      if (!closed) observer.next(value)
    } catch (error) {
      // A database closed under the read (the workspace is closing) is not the list's error.
      if (!closed && !(error instanceof Dexie.DatabaseClosedError)) observer.error(error)
    } finally {
      running = false
      lastEnd = performance.now()
      lastDuration = lastEnd - start
      schedule()
    }
  }

  const onMutated = (mutated: ObservabilitySet) => {
    if (closed || !changed(mutated)) return
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
