// Time for the connectivity monitor and the sync schedule, passed in so tests
// move it by hand instead of waiting.

export interface Clock {
  now(): number
  setTimeout(run: () => void, ms: number): TimerHandle
  clearTimeout(handle: TimerHandle): void
}

/** Whatever setTimeout gave back; only clearTimeout looks at it. */
export type TimerHandle = unknown

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms)
    // A pending probe or sync must not keep the process alive on quit.
    timer.unref?.()
    return timer
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/** A clock that only moves when told to: `advance(ms)` runs the timers due, in order. */
export class ManualClock implements Clock {
  private time: number
  private nextId = 0
  private readonly timers = new Map<object, { at: number; id: number; run: () => void }>()

  constructor(start = 1_700_000_000_000) {
    this.time = start
  }

  now(): number {
    return this.time
  }

  setTimeout(run: () => void, ms: number): TimerHandle {
    const handle = {}
    this.timers.set(handle, { at: this.time + Math.max(0, ms), id: this.nextId++, run })
    return handle
  }

  clearTimeout(handle: TimerHandle): void {
    if (typeof handle === 'object' && handle) this.timers.delete(handle)
  }

  /** Timers not yet run. */
  get pending(): number {
    return this.timers.size
  }

  /** Moves time forward, running each timer due at its own time (timers set meanwhile included). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms
    for (;;) {
      await settle()
      const next = this.earliest()
      if (!next || next[1].at > end) break
      this.timers.delete(next[0])
      this.time = next[1].at
      next[1].run()
    }
    this.time = end
    await settle()
  }

  private earliest() {
    let best: [object, { at: number; id: number; run: () => void }] | undefined
    for (const entry of this.timers) {
      if (!best || entry[1].at < best[1].at || (entry[1].at === best[1].at && entry[1].id < best[1].id)) best = entry
    }
    return best
  }
}

/** Lets promise callbacks (a probe's answer) run before time moves on. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}
