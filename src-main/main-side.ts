// The main side put together, without Electron: accounts, the current
// workspace's gateway, connectivity, the sync schedule and the handler table.
// The Electron entry (index.ts) and the browser host (e2e/host) both open it
// and only add their own transport (ipcMain or a WebSocket) and OS hooks.
import { join } from 'node:path'
import type { AppInfo } from '../src-shared/ipc.ts'
import { Accounts } from './accounts/accounts.ts'
import { signInToDemo, type DemoService } from './demo.ts'
import { createGateway } from './gateway/gateway.ts'
import type { GatewayOptions } from './gateway/gateway.ts'
import type { SecretStore } from './secrets/secret-store.ts'
import { systemClock, type Clock } from './connectivity/clock.ts'
import { Connectivity } from './connectivity/connectivity.ts'
import { httpProbe } from './connectivity/probe.ts'
import { SyncSchedule } from './connectivity/schedule.ts'
import { CurrentGateway, type GatewayLike } from './ipc/current-gateway.ts'
import type { HandlerTable } from './ipc/dispatch.ts'
import { createHandlers, type Emit } from './ipc/handlers.ts'
import { PickedFiles } from './ipc/picked-files.ts'

export interface MainSideOptions {
  /** The app's data folder: the accounts file (and the window state) live here. */
  dataDir: string
  /** Downloaded file contents (default: `<dataDir>/files`). */
  fileCacheDir?: string
  secrets: SecretStore
  appInfo: AppInfo
  /** Electron's `net.isOnline()`; the host has no such thing and says true. */
  isOnline: () => boolean
  /** Sends an event to the renderer(s). */
  emit: Emit
  clock?: Clock
  createGateway?: (options: GatewayOptions) => GatewayLike
  /** Background sync period (5 minutes). */
  syncIntervalMs?: number
}

export interface MainSide {
  table: HandlerTable
  accounts: Accounts
  connectivity: Connectivity
  schedule: SyncSchedule
  pickedFiles: PickedFiles
  /** Signs in to the local demo service when no workspace is set up or the demo is the current one (see demo.ts). */
  signInToDemo(demo: DemoService): Promise<boolean>
  /** Starts connectivity monitoring and the schedule (the first replay and sync). */
  start(): void
  close(): Promise<void>
}

export async function openMainSide(options: MainSideOptions): Promise<MainSide> {
  const clock = options.clock ?? systemClock
  const accounts = await Accounts.open({ dataDir: options.dataDir, secrets: options.secrets })
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
  const pickedFiles = new PickedFiles()
  const table = createHandlers({
    accounts,
    secretStore: options.secrets,
    gateway,
    connectivity,
    appInfo: options.appInfo,
    pickedFiles,
    fileCacheDir: options.fileCacheDir ?? join(options.dataDir, 'files'),
    emit: options.emit,
    // A new workspace (or a new token) is a reason to replay and sync at once.
    accountsChanged: (current) => {
      if (current) schedule.now('account')
    },
  })

  return {
    table,
    accounts,
    connectivity,
    schedule,
    pickedFiles,
    async signInToDemo(demo) {
      const signedIn = await signInToDemo(accounts, options.dataDir, demo)
      if (signedIn) await gateway.reset()
      return signedIn
    },
    start() {
      connectivity.start()
      schedule.start()
    },
    async close() {
      schedule.stop()
      connectivity.stop()
      await gateway.reset()
    },
  }
}
