// The sync engine: fills the cache from the service (bootstrap, then
// incremental runs), loads details on open, and keeps file contents. One run
// at a time per database across windows (the sync lock).
import type { OutpostDb } from '../db.ts'
import type { Transport } from '../transport.ts'
import type { HandedRows } from '../handed-rows.ts'
import type { CachedDoc, CachedEpic, CachedFileContent, EntityId } from '../types.ts'
import { DEFAULT_SYNC_OPTIONS, type SyncContext, type SyncOptions, type SyncProgress } from './context.ts'
import { openFile } from './files.ts'
import { platformLock, syncLockName, type LockFn } from '../lock.ts'
import { refreshDoc, refreshEpic, refreshEpicStories } from './refresh.ts'
import { runSync, type RunOptions, type SyncReport } from './sync.ts'

export { DEFAULT_SYNC_OPTIONS, type SyncOptions, type SyncPhase, type SyncProgress } from './context.ts'
export { SYNC_KINDS, isBootstrapped, readCheckpoints, type KindCheckpoint, type SyncKind } from './checkpoints.ts'
export { SyncError, type RunOptions, type SyncReport } from './sync.ts'
export { FileGoneError } from './files.ts'
export { platformLock, processLock, syncLockName, type LockFn } from '../lock.ts'
export * as convert from '../convert.ts'

export interface SyncerOptions {
  db: OutpostDb
  transport: Transport
  clock: () => number
  /** navigator.locks where there is one, else an in-process mutex. */
  lock?: LockFn
  options?: SyncOptions
  onProgress?: (progress: SyncProgress) => void
  /** Told the rows of a bootstrap's lists before they are stored (SyncContext.handOver). */
  onHandOver?: (handed: HandedRows) => void
}

export interface Syncer {
  readonly options: Required<SyncOptions>
  /**
   * One run (the bootstrap, or what is new since the last run) under the sync
   * lock: while another window's run holds it, this one waits its turn.
   * `started` is called once the lock is held.
   */
  sync(run?: RunOptions & { signal?: AbortSignal; started?: () => void | Promise<void> }): Promise<SyncReport>
  /** An epic with its full comments, health history and doc links; null when it was deleted on the service. */
  refreshEpic(id: number): Promise<CachedEpic | null>
  /** An epic's stories alone (when the user follows it): how many, or null when the epic was deleted on the service. */
  refreshEpicStories(id: number): Promise<number | null>
  /** A doc in both formats with its epic links; null when it was deleted on the service. */
  refreshDoc(id: string): Promise<CachedDoc | null>
  /** A file's content on disk, downloaded if need be (FileGoneError when the file was deleted on the service). */
  openFile(id: EntityId): Promise<CachedFileContent>
}

export function createSyncer(config: SyncerOptions): Syncer {
  const options: Required<SyncOptions> = { ...DEFAULT_SYNC_OPTIONS, ...config.options }
  const lock = config.lock ?? platformLock()
  const { db, transport, clock } = config
  return {
    options,
    sync: (run = {}) =>
      lock(syncLockName(db.name), async () => {
        await run.started?.()
        const ctx: SyncContext = { db, transport, clock, options, signal: run.signal, progress: (p) => config.onProgress?.(p), handOver: config.onHandOver }
        return runSync(ctx, run)
      }),
    refreshEpic: (id) => refreshEpic({ db, transport, clock }, id),
    refreshEpicStories: (id) => refreshEpicStories({ db, transport, clock }, id),
    refreshDoc: (id) => refreshDoc({ db, transport }, id),
    openFile: (id) => openFile({ db, transport, clock, budgetBytes: options.fileBudgetBytes }, id),
  }
}
