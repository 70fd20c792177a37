// Pacing of one account's requests so that a healthy client never meets a 429.
// The service counts requests in a sliding log (no window of windowMs ever holds
// more than max) by when they arrive, which the client cannot see: it lies
// somewhere between sending and the answer. So the pacer logs each request at
// the latest moment it may have been counted: while in flight it counts as
// "now", and once answered, at its answer. On a busy machine a request can reach
// the service well after it was sent; logging it at its send time then let the
// next one in a window too early (a 429 the pacing test met under CI load). The
// window is also widened by a small margin. Waiting requests go out by lane (user
// writes, then user reads, then sync, then prefetch), first come first served
// within a lane. The background lanes (sync, prefetch) may be kept from the last
// few slots of the concurrency and of the window (`reserve`), so that the
// user's own request finds one free however busy a sync is.
//
// Requests this account made elsewhere (a sign-in's token check and lists, made
// before its gateway) count in the window too (`track`).
import { BACKGROUND_LANES, LANES, type Lane } from '../../src-shared/api/operations.ts'

export interface PacerOptions {
  max: number
  windowMs: number
  /** Added to the window; default 3% of it, at least 250 ms. */
  marginMs?: number
  /** Requests in flight at once (also bounds the sockets per account). */
  concurrency: number
  clock: () => number
  sleep: (ms: number) => Promise<void>
  /** Kept for the user's lanes: background lanes use at most `concurrency - slots` at once and `max - requests` of a window. */
  reserve?: { slots: number; requests: number }
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
  private readonly queues: Record<Lane, Waiter[]> = { 'user-write': [], 'user-read': [], sync: [], prefetch: [] }
  private readonly reserve: { slots: number; requests: number }
  private inFlight = 0
  private pausedUntil = 0
  private pumping = false
  /** Resolves the pump's wait: a request was answered, or a new one came (perhaps more urgent). */
  private wakeUp: (() => void) | undefined
  private closedWith: unknown

  constructor(options: PacerOptions) {
    if (!(options.max >= 1) || !(options.windowMs > 0)) throw new RangeError('A rate limit allows at least one request in a positive window')
    this.max = Math.floor(options.max)
    this.windowMs = options.windowMs
    this.marginMs = options.marginMs ?? Math.max(250, Math.round(options.windowMs * 0.03))
    this.concurrency = Math.max(1, Math.floor(options.concurrency))
    this.clock = options.clock
    this.sleep = options.sleep
    this.reserve = { slots: Math.max(0, Math.floor(options.reserve?.slots ?? 0)), requests: Math.max(0, Math.floor(options.reserve?.requests ?? 0)) }
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
      this.wake()
      void this.pump()
    })
  }

  /**
   * Counts a request this account made without a turn (one sent before this pacer was made) from
   * now until a window after `answered` settles, as if it had been granted a turn now.
   */
  track(answered: Promise<unknown>): void {
    const turn = this.turn(this.clock())
    void answered.then(turn.done, turn.done)
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
    this.wake()
  }

  private wake(): void {
    const wake = this.wakeUp
    this.wakeUp = undefined
    wake?.()
  }

  private woken(): Promise<void> {
    return new Promise<void>((resolve) => (this.wakeUp = resolve))
  }

  /**
   * Milliseconds until the next request may go: 0 when it may go now, Infinity
   * when only an answer can free a slot (every counted request is in flight).
   */
  private waitMs(now: number, max: number): number {
    const horizon = this.windowMs + this.marginMs
    while (this.answered.length > 0 && this.answered[0] <= now - horizon) this.answered.shift()
    // Requests in flight never leave the window before they are answered.
    const mustLeave = this.inFlight + this.answered.length - max + 1
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

  /** A turn granted at `at`, counted in flight until done, then in the window until a window after its answer. */
  private turn(at: number): Turn {
    this.inFlight++
    let done = false
    return {
      at,
      done: () => {
        if (done) return
        done = true
        this.logAnswer(this.clock())
        this.inFlight--
        this.wake()
      },
    }
  }

  /** The most urgent lane with a request waiting. */
  private nextLane(): Lane | undefined {
    return LANES.find((lane) => this.queues[lane].length > 0)
  }

  // One loop hands out turns; it sleeps while the window is full or paused and
  // picks the most urgent waiter only when a request may actually go.
  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.waiting > 0 && this.closedWith === undefined) {
        const now = this.clock()
        const lane = this.nextLane()
        if (!lane) break
        const background = (BACKGROUND_LANES as readonly Lane[]).includes(lane)
        const concurrency = background ? Math.max(1, this.concurrency - this.reserve.slots) : this.concurrency
        const wait = this.waitMs(now, background ? Math.max(1, this.max - this.reserve.requests) : this.max)
        if (this.inFlight >= concurrency || wait === Infinity) {
          await this.woken()
          continue
        }
        if (wait > 0) {
          // A more urgent request that comes meanwhile may go at once: it is not held to the background's share.
          await Promise.race([this.sleep(wait), this.woken()])
          continue
        }
        const waiter = this.queues[lane].shift()!
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort)
        waiter.resolve(this.turn(now))
      }
    } finally {
      this.pumping = false
    }
  }
}
