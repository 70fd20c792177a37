// The file channels of the handler table (open, read, stage, discard) with
// the real parts: accounts, the gateway, the local service over HTTP, and the
// app's own folders on disk. Only the OS's file opener is a stand-in (a
// recorder in place of Electron's shell.openPath).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemorySecretStore } from '../../e2e/host/memory-secrets.ts'
import type { RunningService } from '../../src-server/index.ts'
import { testService } from '../../src-server/testing.ts'
import type { IpcResult } from '../../src-shared/ipc.ts'
import { fileFolder } from '../files/file-cache.ts'
import { openMainSide, type MainSide, type MainSideOptions } from '../main-side.ts'
import { dispatch } from './dispatch.ts'
import { OPEN_UNSUPPORTED } from './handlers.ts'

let service: RunningService
const dirs: string[] = []
const sides: MainSide[] = []

/** Every byte value, several times: what a text-only path would mangle. */
const BINARY = Uint8Array.from({ length: 3 * 256 + 17 }, (_, i) => (i * 7 + 3) % 256)

async function open(extra: Partial<MainSideOptions> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-file-handlers-'))
  dirs.push(dataDir)
  const opened: string[] = []
  const side = await openMainSide({
    dataDir,
    secrets: new MemorySecretStore(),
    appInfo: { name: 'Outpost', version: '0.0.0', platform: 'linux', shell: 'electron' },
    isOnline: () => true,
    emit: () => undefined,
    // Electron's shell.openPath answers '' when the OS opened the file.
    openPath: async (path) => {
      opened.push(path)
      return ''
    },
    ...extra,
  })
  sides.push(side)
  const ask = (channel: string, request?: unknown) => dispatch(side.table, channel, request) as Promise<IpcResult<any> & { value?: any }>
  await side.accounts.addAccount(service.baseUrl, service.tokens.admin)
  /** A file the user dropped, uploaded: its id on the service. */
  const uploaded = async (name: string, content: Uint8Array | string): Promise<number> => {
    const path = join(dataDir, 'dropped', name)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, content)
    side.pickedFiles.add(path)
    const answer = await ask('outpost:files.upload', { uploadId: name, paths: [path] })
    expect(answer.ok).toBe(true)
    return answer.value[0].id as number
  }
  return { side, ask, dataDir, opened, uploaded }
}

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})

