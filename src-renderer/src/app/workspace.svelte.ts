// The open workspace: its cache (one Dexie database per base URL + slug), the
// transport over the bridge, the data layer that fills the cache and replays
// the outbox when main says so, the actions every write goes through, local
// search, and opening and reading downloaded files. It is what the feature
// screens get (features/context.ts) and what the status bar and the pending
// panel read: connectivity, the engine's status and the outbox's, all as plain
// $state fed by events and by reads of the cache made again as it changes (data/live-source.ts).
import type { AccountInfo, ConnectivityState } from '../../../src-shared/ipc.ts'
import { outboxActions, type Actions } from '../data/actions.ts'
import { bridgeTransport } from '../data/bridge-transport.ts'
import type { OutpostDb } from '../data/db.ts'
import { workspaceDb } from '../first-paint/early-cache.ts'
import { IDLE_STATUS, startDataLayer, SYNC_STATUS_KEY, syncStatus, type DataLayer, type StorageState, type SyncStatus } from '../data/data-layer.ts'
import { metaRow, tablesSource } from '../data/live-source.ts'
import { isStorageFull, WRITE_KEPT_MESSAGE } from '../data/storage-full.ts'
import { outboxStatus, type OutboxStatus } from '../data/outbox/index.ts'
import { PAUSE_KEY } from '../data/outbox/records.ts'
import { bridgeJournal, RESTORED_KEY, type Restored } from '../data/outbox/journal.ts'
import { createDeferredSearch } from '../data/search/deferred.ts'
import { startSyncWorker, type SyncWorker } from '../data/sync-worker/start.ts'
import type { LocalSearch } from '../data/search/search.ts'
import { failureOf, type Transport } from '../data/transport.ts'
import type { EntityId } from '../data/types.ts'
import type { Workspace, WorkspaceSync } from '../features/context.ts'
import type { Bridge } from '../lib/bridge.ts'
import { router } from '../lib/router.svelte.ts'
import { workspaceFiles, type OpenedFiles } from './file-opener.ts'
import { notices } from '../lib/notices.svelte.ts'
import { withUploadProgress } from '../features/files/uploads.svelte.ts'
import { replayFor } from './replay.ts'
import { metered } from './metered.svelte.ts'

/** Whether this token may write, as last learned (kept in `meta`, so it is known offline too). */
export interface Access {
  canWrite: boolean
  /** Why not, in the user's words. */
  reason?: string
  checkedAt: number
}

const ACCESS_KEY = 'shell:access'
/** The notice that says storage is full (taken away once there is room). */
const STORAGE_TOPIC = 'storage-full'
const EMPTY_OUTBOX: OutboxStatus = { pending: 0, inFlight: 0, failed: 0, conflicts: 0, oldestPendingAt: null, oldestPendingAgeMs: null, paused: null }

export class OpenWorkspace implements Workspace {
  readonly db: OutpostDb
  readonly transport: Transport
  readonly actions: Actions
  readonly search: LocalSearch
  readonly engine: DataLayer

  online = $state<boolean | undefined>(undefined)
  onlineSince = $state<number | null>(null)
  access = $state<Access>({ canWrite: true, checkedAt: 0 })
  status = $state<SyncStatus>(IDLE_STATUS)
  outbox = $state<OutboxStatus>(EMPTY_OUTBOX)
  /** The engine's status row has been read once (before that, "loading"). */
  ready = $state(false)
  /** Storage is full and sync waits for room (null: there is room). */
  storage = $state<StorageState | null>(null)
  /** Changes kept in the journal only while storage is full (queued once there is room). */
  keptAside = $state(0)
  /** Changes brought back from the outbox journal at this start (the browser's storage was lost), until dismissed. */
  restored = $state<Restored | null>(null)

  readonly sync: WorkspaceSync
  /** Opening a downloaded file (the OS's app; a preview tab in a browser) and reading its bytes (thumbnails, previews). */
  readonly files: OpenedFiles
  private stops: (() => void)[] = []
  /** Where the sync's runs happen (null: in this window). */
  private readonly syncWorker: SyncWorker | null
  private closed = false
  private readonly closing = new AbortController()

