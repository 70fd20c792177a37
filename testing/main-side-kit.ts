// For the main side's tests: the demo service, started once for a test file,
// and main sides opened as the shells open theirs, each on a temporary data
// folder, asked through dispatch() as both transports ask. mainSideKit()
// registers the beforeAll/afterAll that start and remove all of it. Never
// used by product code.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect } from 'vitest'
import { dispatch } from '../src-main/ipc/dispatch.ts'
import { openMainSide, type MainSide, type MainSideOptions } from '../src-main/main-side.ts'
import type { RunningService } from '../src-server/index.ts'
import type { EventChannel, IpcResult } from '../src-shared/ipc.ts'
import { MemorySecretStore } from '../src-web/memory-secrets.ts'
import { testService } from './service.ts'

export interface OpenOptions extends Partial<Omit<MainSideOptions, 'appInfo'>> {
  /** Laid over Outpost 0.0.0 on Linux in the Electron shell. */
  appInfo?: Partial<MainSideOptions['appInfo']>
  /** Signs in to the kit's service as its admin; a side starts with no workspace otherwise. */
  signedIn?: boolean
}

export interface OpenedSide {
  side: MainSide
  /** From tempFolder() unless given. */
  dataDir: string
  /** What the side sent to the window, in order (none when `emit` was given). */
  events: Array<[EventChannel, unknown]>
  ask(channel: string, request?: unknown): Promise<IpcResult<any> & { value?: any; error?: any }>
  /** Drops a file on the window and uploads it: its id on the service. */
  upload(name: string, content: Uint8Array | string): Promise<number>
}

export interface MainSideKit {
  /** The demo service; there from beforeAll on. */
  readonly service: RunningService
  open(options?: OpenOptions): Promise<OpenedSide>
  /** A new temporary folder, removed after the file's tests. */
  tempFolder(): string
}

export function mainSideKit(): MainSideKit {
  let service: RunningService | undefined
  const dirs: string[] = []
  const sides: MainSide[] = []

  beforeAll(async () => {
    service = await testService({ seed: 'demo' })
  })
  afterAll(async () => {
    for (const side of sides) await side.close()
    await service?.close()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  const running = (): RunningService => {
    if (!service) throw new Error('The main side kit starts its service in beforeAll.')
    return service
  }

  const tempFolder = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-main-side-'))
    dirs.push(dir)
    return dir
  }

  const open = async ({ appInfo, signedIn = false, ...options }: OpenOptions = {}): Promise<OpenedSide> => {
    const dataDir = options.dataDir ?? tempFolder()
    const events: OpenedSide['events'] = []
    const side = await openMainSide({
      secrets: new MemorySecretStore(),
      isOnline: () => true,
      emit: (event, payload) => void events.push([event, payload]),
      ...options,
      dataDir,
      appInfo: { name: 'Outpost', version: '0.0.0', platform: 'linux', shell: 'electron', ...appInfo },
    })
    sides.push(side)
    if (signedIn) await side.accounts.addAccount(running().baseUrl, running().tokens.admin)
    const ask: OpenedSide['ask'] = (channel, request) => dispatch(side.table, channel, request) as ReturnType<OpenedSide['ask']>
    const upload = async (name: string, content: Uint8Array | string): Promise<number> => {
      const path = join(dataDir, 'dropped', name)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, content)
      side.pickedFiles.add(path)
      const answer = await ask('outpost:files.upload', { uploadId: name, paths: [path] })
      expect(answer.ok).toBe(true)
      return answer.value[0].id as number
    }
    return { side, dataDir, events, ask, upload }
  }

  return {
    get service() {
      return running()
    },
    open,
    tempFolder,
  }
}