afterAll(async () => {
  for (const side of sides) await side.close()
  await service.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

describe('files.read', () => {
  it('answers the exact bytes of an uploaded file, downloading it into the cache first', async () => {
    const { ask, side, uploaded } = await open()
    const id = await uploaded('chart.png', BINARY)
    const read = await ask('outpost:files.read', { fileId: id })
    expect(read.ok).toBe(true)
    expect(read.value.bytes).toBeInstanceOf(Uint8Array)
    expect(Buffer.isBuffer(read.value.bytes)).toBe(false)
    expect(Array.from(read.value.bytes as Uint8Array)).toEqual(Array.from(BINARY))
    expect(read.value).toMatchObject({ size: BINARY.length, truncated: false, contentType: 'image/png' })
    // What Electron's IPC does to it on the way to the page.
    expect(Array.from(structuredClone(read.value.bytes) as Uint8Array)).toEqual(Array.from(BINARY))
    const cached = readdirSync(fileFolder(side.folders.cache, side.accounts.current()!.id, id))
    expect(cached).toEqual(['chart.png'])
  })

  it('reads a cached file with no network, and only the first maxBytes when asked', async () => {
    const { ask, uploaded } = await open()
    const id = await uploaded('notes.md', '# Offsite\n'.repeat(100))
    expect((await ask('outpost:files.read', { fileId: id })).ok).toBe(true)
    service.setFaults({ failRate: 1 })
    try {
      const start = await ask('outpost:files.read', { fileId: id, maxBytes: 10 })
      expect(start).toMatchObject({ ok: true, value: { size: 1000, truncated: true, contentType: 'text/markdown' } })
      expect(new TextDecoder().decode(start.value.bytes)).toBe('# Offsite\n')
    } finally {
      service.setFaults({ failRate: 0 })
    }
  })

  it('says so for a file the service does not have, and refuses malformed requests', async () => {
    const { ask } = await open()
    expect(await ask('outpost:files.read', { fileId: 99_999_999 })).toMatchObject({ ok: false, error: { source: 'gateway', kind: 'http', status: 404 } })
    expect(await ask('outpost:files.read', { fileId: '12' })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(await ask('outpost:files.read', { fileId: 1, maxBytes: -1 })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
  })
})

describe('files.open', () => {
  it('opens the cached content with the OS, downloading it first', async () => {
    const { ask, side, opened, uploaded } = await open()
    const id = await uploaded('plan.txt', 'the plan')
    expect(await ask('outpost:files.open', { fileId: id })).toEqual({ ok: true })
    expect(opened).toHaveLength(1)
    expect(opened[0].startsWith(side.folders.cache)).toBe(true)
    expect(readFileSync(opened[0], 'utf8')).toBe('the plan')
  })

  it('refuses a "cached" file that leads outside the cache folder, and never hands it to the OS', async () => {
    const { ask, side, dataDir, opened } = await open()
    const secret = join(dataDir, 'id_rsa')
    writeFileSync(secret, 'PRIVATE KEY')
    // A link planted where the cache would keep file 424242's content.
    const folder = fileFolder(side.folders.cache, side.accounts.current()!.id, 424242)
    mkdirSync(folder, { recursive: true })
    symlinkSync(secret, join(folder, 'report.pdf'))
    expect(await ask('outpost:files.open', { fileId: 424242 })).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
    expect(await ask('outpost:files.read', { fileId: 424242 })).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
    expect(opened).toEqual([])
    // A link to a folder outside, standing for the whole cache of an account, is refused the same way.
    const outside = join(dataDir, 'elsewhere')
    mkdirSync(join(outside, '77'), { recursive: true })
    writeFileSync(join(outside, '77', 'x.txt'), 'not ours')
    rmSync(dirname(folder), { recursive: true })
    symlinkSync(outside, dirname(folder))
    expect(await ask('outpost:files.open', { fileId: 77 })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(opened).toEqual([])
  })

  it('passes on why the OS could not open it', async () => {
    const { ask, uploaded } = await open({ openPath: async () => 'No application knows how to open this file' })
    const id = await uploaded('data.xyz', 'x')
    expect(await ask('outpost:files.open', { fileId: id })).toMatchObject({
      ok: false,
      error: { source: 'ipc', kind: 'cannot-open', message: 'data.xyz could not be opened: No application knows how to open this file' },
    })
  })

  it('never hands a program or a script to the OS, which would run it', async () => {
    const { ask, opened, uploaded } = await open()
    for (const name of ['setup.exe', 'Install.command', 'run.SH', 'launcher.desktop']) {
      const id = await uploaded(name, 'MZ')
      expect(await ask('outpost:files.open', { fileId: id }), name).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'cannot-open', message: expect.stringContaining('does not run programs') } })
      // Its bytes can still be read (a preview of a script's text).
      expect((await ask('outpost:files.read', { fileId: id })).value.size).toBe(2)
    }
    expect(opened).toEqual([])
  })

  it('answers `unsupported` where there is no OS opener (the browser host), before downloading anything', async () => {
    const { ask, side, uploaded } = await open({ openPath: undefined })
    const id = await uploaded('plan.txt', 'the plan')
    expect(await ask('outpost:files.open', { fileId: id })).toEqual({ ok: false, error: { source: 'ipc', kind: 'unsupported', message: OPEN_UNSUPPORTED } })
    expect(existsSync(fileFolder(side.folders.cache, side.accounts.current()!.id, id))).toBe(false)
  })
})

describe('files.stage and files.discard', () => {
  it('copies a dropped file into the staging folder, and the staged copy uploads after the original moved', async () => {
    const { ask, side, dataDir } = await open()
    const dropped = join(dataDir, 'Desktop', 'photo 1.png')
    mkdirSync(dirname(dropped), { recursive: true })
    writeFileSync(dropped, BINARY)
    side.pickedFiles.add(dropped)

    const staged = await ask('outpost:files.stage', { path: dropped })
    expect(staged).toMatchObject({ ok: true, value: { size: BINARY.length } })
    expect(dirname(staged.value.path)).toBe(side.folders.staging)
    expect(staged.value.path).toMatch(/[/\\][0-9a-f-]{36}-photo 1\.png$/)
    expect(Array.from(readFileSync(staged.value.path))).toEqual(Array.from(BINARY))

    renameSync(dropped, join(dataDir, 'moved.png'))
    // Never picked in this session (as after a restart): the staging folder is ours.
    const upload = await ask('outpost:files.upload', { uploadId: 'u', paths: [staged.value.path] })
    expect(upload).toMatchObject({ ok: true, value: [{ name: 'photo 1.png', size: BINARY.length }] })
    // Renamed before it went: the name the data layer gives wins.
    const renamed = await ask('outpost:files.upload', { uploadId: 'v', paths: [staged.value.path], names: ['Team photo.png'] })
    expect(renamed).toMatchObject({ ok: true, value: [{ name: 'Team photo.png' }] })
    expect(await ask('outpost:files.upload', { uploadId: 'w', paths: [staged.value.path], names: [] })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })

    // A staged copy is staged already (the browser host's case): same path back, no second copy.
    expect(await ask('outpost:files.stage', { path: staged.value.path })).toEqual({ ok: true, value: staged.value })
    expect(readdirSync(side.folders.staging)).toHaveLength(1)

    expect(await ask('outpost:files.discard', { path: staged.value.path })).toEqual({ ok: true })
    expect(existsSync(staged.value.path)).toBe(false)
    // Twice is fine: it is gone either way.
    expect(await ask('outpost:files.discard', { path: staged.value.path })).toEqual({ ok: true })
  })

  it('stages only files the user dropped or picked', async () => {
    const { ask, side, dataDir } = await open()
    const notPicked = join(dataDir, 'accounts.json')
    expect(await ask('outpost:files.stage', { path: notPicked })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(await ask('outpost:files.stage', { path: 'relative/file.txt' })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    const gone = join(dataDir, 'gone.txt')
    side.pickedFiles.add(gone)
    expect(await ask('outpost:files.stage', { path: gone })).toMatchObject({ ok: false, error: { kind: 'invalid-request', message: expect.stringContaining('no longer') } })
    expect(existsSync(side.folders.staging) ? readdirSync(side.folders.staging) : []).toEqual([])
  })

  it('removes a cached content and its empty folders', async () => {
    const { ask, side, uploaded } = await open()
    const id = await uploaded('plan.txt', 'the plan')
    const saved = await ask('outpost:files.download', { downloadId: 'd', fileId: id })
    expect(saved.ok).toBe(true)
    expect(await ask('outpost:files.discard', { path: saved.value.path })).toEqual({ ok: true })
    expect(existsSync(saved.value.path)).toBe(false)
    expect(existsSync(dirname(saved.value.path))).toBe(false)
    expect(existsSync(side.folders.cache)).toBe(true)
  })

  it('refuses any path outside the staging and cache folders, and leaves it alone', async () => {
    const { ask, side, dataDir } = await open()
    const precious = join(dataDir, 'thesis.docx')
    writeFileSync(precious, 'four years of work')
    mkdirSync(side.folders.staging, { recursive: true })
    const outside = join(dataDir, 'elsewhere')
    mkdirSync(outside)
    writeFileSync(join(outside, 'keep.txt'), 'keep')
    symlinkSync(outside, join(side.folders.staging, 'link'))
    const refused = [
      precious,
      join(side.folders.staging, '..', 'thesis.docx'),
      side.folders.staging,
      side.folders.cache,
      join(side.folders.staging, 'link', 'keep.txt'),
      'thesis.docx',
    ]
    for (const path of refused) {
      expect(await ask('outpost:files.discard', { path }), path).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
    }
    expect(readFileSync(precious, 'utf8')).toBe('four years of work')
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep')
    // A folder inside staging is not a file to discard either.
    mkdirSync(join(side.folders.staging, 'a-folder'))
    expect(await ask('outpost:files.discard', { path: join(side.folders.staging, 'a-folder') })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
  })
})
