// `npm run web` put together: the browser host, the very same main side the
// Electron app opens, and, when no workspace is set up (or the demo is the
// current one), the local service with the demo workspace, signed in to.
import { mkdir } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { startService, type RunningService } from '../../src-server/index.ts'
import { previousDemo, previousPort, wantsDemo } from '../../src-main/demo.ts'
import { openMainSide, type MainSide } from '../../src-main/main-side.ts'
import { KeychainStore, loadKeytar } from '../../src-main/secrets/keychain.ts'
import { reasonOf, type SecretStore } from '../../src-main/secrets/secret-store.ts'
import { startHost, type Host } from './host.ts'
import { MemorySecretStore } from './memory-secrets.ts'

export interface WebAppOptions {
  /** The built renderer (out/renderer). */
  rendererDir: string
  /** Accounts, the demo database, staged and downloaded files. */
  dataDir: string
  port?: number
  /** Default: the OS keychain when it answers, else memory (see MemorySecretStore). */
  secrets?: SecretStore
  /** Start the demo service when no workspace is set up (default true). */
  demo?: boolean
  /** Background sync period (5 minutes). */
  syncIntervalMs?: number
}

export interface WebApp {
  host: Host
  side: MainSide
  /** The demo service, when one was started. */
  service?: RunningService
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

async function startDemoService(dataDir: string, port: number): Promise<RunningService> {
  const db = join(dataDir, 'demo.db')
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
  const host = await startHost({ rendererDir: options.rendererDir, stagingDir: join(options.dataDir, 'staged'), port: options.port })
  let side: MainSide | undefined
  let service: RunningService | undefined
  try {
    side = await openMainSide({
      dataDir: options.dataDir,
      secrets,
      appInfo: { name: 'Outpost', version: packageVersion(), platform: process.platform, shell: 'browser' },
      // Plain Node has no view of the OS network; request outcomes and probes tell instead.
      isOnline: () => true,
      emit: host.emit,
      syncIntervalMs: options.syncIntervalMs,
    })
    host.attach(side)

    const previous = await previousDemo(options.dataDir)
    if (options.demo !== false && wantsDemo(side.accounts, previous)) {
      service = await startDemoService(options.dataDir, previousPort(previous))
      await side.signInToDemo({ baseUrl: service.baseUrl, token: service.tokens.admin })
    }
    side.start()
  } catch (error) {
    await side?.close()
    await service?.close()
    await host.close()
    throw error
  }
  const opened = side
  return {
    host,
    side: opened,
    service,
    secrets,
    close: async () => {
      await opened.close()
      await host.close()
      await service?.close()
    },
  }
}