  constructor(
    readonly account: AccountInfo,
    private readonly bridge: Bridge,
  ) {
    this.db = workspaceDb(account.baseUrl, account.workspaceSlug)
    this.transport = bridgeTransport(bridge)
    // Every queued change is also kept by the main side, outside the browser's storage.
    const journal = bridgeJournal(bridge, account.id)
    this.actions = outboxActions({
      db: this.db,
      transport: this.transport,
      canWrite: () => this.access.canWrite,
      // Meanwhile room is made and sync waits for it. A change kept in the journal is made once there is room; one
      // refused (kept nowhere) stays on its screen, which says why.
      onStorageFull: (kept) => {
        void this.engine.storageFull()
        if (kept && !this.closed) {
          this.keptAside++
          notices.show(WRITE_KEPT_MESSAGE, 'error', undefined, STORAGE_TOPIC)
        }
      },
      journal,
      ready: () => this.engine.restore(),
      // The change itself tells the replay, once committed: it goes within a moment while online.
      onQueued: () => this.engine.queued(),
    })
    this.syncWorker = startSyncWorker(bridge)
    this.engine = startDataLayer({
      db: this.db,
      transport: this.transport,
      // The runs (a bootstrap's requests, conversions and writes) go to a worker: this window stays free for its screens.
      ...(this.syncWorker && { syncer: this.syncWorker.syncer }),
      bridgeEvents: bridge,
      // Uploads report per-file progress to the files tray.
      replay: replayFor(this.db, withUploadProgress(this.transport), this.closing.signal, undefined, journal),
      onStorage: (state) => this.storageChanged(state),
      journal,
      onRestoreError: (error) => console.error('Outpost: the outbox journal could not be read', error),
      online: () => this.online !== false,
      // Only what the user does goes while they say the link is metered.
      metered: () => metered.on,
    })
    this.search = createDeferredSearch(this.db, { onError: (error) => console.error('Outpost search:', error) })
    this.sync = {
      refreshEpic: (id: number) => this.engine.refreshEpic(id),
      refreshEpicStories: (id: number) => this.engine.refreshEpicStories(id),
      refreshDoc: (id: string) => this.engine.refreshDoc(id),
      openFile: (id: EntityId) => this.engine.openFile(id),
    }
    this.files = workspaceFiles(bridge)
  }

  get canWrite(): boolean {
    return this.access.canWrite
  }

  /** Starts listening and the first replay and sync (main's own 'start' trigger may have come before this window was ready). */
  start = async (): Promise<void> => {
    // Each read again when its own rows change (tablesSource: not a Dexie liveQuery, which would gather every commit's keys).
    this.stops.push(
      tablesSource(this.db, [metaRow(SYNC_STATUS_KEY)], () => syncStatus(this.db))({
        next: (status) => {
          this.status = status
          this.ready = true
        },
        error: (error) => console.error('Outpost: sync status', error),
      }),
      tablesSource(this.db, [{ table: 'outbox' }, metaRow(PAUSE_KEY)], () => outboxStatus(this.db))({
        next: (status) => {
          this.outbox = status
          if (status.paused?.reason === 'read-only' && this.access.canWrite)
            void this.setAccess({ canWrite: false, reason: status.paused.message, checkedAt: Date.now() })
        },
        error: (error) => console.error('Outpost: outbox status', error),
      }),
      tablesSource(this.db, [metaRow(RESTORED_KEY)], () => this.db.meta.get(RESTORED_KEY))({
        next: (row) => (this.restored = (row?.value as Restored | undefined) ?? null),
        error: (error) => console.error('Outpost: restored changes', error),
      }),
    )
    this.stops.push(this.bridge.on('outpost:connectivity', (state) => this.connectivity(state)))
    // Metered mode turned off: what it held back (what changed, the sweeps due, files ahead of use) goes now.
    this.stops.push(metered.onOff(() => void this.engine.sync().catch(() => undefined)))
    void this.bridge
      .call('outpost:connectivity.get')
      .then((state) => this.connectivity(state))
      .catch(() => undefined)

    // Who "me" is, so a comment written offline shows its author before replay has asked the service.
    if (!(await this.db.meta.get('outbox:me').catch(() => undefined)))
      await this.db.meta.put({ key: 'outbox:me', value: this.account.memberId }).catch(() => undefined)
    const saved = (await this.db.meta.get(ACCESS_KEY).catch(() => undefined))?.value as Access | undefined
    if (saved && !this.closed) this.access = saved
    void this.checkAccess()
    void this.engine
      .replay()
      .catch(() => undefined)
      .then(() => this.engine.sync())
      .catch(() => undefined)
  }

