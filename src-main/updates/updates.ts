// The app's own updates, without Electron: when to look (a while after start,
// then every few hours, or when asked), what the feed's answer means (a newer
// version: download it in the background; the same or older: nothing), and
// where things stand (idle → checking → downloading → ready → restart). The
// updater itself (electron-updater's autoUpdater in a packaged app, see
// auto-updater.ts) is handed in, so tests drive this with a local feed.
// Failures are kept quiet: the state says what went wrong (Settings shows
// it), the next check tries again.
import type { UpdateState } from '../../src-shared/ipc.ts'
import type { Clock, TimerHandle } from '../connectivity/clock.ts'
import { isUpdate } from './versions.ts'

/** What a feed says of its latest release (electron-updater's UpdateInfo, as much as is read here). */
export interface OfferedUpdate {
  version: string
  releaseDate?: string
}

export interface Updater {
  /** Asks the feed for its latest release. */
  check(): Promise<OfferedUpdate>
  /** Downloads the release the last check found; progress in percent. */
  download(onProgress: (percent: number) => void): Promise<void>
  /** Quits the app and installs the downloaded release. */
  install(): void
}

export interface UpdatesOptions {
  /** The running version. */
  current: string
  /** Absent: updates are off (see `off`). */
  updater?: Updater
  /** Why there is no updater: a development build, or the browser host. */
  off?: 'development' | 'browser'
  clock: Clock
  /** Every change of the state. */
  onChange?: (state: UpdateState) => void
  /** A failed check or download, for the main side's recent log. */
  onError?: (message: string) => void
  /** The first check, after the start's own work (30 s). */
  firstCheckMs?: number
  /** Between checks (4 hours). */
  intervalMs?: number
}

export const FIRST_CHECK_MS = 30_000
export const CHECK_INTERVAL_MS = 4 * 60 * 60 * 1000

export class Updates {
  private current: UpdateState
  private timer: TimerHandle | undefined
  private running: Promise<UpdateState> | undefined
  private stopped = false

  constructor(private readonly options: UpdatesOptions) {
    this.current = options.updater
      ? { status: 'idle', current: options.current }
      : { status: 'off', off: options.off ?? 'development', current: options.current }
  }

  get state(): UpdateState {
    return { ...this.current }
  }

  /** Schedules the first check; later ones follow every interval. Nothing when updates are off. */
  start(): void {
    if (!this.options.updater) return
    this.stopped = false
    this.schedule(this.options.firstCheckMs ?? FIRST_CHECK_MS)
  }

  stop(): void {
    this.stopped = true
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer)
    this.timer = undefined
  }

  /**
   * Checks now (and downloads what it finds); a check already under way is
   * joined, not doubled. Once an update is ready nothing more is asked of the
   * feed: the next start runs the new version.
   */
  check(): Promise<UpdateState> {
    if (!this.options.updater || this.current.status === 'ready') return Promise.resolve(this.state)
    this.running ??= this.run(this.options.updater).finally(() => {
      this.running = undefined
    })
    return this.running
  }

  /**
   * Restarts into the downloaded version; refused unless one is ready. An install that fails (the
   * download gone or unreadable) is no longer offered: the state says what went wrong, the next
   * check (at the usual interval, or asked for) downloads the update again, and the error is thrown
   * for the window to tell.
   */
  restart(): void {
    const updater = this.options.updater
    if (!updater) throw new Error(this.current.off === 'browser' ? 'The browser host does not update itself.' : 'This build of Outpost does not update itself.')
    if (this.current.status !== 'ready') throw new Error('No update is ready to install yet.')
    try {
      updater.install()
    } catch (error) {
      const state = this.failed(`Could not install Outpost ${this.current.version}`, error)
      if (!this.stopped) this.schedule(this.options.intervalMs ?? CHECK_INTERVAL_MS)
      throw new Error(state.error)
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer)
    this.timer = this.options.clock.setTimeout(() => {
      this.timer = undefined
      void this.check().then(() => {
        if (this.current.status !== 'ready') this.schedule(this.options.intervalMs ?? CHECK_INTERVAL_MS)
      })
    }, ms)
  }

  private async run(updater: Updater): Promise<UpdateState> {
    const { current } = this.options
    this.set({ status: 'checking', current, checkedAt: this.current.checkedAt })
    let offered: OfferedUpdate
    try {
      offered = await updater.check()
      if (!isUpdate(current, offered.version)) {
        this.set({ status: 'idle', current, checkedAt: this.options.clock.now() })
        return this.state
      }
    } catch (error) {
      return this.failed('Could not check for updates', error)
    }
    const checkedAt = this.options.clock.now()
    this.set({ status: 'downloading', current, version: offered.version, checkedAt, percent: 0 })
    try {
      await updater.download((percent) => {
        if (this.current.status === 'downloading') this.set({ ...this.current, percent: Math.max(0, Math.min(100, Math.round(percent))) })
      })
    } catch (error) {
      return this.failed(`Could not download Outpost ${offered.version}`, error)
    }
    this.set({ status: 'ready', current, version: offered.version, checkedAt })
    return this.state
  }

  private failed(what: string, error: unknown): UpdateState {
    const message = `${what}: ${error instanceof Error ? error.message : String(error)}`
    this.options.onError?.(message)
    this.set({ status: 'error', current: this.options.current, checkedAt: this.current.checkedAt, error: message })
    return this.state
  }

  private set(state: UpdateState): void {
    // No undefined fields: the state crosses IPC and the host's JSON as it is.
    this.current = Object.fromEntries(Object.entries(state).filter(([, v]) => v !== undefined)) as UpdateState
    this.options.onChange?.(this.state)
  }
}
