// `npm run web` put together: the browser host, the very same main side the
// Electron app opens, and the local service with the demo workspace: started
// and signed in to at launch when no workspace is set up (or the demo is the
// current one), and on demand when the user asks for the demo.
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { startService, type RunningService } from '../src-server/index.ts'
import { previousDemo, previousPort, wantsDemo } from '../src-main/demo.ts'
import { demoLauncher } from '../src-main/demo-service.ts'
import { openMainSide, type MainSide, type MainSideOptions } from '../src-main/main-side.ts'
import { createGateway, type GatewayOptions } from '../src-main/gateway/gateway.ts'
import { KeychainStore, loadKeytar } from '../src-main/secrets/keychain.ts'
import { reasonOf, type SecretStore } from '../src-main/secrets/secret-store.ts'
import { startHost, type Host, type HostOptions } from './host.ts'
import { MemorySecretStore } from './memory-secrets.ts'

export interface WebAppOptions {
  /** The built renderer (out/renderer). */
  rendererDir: string
  /** Accounts, the demo database, staged and downloaded files. */
  dataDir: string
  port?: number
  /** Default: the OS keychain when it answers, else memory (see MemorySecretStore). */
  secrets?: SecretStore
  /** Start the demo service at launch when no workspace is set up (default true); the demo card starts it either way. */
  demo?: boolean
  /** Background sync period (5 minutes). */
  syncIntervalMs?: number
  /** The service's rate limit when it is not the real 200 a minute (benchmarks scale the window): the gateway paces to it. */
  rateLimit?: GatewayOptions['rateLimit']
  /** Items of a long answer per bridge message (see HostOptions.partItems). */
  partItems?: number
  /** The largest file the page may stage (HostOptions.maxFileBytes). */
  maxFileBytes?: number
  /** Each call a page made, once answered (HostOptions.onCall). */
  onCall?: HostOptions['onCall']
  /**
   * What the desktop app's shell does with a file (Electron's shell.openPath and showItemInFolder), for
   * tests of the window's side of it. A browser host has neither: files.open answers `unsupported`.
   */
  desktopShell?: Pick<MainSideOptions, 'openPath' | 'showItemInFolder'>
}

export interface WebApp {
  host: Host
  side: MainSide
  /** The demo service, once one was started (at launch or by `demo.sign-in`). */
  readonly service: RunningService | undefined
  secrets: SecretStore
  close(): Promise<void>
}

/** The keychain when it works here; memory otherwise, with the reason. */
export async function hostSecretStore(): Promise<{ store: SecretStore; problem?: string }> {
  try {
    const keychain = new KeychainStore(await loadKeytar())
    await keychain.probe()
    return { store: keychain }
  } catch (error) {
    return { store: new MemorySecretStore(), problem: reasonOf(error) }
  }
}

function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version: string }).version
  } catch {
    return '0.0.0'
  }
}

async function startDemoService(dataDir: string): Promise<RunningService> {
  const db = join(dataDir, 'demo.db')
  const port = previousPort(await previousDemo(dataDir))
  try {
    return await startService({ seed: 'demo', db, port })
  } catch (error) {
    // The demo's old port is taken (another Outpost?): any port will do; the demo account moves along.
    if (port !== 0 && (error as { code?: string }).code === 'EADDRINUSE') return startService({ seed: 'demo', db, port: 0 })
    throw error
  }
}

export async function startWebApp(options: WebAppOptions): Promise<WebApp> {
  await mkdir(options.dataDir, { recursive: true })
  const secrets = options.secrets ?? (await hostSecretStore()).store
  const host = await startHost({
    rendererDir: options.rendererDir,
    port: options.port,
    partItems: options.partItems,
    maxFileBytes: options.maxFileBytes,
    onCall: options.onCall,
  })
  let service: RunningService | undefined
  // The service runs in this process; the main side closes it with itself.
  const demo = demoLauncher(async () => {
    const started = await startDemoService(options.dataDir)
    service = started
    return {
      demo: { baseUrl: started.baseUrl, token: started.tokens.admin },
      close: async () => {
        if (service === started) service = undefined
        await started.close()
      },
    }
  })
  let side: MainSide | undefined
  try {
    side = await openMainSide({
      dataDir: options.dataDir,
      secrets,
      appInfo: { name: 'Outpost', version: packageVersion(), platform: process.platform, shell: 'browser' },
      // Plain Node has no view of the OS network; request outcomes and probes tell instead.
      isOnline: () => true,
      emit: host.emit,
      syncIntervalMs: options.syncIntervalMs,
      createGateway: options.rateLimit ? (gateway) => createGateway({ ...gateway, rateLimit: options.rateLimit }) : undefined,
      // No openPath: a browser cannot hand a file to an app of this computer (files.open answers `unsupported`).
      ...options.desktopShell,
      demo,
    })
    host.attach(side)

    if (options.demo !== false && wantsDemo(side.accounts, await previousDemo(options.dataDir))) {
      await side.signInToDemo(await demo.start())
    }
    side.start()
  } catch (error) {
    if (side) await side.close()
    else await demo.close()
    await host.close()
    throw error
  }
  const opened = side
  return {
    host,
    side: opened,
    get service() {
      return service
    },
    secrets,
    close: async () => {
      await opened.close()
      await host.close()
    },
  }
}
