// The file channels of the handler table (open, read, stage, discard) with
// the real parts: accounts, the gateway, the local service over HTTP, and the
// app's own folders on disk. Only the OS's file opener is a stand-in (a
// recorder in place of Electron's shell.openPath).
import {
  chmodSync,
  closeSync,
  existsSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mainSideKit, type OpenOptions } from '../../testing/main-side-kit.ts'
import { v3 } from '../../testing/service.ts'
import { fileFolder } from '../files/file-cache.ts'
import { accountStagingFolder } from '../files/staging.ts'
import type { MarkSource } from '../files/internet-mark.ts'
import { OPEN_UNSUPPORTED } from './handlers.ts'

const kit = mainSideKit()

/** Every byte value, several times: what a text-only path would mangle. */
const BINARY = Uint8Array.from({ length: 3 * 256 + 17 }, (_, i) => (i * 7 + 3) % 256)

async function open(extra: OpenOptions = {}) {
  const opened: string[] = []
  const shown: string[] = []
  const marked: Array<{ path: string; source: MarkSource; inPlace: string[] }> = []
  const mainSide = await kit.open({
    signedIn: true,
    // Electron's shell.openPath answers '' when the OS opened the file.
    openPath: async (path) => {
      opened.push(path)
      return ''
    },
    showItemInFolder: (path) => void shown.push(path),
    // Where the OS's mark would be written, and what stood in the file's folder under a name of its own then.
    markFile: async (path, source) => void marked.push({ path, source, inPlace: readdirSync(dirname(path)).filter((name) => !name.startsWith('.')) }),
    ...extra,
  })
  return { ...mainSide, opened, shown, marked }
}

