// Long work (building the index, applying a big sync page) runs in slices of a
// few milliseconds with the event loop free in between, so typing, scrolling
// and rendering never wait behind it. The slicer also records its longest
// slice: the figure that proves it.

/**
 * How eagerly the next slice runs. 'background' (building the index when a
 * window opens) runs only when nothing else is waiting, so the first screen
 * and its reads of the cache go first; 'user-visible' (changes to take in)
 * takes its turn with the page's other tasks.
 */
export type SlicePriority = 'background' | 'user-visible'

export class Slicer {
  /** Longest run of our own synchronous work between two yields or awaits, in ms. */
  longest = 0
  slices = 0
  private start = 0
  private running = false
  private priority: SlicePriority = 'user-visible'

  constructor(
    private readonly now: () => number,
    private readonly budgetMs: number,
    private readonly onSlice?: (ms: number) => void,
  ) {}

  /** Starts a run of slices (at `priority`, kept until the next begin with one). */
  begin(priority?: SlicePriority): void {
    if (priority) this.priority = priority
    this.start = this.now()
    this.running = true
  }

  end(): void {
    if (!this.running) return
    this.running = false
    const took = this.now() - this.start
    if (took > this.longest) this.longest = took
    this.slices++
    this.onSlice?.(took)
  }

  /** True once this slice has used its budget: call `pause()` soon. */
  get spent(): boolean {
    return this.now() - this.start >= this.budgetMs
  }

  /** Ends this slice, lets the event loop run, starts the next one. */
  async pause(): Promise<void> {
    this.end()
    await yieldToEventLoop(this.priority)
    this.begin()
  }

  /** Waits for `promise` (an IndexedDB read) outside any slice. */
  async wait<T>(promise: Promise<T>): Promise<T> {
    this.end()
    try {
      return await promise
    } finally {
      this.begin()
    }
  }
}

interface Scheduler {
  postTask?: (task: () => void, options: { priority: SlicePriority }) => Promise<void>
}

/**
 * Gives the event loop a turn: a task of that priority in Chromium
 * (scheduler.postTask; scheduler.yield would put the continuation ahead of
 * every other task instead), setImmediate in Node, a timer elsewhere.
 */
export function yieldToEventLoop(priority: SlicePriority = 'user-visible'): Promise<void> {
  const scheduler = (globalThis as { scheduler?: Scheduler }).scheduler
  if (typeof scheduler?.postTask === 'function') return scheduler.postTask(() => undefined, { priority })
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve))
  return new Promise((resolve) => setTimeout(resolve, 0))
}