  close = async (): Promise<void> => {
    if (this.closed) return
    this.closed = true
    for (const stop of this.stops.splice(0)) stop()
    this.search.dispose()
    this.closing.abort()
    await this.engine.stop().catch(() => undefined)
    this.syncWorker?.terminate()
    this.db.close()
  }

  /** Replays the outbox, then syncs; says how it went. */
  syncNow = async (): Promise<void> => {
    try {
      await this.engine.replay()
      await this.engine.sync({ force: true })
    } catch (error) {
      if (isStorageFull(error)) notices.show(failureOf(error).message, 'error', undefined, STORAGE_TOPIC)
      else notices.show(`Sync failed: ${failureOf(error).message}`, 'error')
      throw error
    }
  }

  /** Storage found full (said once, until there is room again), or room again. */
  private storageChanged(state: StorageState | null): void {
    const was = this.storage
    this.storage = state
    if (this.closed) return
    if (state && !was) notices.show(state.message, 'error', { label: 'Sync now', run: () => void this.syncNow().catch(() => undefined) }, STORAGE_TOPIC)
    if (!state && was) {
      // Room again: what was kept aside is queued by then (the replay that comes before the sync restores it).
      this.keptAside = 0
      notices.dismissAbout(STORAGE_TOPIC)
      notices.show('There is room again: sync resumed.', 'success')
    }
  }

  notify = (message: string, kind: 'info' | 'error' = 'info'): void => {
    notices.show(message, kind)
  }

  navigate = (hash: string): void => router.go(hash)

  /** The user has read that changes were brought back from the journal. */
  dismissRestored = (): void => {
    this.restored = null
    void this.db.meta.delete(RESTORED_KEY).catch(() => undefined)
  }

  private connectivity(state: ConnectivityState): void {
    const back = state.online && this.online === false
    this.online = state.online
    // Changes queued while the service was out of reach (each told the engine nothing) go now. The main side's
    // 'replay-now' on reconnect may have come before this window knew it was online.
    if (back) this.engine.queued()
    this.onlineSince = state.since
  }

  /**
   * A read-only token (v4 scopes without `write`) or an Observer cannot write:
   * the screens say so instead of offering edits that could only fail.
   */
  private checkAccess = async (): Promise<void> => {
    try {
      if (this.account.tokenKind !== 'v4') return
      // The token's scopes as the sign-in's check found them (a token's never change); asked again only for an
      // account added before they were kept.
      const scopes =
        this.account.scopes ?? (await this.transport.call<{ authorization?: { scopes?: string[] } }>('whoami', { lane: 'user-read' }))?.authorization?.scopes
      let access: Access = { canWrite: true, checkedAt: Date.now() }
      if (Array.isArray(scopes) && !scopes.includes('write')) {
        access = {
          canWrite: false,
          reason: 'This workspace was added with a read-only API token: you can read everything, but not change it.',
          checkedAt: Date.now(),
        }
      } else {
        const me = await this.db.members.get(this.account.memberId)
        if (me?.role === 'observer')
          access = { canWrite: false, reason: 'You are an Observer in this workspace: you can read everything, but not change it.', checkedAt: Date.now() }
      }
      await this.setAccess(access)
    } catch {
      // Offline or refused: keep what we knew.
    }
  }

  private async setAccess(access: Access): Promise<void> {
    if (this.closed) return
    this.access = access
    await this.db.meta.put({ key: ACCESS_KEY, value: access }).catch(() => undefined)
  }
}