describe('files.read', () => {
  it('answers the exact bytes of an uploaded file, downloading it into the cache first', async () => {
    const { ask, side, upload } = await open()
    const id = await upload('chart.png', BINARY)
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
    const { ask, upload } = await open()
    const id = await upload('notes.md', '# Offsite\n'.repeat(100))
    expect((await ask('outpost:files.read', { fileId: id })).ok).toBe(true)
    kit.service.setFaults({ failRate: 1 })
    try {
      const start = await ask('outpost:files.read', { fileId: id, maxBytes: 10 })
      expect(start).toMatchObject({ ok: true, value: { size: 1000, truncated: true, contentType: 'text/markdown' } })
      expect(new TextDecoder().decode(start.value.bytes)).toBe('# Offsite\n')
    } finally {
      kit.service.setFaults({ failRate: 0 })
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
    const { ask, side, opened, upload } = await open()
    const id = await upload('plan.txt', 'the plan')
    expect(await ask('outpost:files.open', { fileId: id })).toEqual({ ok: true, value: { opened: 'with-app' } })
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
    const { ask, upload } = await open({ openPath: async () => 'No application knows how to open this file' })
    const id = await upload('data.heic', 'x')
    expect(await ask('outpost:files.open', { fileId: id })).toMatchObject({
      ok: false,
      error: { source: 'ipc', kind: 'cannot-open', message: 'data.heic could not be opened: No application knows how to open this file' },
    })
  })

  it('opens documents and media with their apps, and shows anything else in its folder with why', async () => {
    const { ask, opened, shown, upload } = await open()
    for (const name of ['plan.pdf', 'Budget.XLSX', 'notes.md', 'photo.jpeg', 'call.m4a', 'demo.mp4', 'old.doc']) {
      const id = await upload(name, 'bytes')
      expect(await ask('outpost:files.open', { fileId: id }), name).toEqual({ ok: true, value: { opened: 'with-app' } })
    }
    expect(opened.map((path) => basename(path))).toEqual(['plan.pdf', 'Budget.XLSX', 'notes.md', 'photo.jpeg', 'call.m4a', 'demo.mp4', 'old.doc'])
    expect(shown).toEqual([])

    opened.length = 0
    // Programs and scripts of every OS, the Windows types a list of refusals missed, documents whose macros run,
    // pages whose script runs, archives and disk images, and names with no extension or a hidden one.
    const refused = [
      'setup.exe',
      'Install.command',
      'run.SH',
      'launcher.desktop',
      'help.chm',
      'tool.pyz',
      'addin.xll',
      'dark.theme',
      'fix.diagcab',
      'update.msu',
      'disk.iso',
      'disk.vhdx',
      'remote.rdp',
      'box.wsb',
      'app.appinstaller',
      'explorer.scf',
      'site.website',
      'report.docm',
      'sheet.xlsm',
      'deck.pptm',
      'big.xlsb',
      'page.html',
      'logo.svg',
      'feed.xml',
      'all.zip',
      'invoice.pdf.exe',
      'README',
      'evil.exe.',
    ]
    for (const name of refused) {
      const id = await upload(name, 'MZ')
      const answer = await ask('outpost:files.open', { fileId: id })
      const cached = basename(shown.at(-1) ?? '')
      expect(answer, name).toEqual({
        ok: true,
        value: {
          opened: 'in-folder',
          message: `Outpost opens documents and media directly; ${cached} could run as a program, so it is shown in its folder instead.`,
        },
      })
      // Its bytes can still be read (a preview of a script's text).
      expect((await ask('outpost:files.read', { fileId: id })).value.size).toBe(2)
    }
    expect(shown).toHaveLength(refused.length)
    // A trailing dot, which Windows drops (running evil.exe), is made safe before the type is judged.
    expect(basename(shown.at(-1)!)).toBe('evil.exe_')
    expect(opened).toEqual([])
  })

  it('never hands a program to the OS where there is no file manager to show it in', async () => {
    const { ask, opened, upload } = await open({ showItemInFolder: undefined })
    const id = await upload('setup.exe', 'MZ')
    expect(await ask('outpost:files.open', { fileId: id })).toEqual({
      ok: false,
      error: {
        source: 'ipc',
        kind: 'cannot-open',
        message: 'Outpost opens documents and media directly; setup.exe could run as a program, so Outpost does not open it.',
      },
    })
    expect(opened).toEqual([])
  })

  it('marks every download as come from the internet, with the file’s address, before it stands in the cache', async () => {
    const { ask, side, marked, upload } = await open()
    const id = await upload('plan.pdf', 'the plan')
    expect((await ask('outpost:files.open', { fileId: id })).ok).toBe(true)
    const file = (await v3(kit.service).get(`/files/${id}`)).body as { url: string }
    expect(marked).toEqual([
      { path: expect.stringMatching(/[/\\]\.plan\.pdf\.[0-9a-f]{12}\.part$/), source: { hostUrl: file.url, referrerUrl: kit.service.baseUrl }, inPlace: [] },
    ])
    expect(dirname(marked[0].path)).toBe(fileFolder(side.folders.cache, side.accounts.current()!.id, id))
    const second = await upload('notes.md', 'notes')
    expect((await ask('outpost:files.download', { downloadId: 'd', fileId: second })).ok).toBe(true)
    expect(marked).toHaveLength(2)
    // Cached: opened again with no download, so no second mark.
    expect((await ask('outpost:files.open', { fileId: id })).ok).toBe(true)
    expect(marked).toHaveLength(2)
  })

  it('answers `unsupported` where there is no OS opener (the browser host), before downloading anything', async () => {
    const { ask, side, upload } = await open({ openPath: undefined })
    const id = await upload('plan.txt', 'the plan')
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
    // In the workspace's own staging folder: a sweep for another workspace never touches it.
    expect(dirname(staged.value.path)).toBe(accountStagingFolder(side.folders.staging, side.accounts.current()!.id))
    expect(staged.value.path).toMatch(/[/\\][0-9a-f-]{36}-photo 1\.png$/)
    expect(Array.from(readFileSync(staged.value.path))).toEqual(Array.from(BINARY))

    renameSync(dropped, join(dataDir, 'moved.png'))
    // Never picked in this session (as after a restart): the staging folder is ours.
    const upload = await ask('outpost:files.upload', { uploadId: 'u', paths: [staged.value.path] })
    expect(upload).toMatchObject({ ok: true, value: [{ name: 'photo 1.png', size: BINARY.length }] })
    // Renamed before it went: the name the data layer gives wins.
    const renamed = await ask('outpost:files.upload', { uploadId: 'v', paths: [staged.value.path], names: ['Team photo.png'] })
    expect(renamed).toMatchObject({ ok: true, value: [{ name: 'Team photo.png' }] })
    expect(await ask('outpost:files.upload', { uploadId: 'w', paths: [staged.value.path], names: [] })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request' },
    })

    // A staged copy is staged already (the browser host's case): same path back, no second copy.
    expect(await ask('outpost:files.stage', { path: staged.value.path })).toEqual({ ok: true, value: staged.value })
    expect(readdirSync(dirname(staged.value.path))).toHaveLength(1)

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
    expect(existsSync(side.folders.staging) ? readdirSync(side.folders.staging) : []).toEqual([])
  })

  it('removes a cached content and its empty folders', async () => {
    const { ask, side, upload } = await open()
    const id = await upload('plan.txt', 'the plan')
    const saved = await ask('outpost:files.download', { downloadId: 'd', fileId: id })
    expect(saved.ok).toBe(true)
    expect(await ask('outpost:files.discard', { path: saved.value.path })).toEqual({ ok: true })
    expect(existsSync(saved.value.path)).toBe(false)
    expect(existsSync(dirname(saved.value.path))).toBe(false)
    expect(existsSync(side.folders.cache)).toBe(true)
  })

  it('downloads a file whose address and name the renderer has with one request, and never to another origin', async () => {
    const { ask, upload } = await open()
    const id = await upload('known.txt', 'known bytes')
    const row = (await v3(kit.service, kit.service.tokens.admin).get(`/files/${id}`)).body as { url: string; name: string }
    const paths: string[] = []
    const watch = (req: { url?: string }) => paths.push(new URL(req.url ?? '', 'http://x').pathname)
    kit.service.app.server.on('request', watch)
    try {
      const saved = await ask('outpost:files.download', { downloadId: 'k', fileId: id, known: { url: row.url, name: row.name } })
      expect(saved.ok).toBe(true)
      expect(readFileSync(saved.value.path, 'utf8')).toBe('known bytes')
      expect(paths).toEqual([new URL(row.url).pathname])
      // The token goes only to the service's own origin, whatever address the renderer names.
      const elsewhere = await ask('outpost:files.download', { downloadId: 'x', fileId: id, known: { url: 'https://elsewhere.example/steal', name: 'x.txt' } })
      expect(elsewhere).toMatchObject({ ok: false })
      expect(paths).toHaveLength(1)
    } finally {
      kit.service.app.server.off('request', watch)
    }
  })

  it('downloads ahead of use on the prefetch lane, and refuses a lane it does not know', async () => {
    const { ask, upload } = await open()
    const id = await upload('ahead.txt', 'ahead')
    expect((await ask('outpost:files.download', { downloadId: 'p', fileId: id, lane: 'prefetch' })).ok).toBe(true)
    expect(await ask('outpost:files.download', { downloadId: 'q', fileId: id, lane: 'right-now' })).toMatchObject({
      ok: false,
      error: { source: 'ipc', kind: 'invalid-request', message: expect.stringContaining('lane must be one of user-write, user-read, sync, prefetch') },
    })
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
    expect(await ask('outpost:files.discard', { path: join(side.folders.staging, 'a-folder') })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request' },
    })
  })
})

