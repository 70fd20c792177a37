// The main side put together, without Electron: accounts, the current
// workspace's gateway, connectivity, the sync schedule, our file folders, the
// demo launcher and the handler table.
// The Electron entry (index.ts) and the browser host (src-web) both open it
// and only add their own transport (ipcMain or a WebSocket) and OS hooks.
import { basename, join } from 'node:path'
import type { AppInfo } from '../src-shared/ipc.ts'
import { Accounts } from './accounts/accounts.ts'
import { signInToDemo, type DemoService } from './demo.ts'
import type { DemoLauncher } from './demo-service.ts'
import { Exports } from './export/exports.ts'
import type { MarkFile } from './files/file-cache.ts'
import type { OwnFolders } from './files/folders.ts'
import { markFromInternet, systemWriters } from './files/internet-mark.ts'
import { createGateway } from './gateway/gateway.ts'
import type { GatewayOptions } from './gateway/gateway.ts'
import type { SecretStore } from './secrets/secret-store.ts'
import { systemClock, type Clock } from './connectivity/clock.ts'
import { Connectivity } from './connectivity/connectivity.ts'
import { httpProbe } from './connectivity/probe.ts'
import { SyncSchedule } from './connectivity/schedule.ts'
import { CurrentGateway, type GatewayLike } from './ipc/current-gateway.ts'
import type { HandlerTable } from './ipc/dispatch.ts'
import type { SystemNotice } from '../src-shared/ipc.ts'
import { toIpcError } from './ipc/errors.ts'
import { createHandlers, type Emit } from './ipc/handlers.ts'
import { Journals } from './journal/journal.ts'
import { LinkInbox } from './shell/link-inbox.ts'
import { PickedFiles } from './ipc/picked-files.ts'
import { RecentLog } from './diagnostics/recent-log.ts'
import { Updates, type Updater } from './updates/updates.ts'

export interface MainSideOptions {
  /** The app's data folder: the accounts file (and the window state) live here. */
  dataDir: string
  /** Downloaded file contents (default: `<dataDir>/files`). */
  fileCacheDir?: string
  /** Copies of dropped files for queued uploads (default: `<dataDir>/staging`). */
  stagingDir?: string
  secrets: SecretStore
  /** What the app says about itself (whether the demo can start follows from `demo`). */
  appInfo: Omit<AppInfo, 'demoAvailable'>
  /** Opens a file with the OS's app for it (Electron's `shell.openPath`); absent in the browser host. */
  openPath?: (path: string) => Promise<string>
  /** Shows a notification of the OS (Electron's `Notification`); absent in the browser host, where the page shows its own. */
  notify?: (notice: SystemNotice, clicked: () => void) => void
  /** Starts the local demo service on demand; absent in a packaged app. Closed with the main side. */
  demo?: DemoLauncher
  /** Electron's `net.isOnline()`; the host has no such thing and says true. */
  isOnline: () => boolean
  /** Sends an event to the renderer(s). */
  emit: Emit
  clock?: Clock
  createGateway?: (options: GatewayOptions) => GatewayLike
  /** Background sync period (5 minutes). */
  syncIntervalMs?: number
  /** Asks the user for a folder to export into (Electron's dialog); absent in the browser host, whose exports go to `<dataDir>/exports`. */
  pickExportFolder?: () => Promise<string | undefined>
  /** The app's updater (electron-updater in a packaged app); absent: updates are off. */
  updater?: Updater
  /** Shows a file in the OS's file manager (Electron's `shell.showItemInFolder`); absent in the browser host. */
  showItemInFolder?: (path: string) => void
  /** Where the recent warnings and errors are kept (a new one by default). */
  log?: RecentLog
  /**
   * Marks a file from the service (a download, a file copied into an export) as come from the internet. By
   * default this OS's mark (internet-mark.ts: Windows' Zone.Identifier, macOS's quarantine, nothing on
   * Linux); one that cannot be written (a disk without streams, no xattr tool) is logged, and the file kept.
   */
  markFile?: MarkFile
}

export interface MainSide {
  table: HandlerTable
  accounts: Accounts
  connectivity: Connectivity
  schedule: SyncSchedule
  pickedFiles: PickedFiles
  /** The staging folder and the file cache. */
  folders: OwnFolders
  /** Deep links the OS handed over (Electron's argv, second-instance, open-url), until the window takes them. */
  links: LinkInbox
  /** The app's own updates: checked from start() on, when there is an updater. */
  updates: Updates
  /** Recent warnings and errors, for a problem report. */
  log: RecentLog
  /** Signs in to the local demo service when no workspace is set up or the demo is the current one (see demo.ts). */
  signInToDemo(demo: DemoService): Promise<boolean>
  /** Starts connectivity monitoring and the schedule (the first replay and sync). */
  start(): void
  close(): Promise<void>
}

