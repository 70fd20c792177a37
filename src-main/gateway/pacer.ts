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
//
// A background request may say how many more its run means to make (`ahead`:
// a first sync's walk knows its pages once it knows the list's size). The
// background then takes no more of a window than the least share that still
// ends its run after as many turns of the window as it would at the full
// share: a walk of 600 requests at 200 a minute, 190 for the background, needs
// three turns either way, so it takes 150 a window and leaves 50 to the user
// in every window, where it would burst 190 and leave the reserve alone.
//
// Nor does the background take what the user has been using: a window's
// share for it is the limit less the user's requests of the last window (or
// the average of the last two), a tenth of the window at least. A user's
// request held by a full window leaves the background a tenth for a window:
// requests that waited for the same turn of the window leave it together,
// and would find the window full together again.
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

/** What the background's run said it still means to make: its requests not yet asked for, and when it said so. */
interface Plan {
  ahead: number
  at: number
}

interface Waiter {
  lane: Lane
  resolve(turn: Turn): void
  reject(error: unknown): void
  signal?: AbortSignal
  onAbort?: () => void
}

const isBackground = (lane: Lane) => (BACKGROUND_LANES as readonly Lane[]).includes(lane)

export class Pacer {
  readonly max: number
  readonly windowMs: number
  readonly marginMs: number
  private readonly concurrency: number
  private readonly clock: () => number
  private readonly sleep: (ms: number) => Promise<void>
  /** When each answered request still inside the (widened) window was answered, oldest first. */
  private readonly answered: number[] = []
  /** The same of the background lanes' requests alone. */
  private readonly backgroundAnswered: number[] = []
  /** When the user's lanes were granted each of their turns of the last two windows, oldest first. */
  private readonly userTurns: number[] = []
  /** When a user's request was last held because the window was full (or paused). */
  private userHeldAt = Number.NEGATIVE_INFINITY
  private backgroundInFlight = 0
  private plan: Plan | undefined
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

  /**
   * Waits for this request's turn. Rejects with the signal's reason if aborted while waiting. `ahead`: of a
   * background request, how many more its run means to make after it (see the file's head).
   */
  admit(lane: Lane, signal?: AbortSignal, ahead?: number): Promise<Turn> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith)
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (ahead !== undefined && isBackground(lane)) this.plan = { ahead: Math.max(0, Math.floor(ahead)), at: this.clock() }
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
    const turn = this.turn(this.clock(), false)
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
   * Milliseconds until one more of the requests logged in `answered` (and `inFlight` besides) may go with at
   * most `max` in a window: 0 when it may go now, Infinity when only an answer can free a slot (every
   * counted request is in flight).
   */
  private waitMs(now: number, answered: number[], inFlight: number, max: number): number {
    this.prune(answered, now)
    const horizon = this.windowMs + this.marginMs
    // Requests in flight never leave the window before they are answered.
    const mustLeave = inFlight + answered.length - max + 1
    if (mustLeave > answered.length) return Infinity
    let until = this.pausedUntil
    if (mustLeave > 0) until = Math.max(until, answered[mustLeave - 1] + horizon)
    return Math.max(0, until - now)
  }

  /**
   * What the user's lanes take of a window: the most of their last window and of the average of their last
   * two. Their requests leaving the window do not free it for the background at once: the user's next
   * ones, coming as often, find it free.
   */
  private userDemand(now: number): number {
    const turns = this.userTurns
    this.prune(turns, now, 2 * this.windowMs)
    let lastWindow = 0
    for (let i = turns.length - 1; i >= 0 && turns[i] > now - this.windowMs; i--) lastWindow++
    return Math.max(lastWindow, Math.ceil(turns.length / 2))
  }

  /**
   * The background's share of a window (`full` at most): what the user's lanes leave of it, a tenth at least,
   * and a tenth alone for a window after a user's request was held by a full window (the user's requests
   * that waited for the same turn of the window would otherwise leave it together, and wait together again);
   * and while its run says how many requests it still means to make, the least share that ends them after
   * as many turns of the window as that would.
   */
  private backgroundShare(now: number, full: number): number {
    const least = Math.ceil(full / 10)
    const room = now - this.userHeldAt < this.windowMs ? least : Math.max(least, full - this.userDemand(now))
    const plan = this.plan
    if (!plan) return room
    // A plan neither renewed nor followed by a request for a window is of a run that ended or stopped.
    if (now - plan.at > this.windowMs) {
      this.plan = undefined
      return room
    }
    this.prune(this.backgroundAnswered, now)
    const inWindow = this.backgroundInFlight + this.backgroundAnswered.length
    const need = plan.ahead + this.queues.sync.length + this.queues.prefetch.length
    const turns = Math.ceil(Math.max(0, need - Math.max(0, room - inWindow)) / room)
    return Math.min(room, Math.max(1, Math.ceil((need + inWindow) / (turns + 1))))
  }

  /** Drops from `log` the times older than `horizon` (by default those that left the widened window). */
  private prune(log: number[], now: number, horizon = this.windowMs + this.marginMs): void {
    while (log.length > 0 && log[0] <= now - horizon) log.shift()
  }

  private logAnswer(log: number[], at: number): void {
    let i = log.length
    while (i > 0 && log[i - 1] > at) i--
    log.splice(i, 0, at)
  }

  /** A turn granted at `at`, counted in flight until done, then in the window until a window after its answer. */
  private turn(at: number, background: boolean): Turn {
    this.inFlight++
    if (background) this.backgroundInFlight++
    let done = false
    return {
      at,
      done: () => {
        if (done) return
        done = true
        const answeredAt = this.clock()
        this.logAnswer(this.answered, answeredAt)
        this.inFlight--
        if (background) {
          this.logAnswer(this.backgroundAnswered, answeredAt)
          this.backgroundInFlight--
        }
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
        const background = isBackground(lane)
        const concurrency = background ? Math.max(1, this.concurrency - this.reserve.slots) : this.concurrency
        let wait: number
        if (!background) wait = this.waitMs(now, this.answered, this.inFlight, this.max)
        else {
          const full = Math.max(1, this.max - this.reserve.requests)
          // The window's requests within the background's part of it, and the background's within its share.
          wait = Math.max(
            this.waitMs(now, this.answered, this.inFlight, full),
            this.waitMs(now, this.backgroundAnswered, this.backgroundInFlight, this.backgroundShare(now, full)),
          )
        }
        // The user's request waits for the window to turn: the background keeps to a tenth for a window.
        if (!background && wait > 0) this.userHeldAt = now
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
        // A run whose requests go on keeps its plan.
        if (background && this.plan) this.plan.at = now
        if (!background) this.userTurns.push(now)
        waiter.resolve(this.turn(now, background))
      }
    } finally {
      this.pumping = false
    }
  }
}