/**
 * A file this process may not read, refused by the OS itself with EACCES:
 * a file of mode 000 for a user; for root, whom no mode stops, a write-only
 * kernel setting (the kernel refuses reading it to anyone). Undefined when
 * neither can be had here.
 */
function fileWeMayNotRead(dir: string): string | undefined {
  if (process.getuid?.() !== 0) {
    const path = join(dir, 'secret.txt')
    writeFileSync(path, 'not for Outpost')
    chmodSync(path, 0o000)
    return path
  }
  for (const path of ['/proc/sys/vm/compact_memory', '/proc/sys/vm/drop_caches']) {
    try {
      closeSync(openSync(path, 'r'))
    } catch (error) {
      if ((error as { code?: string }).code === 'EACCES') return path
    }
  }
  return undefined
}

/** Every file under the staging folder, temporary copies included. */
function stagedFiles(staging: string): string[] {
  return existsSync(staging)
    ? readdirSync(staging, { recursive: true, withFileTypes: true })
        .filter((e) => !e.isDirectory())
        .map((e) => e.name)
    : []
}

describe('files.stage: a dropped file Outpost cannot read', () => {
  it('answers a typed `unreadable` failure saying why, for each way a file cannot be read, and stages nothing', async () => {
    const { ask, side, dataDir } = await open()
    const desktop = join(dataDir, 'Desktop')
    mkdirSync(desktop)
    // ENOENT: moved or deleted between the drop and the copy.
    const removed = join(desktop, 'report.pdf')
    writeFileSync(removed, 'x')
    rmSync(removed)
    // ENOTDIR: a path through what is now a file.
    const plain = join(desktop, 'notes')
    writeFileSync(plain, 'x')
    // ELOOP: a link to itself.
    const loop = join(desktop, 'loop.txt')
    symlinkSync(loop, loop)
    // A folder (EISDIR where the OS says so).
    const folder = join(desktop, 'Holiday photos')
    mkdirSync(folder)
    // A socket: no regular file, and never opened (a pipe would wait for a writer).
    const socketPath = join(desktop, 'agent.sock')
    const socket = createServer()
    await new Promise<void>((resolve) => socket.listen(socketPath, resolve))
    try {
      const cases = [
        { path: removed, message: 'report.pdf is no longer where it was dropped from (moved or deleted): drop it again.' },
        { path: join(plain, 'inside.txt'), message: 'inside.txt is no longer where it was dropped from (moved or deleted): drop it again.' },
        { path: loop, message: 'loop.txt is no longer where it was dropped from (moved or deleted): drop it again.' },
        { path: folder, message: 'Holiday photos is a folder: drop the files in it instead.' },
        { path: socketPath, message: 'agent.sock is not a regular file (a device, a pipe or a socket): Outpost uploads files only.' },
      ]
      for (const { path, message } of cases) {
        side.pickedFiles.add(path)
        expect(await ask('outpost:files.stage', { path }), path).toEqual({ ok: false, error: { source: 'ipc', kind: 'unreadable', message } })
      }
    } finally {
      await new Promise<void>((resolve) => socket.close(() => resolve()))
    }
    expect(stagedFiles(side.folders.staging)).toEqual([])

    // A readable file dropped next is staged as usual.
    const fine = join(desktop, 'fine.txt')
    writeFileSync(fine, 'fine')
    side.pickedFiles.add(fine)
    expect(await ask('outpost:files.stage', { path: fine })).toMatchObject({ ok: true, value: { size: 4 } })
  })

  it('says Outpost is not allowed to read a file the OS refuses it (EACCES), and stages nothing', async (context) => {
    const { ask, side, dataDir } = await open()
    const denied = fileWeMayNotRead(dataDir)
    if (!denied) return context.skip()
    side.pickedFiles.add(denied)
    const name = basename(denied)
    expect(await ask('outpost:files.stage', { path: denied })).toEqual({
      ok: false,
      error: {
        source: 'ipc',
        kind: 'unreadable',
        message: `Outpost is not allowed to read ${name} (permission denied): check its permissions, then drop it again.`,
      },
    })
    expect(stagedFiles(side.folders.staging)).toEqual([])
  })

  it('answers `unreadable` for a staged copy that went away (the browser host stages before the page asks)', async () => {
    const { ask, side } = await open()
    const folder = accountStagingFolder(side.folders.staging, side.accounts.current()!.id)
    mkdirSync(folder, { recursive: true })
    const gone = join(folder, '1b4e28ba-2fa1-11d2-883f-0016d3cca427-notes.txt')
    expect(await ask('outpost:files.stage', { path: gone })).toMatchObject({
      ok: false,
      error: { source: 'ipc', kind: 'invalid-request', message: expect.stringContaining('no longer kept for upload') },
    })
  })
})

