// Pacing of one account's requests so that a healthy client never meets a 429.
// The service counts requests in a sliding log (no window of windowMs ever holds
// more than max) by when they arrive, which the client cannot see: it lies
// somewhere between sending and the answer. So the pacer logs each request at
// the latest moment it may have been counted: while in flight it counts as
// "now", and once answered, at its answer. On a busy machine a request can reach
// the service well after it was sent; logging it at its send time then let the
// next one in a window too early (a 429 the pacing test met under CI load). The
// window is also widened by a small margin. Waiting requests go out by lane (user
// writes, then user reads, then sync), first come first served within a lane.
import { LANES, type Lane } from '../../src-shared/api/operations.ts'

export interface PacerOptions {
  max: number
  windowMs: number
  /** Added to the window; default 3% of it, at least 250 ms. */
  marginMs?: number
  /** Requests in flight at once (also bounds the sockets per account). */
  concurrency: number
  clock: () => number
  sleep: (ms: number) => Promise<void>
}

/** A granted turn: call `done` once the exchange is over, whatever its outcome. */
export interface Turn {
  /** When the turn was granted (the pacer's clock). */
  at: number
  done(): void
}

interface Waiter {
  lane: Lane
  resolve(turn: Turn): void
  reject(error: unknown): void
  signal?: AbortSignal
  onAbort?: () => void
}

export class Pacer {
  readonly max: number
  readonly windowMs: number
  readonly marginMs: number
  private readonly concurrency: number
  private readonly clock: () => number
  private readonly sleep: (ms: number) => Promise<void>
  /** When each answered request still inside the (widened) window was answered, oldest first. */
  private readonly answered: number[] = []
  private readonly queues: Record<Lane, Waiter[]> = { 'user-write': [], 'user-read': [], sync: [] }
  private inFlight = 0
  private pausedUntil = 0
  private pumping = false
  private wakeOnDone: (() => void) | undefined
  private closedWith: unknown

  constructor(options: PacerOptions) {
    if (!(options.max >= 1) || !(options.windowMs > 0)) throw new RangeError('A rate limit allows at least one request in a positive window')
    this.max = Math.floor(options.max)
    this.windowMs = options.windowMs
    this.marginMs = options.marginMs ?? Math.max(250, Math.round(options.windowMs * 0.03))
    this.concurrency = Math.max(1, Math.floor(options.concurrency))
    this.clock = options.clock
    this.sleep = options.sleep
  }

  /** Waits for this request's turn. Rejects with the signal's reason if aborted while waiting. */
  admit(lane: Lane, signal?: AbortSignal): Promise<Turn> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith)
    if (signal?.aborted) return Promise.reject(signal.reason)
    return new Promise<Turn>((resolve, reject) => {
      const waiter: Waiter = { lane, resolve, reject, signal }
      if (signal) {
        waiter.onAbort = () => {
          const queue = this.queues[lane]
          const at = queue.indexOf(waiter)
          if (at >= 0) queue.splice(at, 1)
          reject(signal.reason)
        }
        signal.addEventListener('abort', waiter.onAbort, { once: true })
      }
      this.queues[lane].push(waiter)
      void this.pump()
    })
  }

  /** Holds every waiting request until `untilMs` (a 429's Retry-After); never shortens a pause. */
  pauseUntil(untilMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, untilMs)
  }

  get waiting(): number {
    return LANES.reduce((n, lane) => n + this.queues[lane].length, 0)
  }

  /** Refuses every waiting and future request with `reason`. */
  close(reason: unknown): void {
    this.closedWith = reason
    for (const lane of LANES) {
      for (const w of this.queues[lane].splice(0)) {
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort)
        w.reject(reason)
      }
    }
    this.wakeOnDone?.()
  }

  /**
   * Milliseconds until the next request may go: 0 when it may go now, Infinity
   * when only an answer can free a slot (every counted request is in flight).
   */
  private waitMs(now: number): number {
    const horizon = this.windowMs + this.marginMs
    while (this.answered.length > 0 && this.answered[0] <= now - horizon) this.answered.shift()
    // Requests in flight never leave the window before they are answered.
    const mustLeave = this.inFlight + this.answered.length - this.max + 1
    if (mustLeave > this.answered.length) return Infinity
    let until = this.pausedUntil
    if (mustLeave > 0) until = Math.max(until, this.answered[mustLeave - 1] + horizon)
    return Math.max(0, until - now)
  }

  private logAnswer(at: number): void {
    let i = this.answered.length
    while (i > 0 && this.answered[i - 1] > at) i--
    this.answered.splice(i, 0, at)
  }

  private next(): Waiter | undefined {
    for (const lane of LANES) {
      const w = this.queues[lane].shift()
      if (w) return w
    }
    return undefined
  }

  // One loop hands out turns; it sleeps while the window is full or paused and
  // picks the most urgent waiter only when a request may actually go.
  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.waiting > 0 && this.closedWith === undefined) {
        const now = this.clock()
        const wait = this.waitMs(now)
        if (this.inFlight >= this.concurrency || wait === Infinity) {
          await new Promise<void>((resolve) => (this.wakeOnDone = resolve))
          continue
        }
        if (wait > 0) {
          await this.sleep(wait)
          continue
        }
        const waiter = this.next()
        if (!waiter) break
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort)
        this.inFlight++
        let done = false
        waiter.resolve({
          at: now,
          done: () => {
            if (done) return
            done = true
            this.logAnswer(this.clock())
            this.inFlight--
            const wake = this.wakeOnDone
            this.wakeOnDone = undefined
            wake?.()
          },
        })
      }
    } finally {
      this.pumping = false
    }
  }
}
