// The data layer of an open workspace: main says when, the data layer does
// it. The main side knows connectivity, wake-ups and the schedule, and sends
// 'replay-now' and 'sync-now'; the data layer replays the outbox (the function the outbox
// module provides) and runs sync. A change the user makes says so itself once
// its transaction has committed (`queued`): the replay starts shortly after,
// or, if a pass is under way, one more pass follows it. Whether there is work
// is never guessed from a count read later, which a confirm and a new change
// landing between two reads would leave unchanged. Once per start it lists the rows it cannot
// read (problems.ts) and sweeps the staged copies no queued upload names any
// more (outbox/staged.ts). Its state is a row of `meta`, so the UI reads it
// with liveQuery like any cached data:
//
//   const status = liveQuery(() => syncStatus(db))
//
// Storage that is full (storage-full.ts) is the exception: a row cannot be
// written then, so it is told through `onStorage`. What can be fetched again
// goes first (downloaded files, cached stories) and the run is tried again at
// once; while there is still no room, sync waits and tries again on a widening
// schedule, and on the user's Sync now, until a run gets through.
import type { EventChannel, EventOf, ScheduleTrigger } from '../../../src-shared/ipc.ts'
import type { OutpostDb } from './db.ts'
import { handedRowsEnded, handRows } from './handed-rows.ts'
import { reportCacheProblems } from './problems.ts'
import type { LockFn } from './lock.ts'
import type { OutboxJournal } from './outbox/journal.ts'
import { restoreFromJournal } from './outbox/restore.ts'
import { sweepStagedCopies } from './outbox/staged.ts'
import type { Transport } from './transport.ts'
import { failureOf } from './transport.ts'
import type { CachedDoc, CachedEpic, CachedFileContent, EntityId } from './types.ts'
import { isStorageFull, StorageFullError, SYNC_PAUSED_MESSAGE } from './storage-full.ts'
import {
  createSyncer,
  isBootstrapped,
  SyncError,
  type SyncKind,
  type SyncOptions,
  type SyncPhase,
  type SyncProgress,
  type SyncReport,
  type Syncer,
  type SyncerOptions,
} from './sync/index.ts'

/** The key of the status row in `meta`. */
export const SYNC_STATUS_KEY = 'sync.status'

export interface SyncStatus {
  /**
   * One row per database, shared by its windows: it tells the state of the run
   * that holds the sync lock, whichever window it is in.
   */
  state: 'idle' | 'syncing' | 'error'
  phase: SyncPhase | null
  /** The kind being fetched and how far along (null between runs). */
  progress: SyncProgress | null
  /** Local time (ms) the last successful run ended. */
  lastSyncedAt: number | null
  /** Every kind has been fetched once: the cache holds the whole workspace. */
  bootstrapped: boolean
  /**
   * Why the last run failed: `kind` is the failure's (network, auth, http, ...);
   * `kinds` the kinds of data that failed when the others went on.
   */
  error: { message: string; kind: string; status?: number; kinds?: SyncKind[] } | null
}

/** A pass waiting out a backoff is woken by the user's new changes at most this often (ms). */
const WAKE_GAP_MS = 1000

/** How often a sync's progress is written to the status, at most (a status bar needs no more). */
const PROGRESS_EVERY_MS = 250

/** Sync waits for room: storage is full (kept in memory: a full cache takes no status row). */
export interface StorageState {
  /** When the run that found it full ended (ms). */
  since: number
  /** When sync tries again by itself (ms). */
  retryAt: number
  message: string
}

export const IDLE_STATUS: SyncStatus = { state: 'idle', phase: null, progress: null, lastSyncedAt: null, bootstrapped: false, error: null }

/** The engine's status (liveQuery-friendly: one read of `meta`). */
export async function syncStatus(db: OutpostDb): Promise<SyncStatus> {
  const row = await db.meta.get(SYNC_STATUS_KEY)
  return { ...IDLE_STATUS, ...(row?.value as Partial<SyncStatus> | undefined) }
}

/** What the engine needs of the renderer's bridge: its events. */
export interface BridgeEvents {
  on<E extends EventChannel>(event: E, listener: (payload: EventOf<E>) => void): () => void
}

