// Long work (building the index, applying a big sync page) runs in slices of a
// few milliseconds with the event loop free in between, so typing, scrolling
// and rendering never wait behind it. The slicer also records its longest
// slice: the figure that proves it.

export class Slicer {
  /** Longest run of our own synchronous work between two yields or awaits, in ms. */
  longest = 0
  slices = 0
  private start = 0
  private running = false

  constructor(
    private readonly now: () => number,
    private readonly budgetMs: number,
    private readonly onSlice?: (ms: number) => void,
  ) {}

  begin(): void {
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
    await yieldToEventLoop()
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

interface SchedulerWithYield {
  yield?: () => Promise<void>
}

/** Gives the event loop a turn: scheduler.yield() in Chromium, setImmediate in Node, a timer elsewhere. */
export function yieldToEventLoop(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: SchedulerWithYield }).scheduler
  if (typeof scheduler?.yield === 'function') return scheduler.yield()
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve))
  return new Promise((resolve) => setTimeout(resolve, 0))
}