export async function openMainSide(options: MainSideOptions): Promise<MainSide> {
  const clock = options.clock ?? systemClock
  const log = options.log ?? new RecentLog(() => clock.now())
  const secrets = knownToLog(options.secrets, log)
  const accounts = await Accounts.open({ dataDir: options.dataDir, secrets })
  const connectivity = new Connectivity({
    clock,
    isOnline: options.isOnline,
    probe: httpProbe({ baseUrl: () => accounts.current()?.baseUrl }),
  })
  const schedule = new SyncSchedule({
    clock,
    online: () => connectivity.online,
    emit: (event, reason) => options.emit(event === 'sync-now' ? 'outpost:sync-now' : 'outpost:replay-now', { reason }),
    intervalMs: options.syncIntervalMs,
  })
  connectivity.onChange((state) => {
    options.emit('outpost:connectivity', state)
    schedule.connectivityChanged(state.online)
  })
  const gateway = new CurrentGateway({
    accounts,
    create: options.createGateway ?? createGateway,
    onReachability: (reached) => connectivity.reportRequest(reached),
  })
  const folders: OwnFolders = {
    staging: options.stagingDir ?? join(options.dataDir, 'staging'),
    cache: options.fileCacheDir ?? join(options.dataDir, 'files'),
  }
  // Staged copies are ours: they upload without a drop of this session (after a restart too).
  const pickedFiles = new PickedFiles({ ownFolders: [folders.staging] })
  const links = new LinkInbox(() => options.emit('outpost:link', {}))
  const updates = new Updates({
    current: options.appInfo.version,
    updater: options.updater,
    off: options.appInfo.shell === 'browser' ? 'browser' : 'development',
    clock,
    onChange: (state) => options.emit('outpost:updates', state),
    onError: (message) => log.warn(message),
  })
  connectivity.onChange((state) => log.info(`${state.online ? 'Online' : 'Offline'} (${state.reason})`))
  const journals = new Journals(options.dataDir)
  const markFile: MarkFile =
    options.markFile ??
    (async (path, source) => {
      try {
        await markFromInternet(path, source, { platform: process.platform, writers: systemWriters })
      } catch (error) {
        log.warn(`Outpost could not mark ${basename(path)} as come from the internet: ${error instanceof Error ? error.message : String(error)}`)
      }
    })
  const table = loggingFailures(
    log,
    createHandlers({
      journals,
      links,
      exports: new Exports({ cacheDir: folders.cache, markFile }),
      markFile,
      pickExportFolder: options.pickExportFolder,
      accounts,
      secretStore: secrets,
      gateway,
      connectivity,
      appInfo: { ...options.appInfo, demoAvailable: options.demo !== undefined },
      pickedFiles,
      dataDir: options.dataDir,
      folders,
      openPath: options.openPath,
      demo: options.demo,
      notify: options.notify,
      emit: options.emit,
      // A new workspace (or a new token) is a reason to replay and sync at once.
      accountsChanged: (current) => {
        if (current) schedule.now('account')
      },
      updates,
      log,
      showItemInFolder: options.showItemInFolder,
    }),
  )

  return {
    table,
    accounts,
    connectivity,
    schedule,
    pickedFiles,
    folders,
    links,
    updates,
    log,
    async signInToDemo(demo) {
      const signedIn = await signInToDemo(accounts, options.dataDir, demo)
      if (signedIn) await gateway.reset()
      return signedIn
    },
    start() {
      connectivity.start()
      schedule.start()
      updates.start()
    },
    async close() {
      links.close()
      updates.stop()
      schedule.stop()
      connectivity.stop()
      // Both at once: on quit, the demo's child process is told to stop before the app is gone.
      await Promise.all([gateway.reset(), options.demo?.close(), journals.close()])
    },
  }
}

/** The secret store, each token it hands out or takes in made known to the log, which then never keeps one in a line. */
function knownToLog(store: SecretStore, log: RecentLog): SecretStore {
  return {
    kind: store.kind,
    get: async (account) => {
      const secret = await store.get(account)
      if (secret) log.keepOut(secret)
      return secret
    },
    set: async (account, secret) => {
      log.keepOut(secret)
      await store.set(account, secret)
    },
    delete: (account) => store.delete(account),
    describe: () => store.describe(),
  }
}

/** Each handler as it was, its failures of Outpost's own (not the service's, nor the request's) kept in the log. */
function loggingFailures(log: RecentLog, table: HandlerTable): HandlerTable {
  const wrapped: Record<string, (request: never, from?: string) => Promise<unknown>> = {}
  for (const [channel, handler] of Object.entries(table) as Array<[string, (request: never, from?: string) => Promise<unknown>]>) {
    wrapped[channel] = async (request, from) => {
      try {
        return await handler(request, from)
      } catch (error) {
        const failure = toIpcError(error)
        if (failure.source === 'ipc' && failure.kind === 'internal') log.error(`${channel}: ${failure.message}`)
        throw error
      }
    }
  }
  return wrapped as HandlerTable
}