export interface DataLayerOptions {
  db: OutpostDb
  transport: Transport
  /** The main side's 'sync-now' and 'replay-now'; without it, runs happen only when asked. */
  bridgeEvents?: BridgeEvents
  /** The outbox's replay (one pass over the queued writes). */
  replay?: EngineReplay
  clock?: () => number
  /** navigator.locks in a window (the default); the sync lock and, for the sweep of staged copies, the outbox lock. */
  lock?: LockFn
  sync?: SyncOptions
  /** Makes the syncer: createSyncer (the default) runs here; a window's runs go to its worker (sync-worker/). */
  syncer?: (config: SyncerOptions) => Syncer
  /** Told when storage is found full (sync waits) and when there is room again (null). */
  onStorage?: (state: StorageState | null) => void
  /** While storage is full, how long sync waits before trying again: the first wait (ms), doubled each time up to `maxMs`. */
  storageRetry?: { firstMs: number; maxMs: number }
  /**
   * The main side's journal of queued changes: once per start, before the first replay, the cache and it are
   * made to agree (what a lost cache had queued comes back; outbox/restore.ts).
   */
  journal?: OutboxJournal
  /** Told when the journal could not be read or restored (replay waits, and it is tried again at the next replay or write). */
  onRestoreError?: (error: unknown) => void
  /**
   * Whether the service may be reachable (the window's connectivity; unknown counts as yes). A change queued while it
   * is not waits for the main side's 'replay-now' on reconnect, or for `queued()` when the window sees it back.
   */
  online?: () => boolean
  /** How long after a queued change its replay starts (ms): a burst of changes (typing, a drop of files) goes as one pass. */
  replayDelayMs?: number
  /**
   * The user said the link is metered: only what they do goes (their changes, what they open, their Sync now),
   * nothing in the background. The main side's schedule is not followed, and a run the user asks for fetches
   * what changed and what was never fetched, without id sweeps, story refreshes or files ahead of use.
   */
  metered?: () => boolean
}

export interface DataLayer {
  /**
   * Runs sync now. While a run is going, further asks share one run after it
   * (which sees whatever they asked for). Resolves with the report, or null
   * when the engine was stopped; a failed run rejects (and the status says why).
   */
  sync(options?: { force?: boolean }): Promise<SyncReport | null>
  /**
   * Runs the outbox's replay now (a sync asked meanwhile waits for it). Asked while a pass runs, it wakes a wait between
   * attempts and makes one more pass once that one ends (however many asks came meanwhile): a change the running pass
   * read past is never left behind. Resolves when the last pass asked for has ended.
   */
  replay(): Promise<void>
  /**
   * A change was queued and its transaction has committed (the actions call it): a replay starts within
   * `replayDelayMs`, or one more pass follows the one under way. Nothing while the service is known to be unreachable.
   */
  queued(): void
  /**
   * The cache and the journal made to agree (outbox/restore.ts): once per start, and again after a change was kept
   * in the journal only (storage full). Answers whether they do. A write waits for it, so that what it queues comes
   * after what the journal brings back.
   */
  restore(): Promise<boolean>
  refreshEpic(id: number): Promise<CachedEpic | null>
  refreshEpicStories(id: number): Promise<number | null>
  refreshDoc(id: string): Promise<CachedDoc | null>
  openFile(id: EntityId): Promise<CachedFileContent>
  status(): Promise<SyncStatus>
  /** Storage is full and sync waits for room; null when there is room. */
  storage(): StorageState | null
  /**
   * A write of the window's own (a change the user made) found storage full: what can be fetched again is
   * cleared and sync waits for room, as when a run of its own finds it full. What it kept in the journal only is
   * queued by the next replay or write that finds room (the restore runs again).
   */
  storageFull(): Promise<void>
  /** Unsubscribes from the bridge and stops a run under way (it resumes from its checkpoint next time). */
  stop(): Promise<void>
  readonly syncer: Syncer
}

/** One pass over the queued writes; `wake` ends a wait between its attempts at once. */
/** A replay pass; `yieldTo` true ends it before its next step (ReplayOptions.yieldTo). */
export type EngineReplay = ((yieldTo?: () => boolean) => Promise<unknown>) & { wake?: () => void }

