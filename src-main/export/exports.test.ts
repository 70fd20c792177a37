// Writing an export: the folder it makes, safe paths, what is refused, files
// copied from the cache (never downloaded), and the manifest. On real folders.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fileFolder } from '../files/file-cache.ts'
import type { MarkSource } from '../files/internet-mark.ts'
import { ExportRefused, Exports, ExportWriteFailed, exportPath, type ExportWorkspace } from './exports.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const WORKSPACE: ExportWorkspace = { accountId: 'acct-1', name: 'Demo Co', slug: 'demo-co', baseUrl: 'http://127.0.0.1:4000' }
const AT = Date.parse('2026-11-26T15:20:32.123Z')

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'outpost-export-'))
  dirs.push(root)
  const parent = join(root, 'picked')
  const cache = join(root, 'files')
  mkdirSync(parent)
  mkdirSync(cache)
  const exports = new Exports({ cacheDir: cache, now: () => AT })
  /** A file's content as the file cache keeps it. */
  const cached = (fileId: number, name: string, content: string | Uint8Array) => {
    const folder = fileFolder(cache, WORKSPACE.accountId, fileId)
    mkdirSync(folder, { recursive: true })
    writeFileSync(join(folder, name), content)
  }
  return { root, parent, cache, exports, cached }
}

describe('exportPath', () => {
  it('keeps safe relative paths and makes each part safe', () => {
    expect(exportPath('epics.json')).toEqual(['epics.json'])
    expect(exportPath('epics/12-Launch.md')).toEqual(['epics', '12-Launch.md'])
    expect(exportPath('docs/Plan: Q3 <draft>?.md')).toEqual(['docs', 'Plan_ Q3 _draft__.md'])
    expect(exportPath('epics/CON.md')).toEqual(['epics', '_CON.md'])
    expect(exportPath('epics/.hidden')).toEqual(['epics', '_hidden'])
  })

  it.each([
    ['../outside.md', /leads out/],
    ['epics/../../x.md', /leads out/],
    ['..', /leads out/],
    ['/etc/passwd', /absolute/],
    ['C:/Windows/x', /absolute/],
    ['epics\\..\\x.md', /backslash/],
    ['', /empty/],
    ['epics//x.md', /empty/],
    ['./x.md', /empty or “\.”/],
    ['a/b/c/d.md', /folders deep/],
    ['manifest.json', /when the export finishes/],
    ['MANIFEST.JSON', /when the export finishes/],
  ])('refuses %j', (path, why) => {
    expect(() => exportPath(path)).toThrow(ExportRefused)
    expect(() => exportPath(path)).toThrow(why)
  })
})

