// Whether the service can be reached. Three kinds of evidence, newest wins:
// the OS (`net.isOnline()`, polled each second: Electron has no event for it
// in main), the real outcome of the gateway's requests, and while offline a
// light probe of the base URL at a short fixed interval, so the app sees the
// service back within seconds after an outage of any length (a HEAD of the
// root, outside the API and its rate limit). While online and quiet (no
// request answered for a while) the same probe runs at the same interval, so a
// service that died is seen gone within seconds too, not at the next sync
// (the status said "Online · Synced just now" for a sync's whole interval
// after the service stopped). The OS saying "offline" is
// believed at once; the OS saying "online", the window's focus, resume from
// sleep and the user's "Sync now" are reasons to probe at once, because a
// captive portal or a dead VPN also says "online".
import type { ConnectivityReason, ConnectivityState } from '../../src-shared/ipc.ts'
import type { Clock, TimerHandle } from './clock.ts'

export interface ConnectivityOptions {
  clock: Clock
  /** Electron's `net.isOnline()`. */
  isOnline: () => boolean
  /** True when the service answered at all (any HTTP status); false on a network error or timeout. */
  probe: () => Promise<boolean>
  /** How often to ask the OS, in ms. */
  osPollMs?: number
  /** How often to probe while offline, and while online with no request answered for as long, in ms. */
  probeEveryMs?: number
  /** 0..1, spreads probes so many clients waking at once do not probe in step. */
  random?: () => number
}

export type ConnectivityListener = (state: ConnectivityState) => void

/** Probes while offline: a service back after an outage is seen within this (and the probe's round trip). */
export const PROBE_EVERY_MS = 1_500

export class Connectivity {
  private current: ConnectivityState
  private readonly listeners = new Set<ConnectivityListener>()
  private readonly probeEveryMs: number
  private readonly osPollMs: number
  private readonly random: () => number
  private osOnline: boolean
  private probeTimer: TimerHandle | undefined
  private pollTimer: TimerHandle | undefined
  private probing = false
  private stopped = true
  /** When a request last reached the service (or a probe did): the service is known alive until then. */
  private lastReached: number

  constructor(private readonly options: ConnectivityOptions) {
    this.probeEveryMs = options.probeEveryMs ?? PROBE_EVERY_MS
    this.osPollMs = options.osPollMs ?? 1_000
    this.random = options.random ?? Math.random
    this.osOnline = options.isOnline()
    this.current = { online: this.osOnline, reason: 'start', since: options.clock.now() }
    this.lastReached = options.clock.now()
  }

  get state(): ConnectivityState {
    return { ...this.current }
  }

  get online(): boolean {
    return this.current.online
  }

  /** Calls `listener` on every change; returns the function that stops it. */
  onChange(listener: ConnectivityListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.schedulePoll()
    this.scheduleProbe(this.current.online ? this.probeEveryMs : 0)
  }

  stop(): void {
    this.stopped = true
    this.cancelProbe()
    if (this.pollTimer !== undefined) this.options.clock.clearTimeout(this.pollTimer)
    this.pollTimer = undefined
  }

  /** The gateway's report after each request: did the service answer? */
  reportRequest(reached: boolean): void {
    if (reached) this.lastReached = this.options.clock.now()
    this.set(reached, 'request')
  }

  /**
   * Asks the OS. The poll calls it; so do resume from sleep, the window's focus and the user's "Sync now", with
   * `probeNow`, because the network may have changed meanwhile.
   */
  checkOs(probeNow = false): void {
    const was = this.osOnline
    this.osOnline = this.options.isOnline()
    if (!this.osOnline) {
      this.cancelProbe()
      this.set(false, 'os')
    } else if (!this.current.online && (!was || probeNow)) {
      // Back on a network: find out at once whether it reaches the service.
      this.scheduleProbe(0)
    }
  }

  private set(online: boolean, reason: ConnectivityReason): void {
    if (!this.stopped && this.osOnline && this.probeTimer === undefined) this.scheduleProbe(this.probeEveryMs)
    if (online === this.current.online) return
    this.current = { online, reason, since: this.options.clock.now() }
    const state = this.state
    for (const listener of [...this.listeners]) listener(state)
  }

  private schedulePoll(): void {
    this.pollTimer = this.options.clock.setTimeout(() => {
      this.pollTimer = undefined
      if (this.stopped) return
      this.checkOs()
      this.schedulePoll()
    }, this.osPollMs)
  }

  private scheduleProbe(delayMs: number): void {
    if (this.stopped || this.probing) return
    this.cancelProbe()
    // Up to a quarter less than the interval, never more: the service is seen back within it.
    const jittered = Math.round(delayMs * (1 - 0.25 * this.random()))
    this.probeTimer = this.options.clock.setTimeout(() => void this.runProbe(), jittered)
  }

  private cancelProbe(): void {
    if (this.probeTimer !== undefined) this.options.clock.clearTimeout(this.probeTimer)
    this.probeTimer = undefined
  }

  private async runProbe(): Promise<void> {
    this.probeTimer = undefined
    if (this.stopped || !this.osOnline) return
    if (this.current.online) {
      // Online: probe only when nothing has reached the service for a whole interval.
      const quietFor = this.options.clock.now() - this.lastReached
      if (quietFor < this.probeEveryMs) {
        this.scheduleProbe(this.probeEveryMs - quietFor)
        return
      }
    }
    this.probing = true
    let reached = false
    try {
      reached = await this.options.probe()
    } catch {
      reached = false
    } finally {
      this.probing = false
    }
    if (this.stopped) return
    if (reached) this.lastReached = this.options.clock.now()
    this.set(reached, 'probe')
    if (this.osOnline && this.probeTimer === undefined) this.scheduleProbe(this.probeEveryMs)
  }
}