export function startDataLayer(options: DataLayerOptions): DataLayer {
  const { db } = options
  const clock = options.clock ?? Date.now
  const controller = new AbortController()
  let stopped = false

  // Status writes go one after another, so the last one written is the last one made.
  let writes: Promise<void> = Promise.resolve()
  const writeStatus = (patch: Partial<SyncStatus>): Promise<void> => {
    const written = writes
      .then(async () => {
        // A database closed under the engine (window closing, account removed) takes no more status.
        if (db.hasBeenClosed()) return
        await db.transaction('rw', db.meta, async () => {
          const current = await syncStatus(db)
          await db.meta.put({ key: SYNC_STATUS_KEY, value: { ...current, ...patch } })
        })
      })
      .catch(() => undefined)
    writes = written
    return written
  }
  // Progress (a report a sync page: 130 in a bootstrap) is written at most every PROGRESS_EVERY_MS,
  // the latest report each time; any other status write takes the one waiting with it, before its own.
  let progress: { latest: SyncProgress; timer: ReturnType<typeof setTimeout> } | null = null
  let progressWrittenAt = -Infinity
  const takeProgress = (): Partial<SyncStatus> => {
    if (!progress) return {}
    clearTimeout(progress.timer)
    const { latest } = progress
    progress = null
    progressWrittenAt = performance.now()
    return { progress: latest, phase: latest.phase }
  }
  const reportProgress = (latest: SyncProgress): void => {
    if (progress) {
      progress.latest = latest
      return
    }
    const wait = Math.max(0, progressWrittenAt + PROGRESS_EVERY_MS - performance.now())
    progress = { latest, timer: setTimeout(() => void writeStatus(takeProgress()), wait) }
  }
  const setStatus = (patch: Partial<SyncStatus>): Promise<void> => writeStatus({ ...takeProgress(), ...patch })

  // Rows that are not what Outpost wrote are skipped everywhere; the list of them is made once per start.
  const checked = reportCacheProblems(db, clock()).catch(() => [])
  // What the journal holds and the cache does not (a cache the browser lost) is queued again before anything is
  // replayed: replay waits for it. A try that failed (storage full, the journal unreadable) is tried again at the next
  // replay or write; replayed meanwhile, a later change would reach the service before the earlier ones it restores.
  let restoring: Promise<void> | null = null
  let swept: Promise<unknown> | undefined
  // A write found storage full (and was maybe kept in the journal) as `kept` counts; restores that began after the
  // last one worked as `restored` says. Until they agree a pass under way yields (it ends before its next step and
  // the next pass restores first): a change made after the kept one, sent before it is queued, would be undone by it.
  let kept = 0
  let restored = 0
  const restoreDue = () => kept > restored
  const restoreJournal = (): Promise<void> => {
    if (restoring) return restoring
    const since = kept
    const attempt: Promise<void> = (options.journal ? restoreFromJournal(db, options.journal, { clock, lock: options.lock }) : Promise.resolve()).then(
      () => {
        restored = Math.max(restored, since)
        // Staged copies a crash left behind (no queued upload names them) go once per start, after the journal's
        // uploads are queued again (their copies are still needed); a failure waits for the next start.
        if (!swept) swept = sweepStagedCopies(db, options.transport, options.lock).catch(() => null)
      },
      (error: unknown) => {
        if (restoring === attempt) restoring = null
        options.onRestoreError?.(error)
        if (isStorageFull(error) && !storage) waitForRoom()
        throw error
      },
    )
    restoring = attempt
    return attempt
  }
  const restore = (): Promise<boolean> =>
    stopped
      ? Promise.resolve(false)
      : restoreJournal().then(
          () => true,
          () => false,
        )
  void restore()

  const syncer = (options.syncer ?? createSyncer)({
    db,
    transport: options.transport,
    clock,
    lock: options.lock,
    options: options.sync,
    onProgress: reportProgress,
    onHandOver: (handed) => handRows(db, handed),
  })

  // ---- storage that is full ----
  const retry = { firstMs: 15_000, maxMs: 5 * 60_000, ...options.storageRetry }
  let storage: StorageState | null = null
  let storageTimer: ReturnType<typeof setTimeout> | undefined
  let storageWaits = 0
  /** Files being opened now, by id: never cleared to make room. */
  const opening = new Map<EntityId, number>()

  /** What can be fetched again goes: downloaded contents (on the main side's disk, and their rows), cached stories. */
  const freeSpace = async (): Promise<void> => {
    const keep = [...opening.keys()]
    const ids = keep.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0)
    await options.transport.evictFiles?.(ids).catch((error: unknown) => console.warn('Outpost: clearing downloaded files', error))
    // Removing rows frees room; should even this be refused, the run is tried again all the same.
    await db
      .transaction('rw', [db.fileContents, db.stories, db.storyLists], async () => {
        await db.fileContents.where('id').noneOf(keep).delete()
        await db.stories.clear()
        await db.storyLists.clear()
      })
      .catch(() => undefined)
  }

  const setStorage = (next: StorageState | null) => {
    storage = next
    options.onStorage?.(next)
  }
  /** A run got through: there is room again. */
  const roomAgain = () => {
    if (!storage) return
    clearTimeout(storageTimer)
    storageWaits = 0
    setStorage(null)
  }
  /** Still no room: sync waits (each wait twice the last, up to the most) and tries again; queued changes go first. */
  const waitForRoom = () => {
    if (stopped) return
    const wait = Math.min(retry.maxMs, retry.firstMs * 2 ** storageWaits++)
    clearTimeout(storageTimer)
    storageTimer = setTimeout(
      () =>
        background(() =>
          replay()
            .catch(() => undefined)
            .then(() => sync()),
        ),
      wait,
    )
    setStorage({ since: storage?.since ?? clock(), retryAt: clock() + wait, message: SYNC_PAUSED_MESSAGE })
  }

  // ---- replay ----
  // One pass at a time. An ask while one runs (`again`) makes one more pass after it: the running pass may have read the
  // outbox for the last time before the change that asked was committed.
  let replaying: Promise<void> | null = null
  let again = false
  const passes = async (pass: EngineReplay): Promise<void> => {
    do {
      await restoreJournal()
      again = false
      try {
        await pass(restoreDue)
        // Yielded to a restore: one more pass, after it.
        if (restoreDue()) again = true
      } catch (error) {
        // A pass stops where storage refused a write (a record sent stays in flight, to be reconciled).
        if (isStorageFull(error) && !storage) waitForRoom()
        // An ask made during the failed pass still gets its own; else the failure is the answer.
        if (!again || stopped) throw error
      }
    } while (again && !stopped)
  }
  const replay = (): Promise<void> => {
    if (!options.replay || stopped) return Promise.resolve()
    if (replaying) {
      again = true
      // Asked again while a pass waits between attempts (Send now, the service back): it tries at once.
      options.replay.wake?.()
      return replaying
    }
    replaying = passes(options.replay).finally(() => {
      replaying = null
    })
    return replaying
  }

  // A change queued: replayed shortly (a burst goes as one pass), or after the pass under way. A pass waiting out a
  // backoff (the service failed a moment ago) is woken to try the new change at once, at most once a WAKE_GAP_MS: the
  // service may be back, and the user's changes must not wait out a minute's backoff; nor hammer one still failing.
  const replayDelayMs = options.replayDelayMs ?? 250
  let soon: ReturnType<typeof setTimeout> | undefined
  let wokenAt = -Infinity
  const queued = (): void => {
    if (!options.replay || stopped || options.online?.() === false) return
    if (replaying) {
      again = true
      if (clock() - wokenAt >= WAKE_GAP_MS) {
        wokenAt = clock()
        options.replay.wake?.()
      }
      return
    }
    soon ??= setTimeout(() => {
      soon = undefined
      background(replay)
    }, replayDelayMs)
  }

  const runSyncer = (force: boolean, prefetch: boolean) =>
    syncer
      .sync({
        force,
        // Files are not downloaded ahead of use while room is short: that room is what was just cleared.
        prefetch,
        metered: options.metered?.() === true,
        signal: controller.signal,
        started: () => setStatus({ state: 'syncing', progress: null, error: null }),
        // The lists are stored: the workspace is synced, whatever files are still downloaded ahead of use.
        listed: async () => {
          listedInRun = true
          await setStatus({ state: 'idle', phase: null, progress: null, lastSyncedAt: clock(), bootstrapped: await isBootstrapped(db), error: null })
        },
      })
      // The rows it handed this window are in the cache now, or will not be.
      .finally(() => handedRowsEnded(db))

  const runOnce = async (force: boolean): Promise<SyncReport | null> => {
    if (stopped) return null
    // Queued changes reach the server before the cache is refreshed over them.
    await replaying?.catch(() => undefined)
    try {
      let report: SyncReport
      try {
        report = await runSyncer(force, storage === null)
      } catch (error) {
        // Found full: what can be fetched again is cleared and the run goes again at once (once, not on each retry).
        if (!isStorageFull(error) || storage || controller.signal.aborted) throw error
        await freeSpace()
        report = await runSyncer(force, false)
      }
      await setStatus({ state: 'idle', phase: null, progress: null, lastSyncedAt: clock(), bootstrapped: await isBootstrapped(db), error: null })
      roomAgain()
      return report
    } catch (error) {
      if (controller.signal.aborted) {
        await setStatus({ state: 'idle', phase: null, progress: null })
        return null
      }
      if (isStorageFull(error)) {
        waitForRoom()
        // Likely refused as well; the window hears it through onStorage either way.
        await setStatus({ state: 'error', progress: null, error: { message: SYNC_PAUSED_MESSAGE, kind: 'storage-full' } })
        throw new StorageFullError(SYNC_PAUSED_MESSAGE, { cause: error })
      }
      const failure = failureOf(error)
      await setStatus({
        state: 'error',
        progress: null,
        bootstrapped: await isBootstrapped(db).catch(() => false),
        error:
          error instanceof SyncError
            ? { message: error.message, kind: error.report.failures[0]?.failure.kind ?? 'http', kinds: error.report.failures.map((f) => f.kind) }
            : { message: failure.message, kind: failure.kind, ...(failure.status !== undefined && { status: failure.status }) },
      })
      throw error
    }
  }

  let current: Promise<SyncReport | null> | null = null
  let next: Promise<SyncReport | null> | null = null
  let nextForce = false
  /** Whether the run under way has stored its lists (said Synced) and now downloads files ahead of use. */
  let listedInRun = false
  let nextAfterListed = false
  const sync = (opts: { force?: boolean } = {}): Promise<SyncReport | null> => {
    if (!current) {
      listedInRun = false
      current = runOnce(opts.force === true).finally(() => {
        current = null
      })
      return current
    }
    nextForce ||= opts.force === true
    // Asked once the run said Synced: what changed since is not in its lists (the window's focus, a reconnect).
    nextAfterListed ||= listedInRun
    if (!next) {
      const running = current
      next = running
        .catch(() => null)
        .then((report) => {
          const force = nextForce
          const afterListed = nextAfterListed
          next = null
          nextForce = false
          nextAfterListed = false
          // A completed bootstrap fetched everything: what was asked meanwhile (the workspace opened, the account
          // added, the service reachable) is answered by it, not by another run straight after. A forced ask
          // (the user's Sync now) still runs, as does one made after the bootstrap stored its lists.
          if (report?.bootstrap && report.failures.length === 0 && !force && !afterListed) return report
          return sync({ force })
        })
    }
    return next
  }

  const background = (run: () => Promise<unknown>) => {
    // Failures of triggered runs are in the status row; nobody awaits these.
    void run().catch(() => undefined)
  }
  const onSync = (trigger: ScheduleTrigger) => {
    // While storage is full, sync tries again on its own schedule; the user's Sync now still goes at once.
    if (storage && trigger.reason !== 'menu') return
    // On a metered link only what the user asks goes: Sync now, and a workspace they just added or opened.
    if (options.metered?.() === true && trigger.reason !== 'menu' && trigger.reason !== 'account') return
    background(() => sync({ force: trigger.reason === 'menu' }))
  }
  const unsubscribe = [options.bridgeEvents?.on('outpost:replay-now', () => background(replay)), options.bridgeEvents?.on('outpost:sync-now', onSync)]

  return {
    syncer,
    sync,
    replay,
    queued,
    refreshEpic: (id) => syncer.refreshEpic(id),
    refreshEpicStories: (id) => syncer.refreshEpicStories(id),
    refreshDoc: (id) => syncer.refreshDoc(id),
    async openFile(id) {
      opening.set(id, (opening.get(id) ?? 0) + 1)
      try {
        return await syncer.openFile(id)
      } finally {
        const left = (opening.get(id) ?? 1) - 1
        if (left > 0) opening.set(id, left)
        else opening.delete(id)
      }
    },
    restore,
    status: () => syncStatus(db),
    storage: () => storage,
    async storageFull() {
      // A write kept in the journal only (it may have been) is queued by the next restore, once there is room; a pass
      // under way yields to it, woken from a backoff to see that.
      if (options.journal) {
        restoring = null
        kept++
        options.replay?.wake?.()
      }
      if (stopped || storage) return
      await freeSpace()
      waitForRoom()
    },
    async stop() {
      stopped = true
      clearTimeout(storageTimer)
      clearTimeout(soon)
      for (const off of unsubscribe) off?.()
      controller.abort(new DOMException('The data layer was stopped.', 'AbortError'))
      await Promise.allSettled([current, next, replaying, checked, restoring])
      // Set once the restore is done.
      await swept
      // Progress still waiting for its turn is of a run that is over.
      if (progress) clearTimeout(progress.timer)
      progress = null
      await writes
    },
  }
}