describe('files.sweep-staged', () => {
  const HOUR_AGO = new Date(Date.now() - 60 * 60 * 1000)

  it('removes the copies no queued upload names once past the grace period, and nothing else', async () => {
    const { ask, side, dataDir } = await open()
    const stage = async (name: string): Promise<string> => {
      const path = join(dataDir, 'Desktop', name)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, name)
      side.pickedFiles.add(path)
      return (await ask('outpost:files.stage', { path })).value.path as string
    }
    const queued = await stage('queued.txt')
    const orphan = await stage('orphan.txt')
    const justDropped = await stage('just-dropped.txt')
    const folder = dirname(queued)
    // A copy cut short by a crash.
    const partial = join(folder, '.5a1d2b3c-0000-4000-8000-000000000000.part')
    writeFileSync(partial, 'half')
    // A link planted among the copies: removed as a link, its target left alone.
    const precious = join(dataDir, 'thesis.docx')
    writeFileSync(precious, 'four years of work')
    const link = join(folder, 'link.docx')
    symlinkSync(precious, link)
    mkdirSync(join(folder, 'a-folder'))
    for (const path of [queued, orphan, partial]) utimesSync(path, HOUR_AGO, HOUR_AGO)
    lutimesSync(link, HOUR_AGO, HOUR_AGO)
    // Another workspace's copy and one of the old, shared layout: not this outbox's to judge.
    const otherWorkspace = join(side.folders.staging, 'other-account', 'theirs.txt')
    const oldLayout = join(side.folders.staging, '1b4e28ba-2fa1-11d2-883f-0016d3cca427-old.txt')
    mkdirSync(dirname(otherWorkspace), { recursive: true })
    for (const path of [otherWorkspace, oldLayout]) {
      writeFileSync(path, 'keep')
      utimesSync(path, HOUR_AGO, HOUR_AGO)
    }

    // The outbox names the queued copy (and, wrongly, a temporary one: never a real upload's).
    expect(await ask('outpost:files.sweep-staged', { keep: [queued, partial, join(dataDir, 'elsewhere.txt')] })).toEqual({
      ok: true,
      value: { removed: 3, kept: 2 },
    })
    for (const path of [queued, justDropped, precious, otherWorkspace, oldLayout, join(folder, 'a-folder')]) expect(existsSync(path), path).toBe(true)
    for (const path of [orphan, partial]) expect(existsSync(path), path).toBe(false)
    expect(readdirSync(folder).sort()).toEqual([basename(justDropped), basename(queued), 'a-folder'].sort())
    expect(readFileSync(precious, 'utf8')).toBe('four years of work')

    // The kept copy still uploads; a second sweep finds nothing more to do.
    expect(await ask('outpost:files.upload', { uploadId: 'u', paths: [queued] })).toMatchObject({ ok: true, value: [{ name: 'queued.txt' }] })
    expect(await ask('outpost:files.sweep-staged', { keep: [queued] })).toEqual({ ok: true, value: { removed: 0, kept: 2 } })
  })

  it('answers with nothing to do before anything was staged, refuses a malformed list, and needs a workspace', async () => {
    const { ask, side } = await open()
    expect(await ask('outpost:files.sweep-staged', { keep: [] })).toEqual({ ok: true, value: { removed: 0, kept: 0 } })
    for (const request of [undefined, {}, { keep: 'all' }, { keep: [1] }, { keep: [''] }]) {
      expect(await ask('outpost:files.sweep-staged', request), JSON.stringify(request)).toMatchObject({
        ok: false,
        error: { source: 'ipc', kind: 'invalid-request' },
      })
    }
    await side.accounts.remove(side.accounts.current()!.id)
    expect(await ask('outpost:files.sweep-staged', { keep: [] })).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'no-account' } })
  })
})
