// Pacing of one account's requests so that a healthy client never meets a 429.
// The service counts requests in a sliding log (no window of windowMs ever holds
// more than max), so the pacer keeps the same log of what it sent, over a window
// widened by a margin: a request sent now may reach the service a little later
// than the one sent a window from now. Waiting requests go out by lane (user
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
  /** When each request still inside the (widened) window was sent, oldest first. */
  private readonly sent: number[] = []
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

  /** Milliseconds until the next request may go, 0 when it may go now. */
  private waitMs(now: number): number {
    const horizon = this.windowMs + this.marginMs
    while (this.sent.length > 0 && this.sent[0] <= now - horizon) this.sent.shift()
    let until = this.pausedUntil
    if (this.sent.length >= this.max) until = Math.max(until, this.sent[this.sent.length - this.max] + horizon)
    return Math.max(0, until - now)
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
        if (this.inFlight >= this.concurrency) {
          await new Promise<void>((resolve) => (this.wakeOnDone = resolve))
          continue
        }
        const now = this.clock()
        const wait = this.waitMs(now)
        if (wait > 0) {
          await this.sleep(wait)
          continue
        }
        const waiter = this.next()
        if (!waiter) break
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort)
        this.sent.push(now)
        this.inFlight++
        let done = false
        waiter.resolve({
          at: now,
          done: () => {
            if (done) return
            done = true
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
