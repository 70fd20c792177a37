// When the renderer should replay its outbox and sync its cache: on reconnect,
// on resume from sleep, on window focus and on a timer. Replay always comes
// before sync, so the user's queued changes reach the server before the cache
// is refreshed over them. Nothing is asked while offline: the triggers would
// only fail, and reconnecting asks anyway.
import type { ScheduleReason } from '../../src-shared/ipc.ts'
import type { Clock, TimerHandle } from './clock.ts'

export type ScheduleEvent = 'replay-now' | 'sync-now'

export interface ScheduleOptions {
  clock: Clock
  /** Is the service reachable now? */
  online: () => boolean
  /** Sends the event to the renderer. */
  emit: (event: ScheduleEvent, reason: ScheduleReason) => void
  /** Background sync period, in ms. */
  intervalMs?: number
  /** Focus triggers closer together than this are skipped (alt-tabbing is not a reason to sync). */
  focusGapMs?: number
}

export class SyncSchedule {
  private timer: TimerHandle | undefined
  private lastTrigger = -Infinity
  private running = false
  private readonly intervalMs: number
  private readonly focusGapMs: number

  constructor(private readonly options: ScheduleOptions) {
    this.intervalMs = options.intervalMs ?? 5 * 60_000
    this.focusGapMs = options.focusGapMs ?? 30_000
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.trigger('start')
  }

  stop(): void {
    this.running = false
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Connectivity changed; only a change to online asks for anything. */
  connectivityChanged(online: boolean): void {
    if (online) this.trigger('reconnect')
  }

  /** powerMonitor's 'resume'. */
  resumed(): void {
    this.trigger('resume')
  }

  /** The window got the focus. */
  focused(): void {
    if (this.options.clock.now() - this.lastTrigger < this.focusGapMs) return
    this.trigger('focus')
  }

  /** The user asked (menu, shortcut): goes ahead even when we think we are offline, to find out. */
  now(reason: ScheduleReason = 'menu'): void {
    this.trigger(reason, true)
  }

  private trigger(reason: ScheduleReason, evenOffline = false): void {
    if (!this.running) return
    // Whatever happened, the next timer sync is a full period away.
    this.restartTimer()
    if (!evenOffline && !this.options.online()) return
    this.lastTrigger = this.options.clock.now()
    this.options.emit('replay-now', reason)
    this.options.emit('sync-now', reason)
  }

  private restartTimer(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer)
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined
      this.trigger('timer')
    }, this.intervalMs)
  }
}
