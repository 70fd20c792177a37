// Long work (building the index, applying a big sync page) runs in slices of a
// few milliseconds with the event loop free in between, so typing, scrolling
// and rendering never wait behind it. The slicer also records its longest
// slice: the figure that proves it.

// How eagerly the next slice runs (lib/yield.ts): building the index when a window opens is
// 'background', so the first screen and its reads of the cache go first; changes to take in are
// 'user-visible'.
import { yieldToEventLoop, type SlicePriority } from '../../lib/yield.ts'

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