describe('Exports', () => {
  it('makes a new folder named by the workspace and the time, never reusing one', async () => {
    const { parent, exports } = setup()
    const first = await exports.begin(parent, WORKSPACE)
    const second = await exports.begin(parent, WORKSPACE)
    expect(first.folder).toBe(join(parent, 'demo-co-20261126-152032'))
    expect(second.folder).toBe(join(parent, 'demo-co-20261126-152032-2'))
    expect(readdirSync(parent).sort()).toEqual(['demo-co-20261126-152032', 'demo-co-20261126-152032-2'])
    expect(first.exportId).not.toBe(second.exportId)
  })

  it('refuses a parent that is not a folder', async () => {
    const { root, exports } = setup()
    writeFileSync(join(root, 'a-file'), 'x')
    await expect(exports.begin(join(root, 'a-file'), WORKSPACE)).rejects.toThrow(/is not a folder/)
    await expect(exports.begin(join(root, 'missing'), WORKSPACE)).rejects.toThrow(ExportRefused)
  })

  it('writes new files, adds to them in parts, and never writes one twice', async () => {
    const { parent, exports } = setup()
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    expect(await exports.write(exportId, 'epics.json', '[\n')).toEqual({ path: 'epics.json', bytes: 2 })
    expect(await exports.write(exportId, 'epics.json', '{"id":1}\n]\n', true)).toEqual({ path: 'epics.json', bytes: 13 })
    expect(readFileSync(join(folder, 'epics.json'), 'utf8')).toBe('[\n{"id":1}\n]\n')
    expect(await exports.write(exportId, 'epics/1-Épopée: “Q3”.md', '# Épopée')).toEqual({ path: 'epics/1-Épopée_ “Q3”.md', bytes: 10 })
    expect(readFileSync(join(folder, 'epics', '1-Épopée_ “Q3”.md'), 'utf8')).toBe('# Épopée')

    await expect(exports.write(exportId, 'epics.json', 'again')).rejects.toThrow(/written already/)
    // One file on macOS and Windows.
    await expect(exports.write(exportId, 'EPICS.json', 'again')).rejects.toThrow(/differ only in case/)
    await expect(exports.write(exportId, 'docs.json', 'more', true)).rejects.toThrow(/nothing to add to/)
    await expect(exports.write(exportId, '../escape.md', 'x')).rejects.toThrow(ExportRefused)
    expect(existsSync(join(parent, 'escape.md'))).toBe(false)
    expect(readFileSync(join(folder, 'epics.json'), 'utf8')).toBe('[\n{"id":1}\n]\n')
  })

  it('never writes through a link or over a file planted in its folder', async () => {
    const { root, parent, exports } = setup()
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    const outside = join(root, 'outside')
    mkdirSync(outside)
    symlinkSync(outside, join(folder, 'docs'))
    await expect(exports.write(exportId, 'docs/plan.md', 'x')).rejects.toThrow(/leads out/)
    expect(readdirSync(outside)).toEqual([])

    writeFileSync(join(outside, 'target.txt'), 'keep me')
    symlinkSync(join(outside, 'target.txt'), join(folder, 'members.json'))
    await expect(exports.write(exportId, 'members.json', 'x')).rejects.toThrow(/is there already/)
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('keep me')

    // A file it wrote, swapped for a link before the next part: the part is not added through it.
    await exports.write(exportId, 'teams.json', '[')
    rmSync(join(folder, 'teams.json'))
    symlinkSync(join(outside, 'target.txt'), join(folder, 'teams.json'))
    await expect(exports.write(exportId, 'teams.json', ']', true)).rejects.toThrow(ExportWriteFailed)
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('keep me')
  })

  it('copies cached contents byte for byte, and lists the files it does not have', async () => {
    const { root, parent, exports, cached } = setup()
    const bytes = Uint8Array.from({ length: 600 }, (_, i) => (i * 31) % 256)
    cached(7, 'chart.png', bytes)
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    expect(await exports.copyFile(exportId, 7, 'chart.png')).toEqual({ included: true, path: 'files/7-chart.png', bytes: 600 })
    expect(new Uint8Array(readFileSync(join(folder, 'files', '7-chart.png')))).toEqual(bytes)
    const missing = await exports.copyFile(exportId, 8, 'notes.pdf')
    expect(missing).toMatchObject({ included: false, reason: expect.stringMatching(/never downloaded/) })
    await expect(exports.copyFile(exportId, 7, 'chart.png')).rejects.toThrow(/already/)

    // A link in the cache that leads elsewhere is not copied.
    writeFileSync(join(root, 'secret.txt'), 'secret')
    mkdirSync(fileFolder(join(root, 'files'), WORKSPACE.accountId, 9), { recursive: true })
    symlinkSync(join(root, 'secret.txt'), join(fileFolder(join(root, 'files'), WORKSPACE.accountId, 9), 'secret.txt'))
    expect(await exports.copyFile(exportId, 9, 'secret.txt')).toMatchObject({ included: false })
    expect(existsSync(join(folder, 'files', '9-secret.txt'))).toBe(false)

    // Another account's cache is not this export's.
    const other = await exports.begin(parent, { ...WORKSPACE, accountId: 'acct-2' })
    expect(await exports.copyFile(other.exportId, 7, 'chart.png')).toMatchObject({ included: false })
  })

  it.each([
    ['a/b/c', '20-a_b_c'],
    ['x/', '20-x_'],
    ['a/./b', '20-a_._b'],
    ['../../outside.txt', '20-.._.._outside.txt'],
    ['..', '20-_'],
    ['a\\b.txt', '20-a_b.txt'],
    ['report.pdf.', '20-report.pdf_'],
  ])('copies a file named %j as one file under files/ (%s), never along the path its name spells', async (name, written) => {
    const { root, parent, exports, cached } = setup()
    cached(20, 'content', 'bytes')
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    expect(await exports.copyFile(exportId, 20, name)).toEqual({ included: true, path: `files/${written}`, bytes: 5 })
    expect(readdirSync(join(folder, 'files'))).toEqual([written])
    expect(readFileSync(join(folder, 'files', written), 'utf8')).toBe('bytes')
    expect(readdirSync(folder)).toEqual(['files'])
    expect(readdirSync(root).sort()).toEqual(['files', 'picked'])
    const { manifest } = await exports.finish(exportId, {})
    expect(manifest.files).toEqual({ included: [{ id: 20, name, path: `files/${written}`, bytes: 5 }], notIncluded: [] })
  })

  it('marks each file it copies as come from the internet, as its download was', async () => {
    const root = mkdtempSync(join(tmpdir(), 'outpost-export-'))
    dirs.push(root)
    mkdirSync(join(root, 'picked'))
    const marked: Array<[string, MarkSource]> = []
    const exports = new Exports({ cacheDir: join(root, 'files'), now: () => AT, markFile: async (path, source) => void marked.push([path, source]) })
    mkdirSync(fileFolder(join(root, 'files'), WORKSPACE.accountId, 7), { recursive: true })
    writeFileSync(join(fileFolder(join(root, 'files'), WORKSPACE.accountId, 7), 'chart.png'), 'png!')
    const { exportId, folder } = await exports.begin(join(root, 'picked'), WORKSPACE)
    await exports.write(exportId, 'epics.json', '[]\n')
    await exports.copyFile(exportId, 7, 'chart.png')
    await exports.copyFile(exportId, 8, 'never-downloaded.pdf')
    expect(marked).toEqual([[join(folder, 'files', '7-chart.png'), { hostUrl: WORKSPACE.baseUrl, referrerUrl: WORKSPACE.baseUrl }]])
  })

  it('lists a file it cannot write as not included, with why, and goes on with the next', async () => {
    const { parent, exports, cached } = setup()
    cached(21, 'a', 'first')
    cached(22, 'b', 'second')
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    // Something is in the way of the first file's name (what a second Outpost writing there could leave).
    mkdirSync(join(folder, 'files'))
    writeFileSync(join(folder, 'files', '21-a_b'), 'not ours')
    expect(await exports.copyFile(exportId, 21, 'a/b')).toEqual({
      included: false,
      reason: 'files/21-a_b is there already: an export never writes over a file.',
    })
    expect(await exports.copyFile(exportId, 22, 'c/d')).toEqual({ included: true, path: 'files/22-c_d', bytes: 6 })
    expect(readFileSync(join(folder, 'files', '21-a_b'), 'utf8')).toBe('not ours')
    const { manifest } = await exports.finish(exportId, {})
    expect(manifest.files.notIncluded).toEqual([{ id: 21, name: 'a/b', reason: expect.stringContaining('there already') }])
    expect(manifest.files.included.map((f) => f.path)).toEqual(['files/22-c_d'])
  })

  it('writes the manifest last and closes the export', async () => {
    const { parent, exports, cached } = setup()
    cached(7, 'chart.png', 'png!')
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    await exports.write(exportId, 'epics.json', '[]\n')
    await exports.copyFile(exportId, 7, 'chart.png')
    await exports.copyFile(exportId, 8, 'notes.pdf')
    const done = await exports.finish(exportId, { epics: 0, files: 2 }, ['A note'])
    expect(done.folder).toBe(folder)
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'))
    expect(manifest).toEqual(done.manifest)
    expect(manifest).toEqual({
      format: 'outpost-export',
      version: 1,
      exportedAt: '2026-11-26T15:20:32.123Z',
      workspace: { name: 'Demo Co', slug: 'demo-co', baseUrl: 'http://127.0.0.1:4000' },
      counts: { epics: 0, files: 2 },
      files: {
        included: [{ id: 7, name: 'chart.png', path: 'files/7-chart.png', bytes: 4 }],
        notIncluded: [{ id: 8, name: 'notes.pdf', reason: expect.any(String) }],
      },
      written: [
        { path: 'epics.json', bytes: 3 },
        { path: 'files/7-chart.png', bytes: 4 },
      ],
      notes: ['A note'],
    })
    await expect(exports.write(exportId, 'late.md', 'x')).rejects.toThrow(/not under way/)
    await expect(exports.finish(exportId, {})).rejects.toThrow(/not under way/)
  })

  it('cancelling removes the folder it made, and nothing else', async () => {
    const { parent, exports } = setup()
    writeFileSync(join(parent, 'mine.txt'), 'the user’s')
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    await exports.write(exportId, 'epics/1-A.md', '# A')
    await exports.cancel(exportId)
    expect(existsSync(folder)).toBe(false)
    expect(readdirSync(parent)).toEqual(['mine.txt'])
    await expect(exports.write(exportId, 'epics/2-B.md', '# B')).rejects.toThrow(/not under way/)
  })

  it('says so when its folder is gone', async () => {
    const { parent, exports } = setup()
    const { exportId, folder } = await exports.begin(parent, WORKSPACE)
    rmSync(folder, { recursive: true })
    await expect(exports.write(exportId, 'epics/1-A.md', '# A')).rejects.toThrow(ExportWriteFailed)
    await expect(exports.write(exportId, 'epics/1-A.md', '# A')).rejects.toThrow(/is gone/)
    expect(existsSync(folder)).toBe(false)
    expect(lstatSync(parent).isDirectory()).toBe(true)
  })

  it('keeps at most four exports open', async () => {
    const { parent, exports } = setup()
    for (let i = 0; i < 4; i++) await exports.begin(parent, WORKSPACE)
    await expect(exports.begin(parent, WORKSPACE)).rejects.toThrow(/under way already/)
  })
})
