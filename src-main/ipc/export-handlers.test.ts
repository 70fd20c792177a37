// The export channels of the handler table, through `dispatch` as the window
// and the browser host call them: where an export goes in each shell, every
// refusal with its kind and words, and a whole export with the manifest.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mainSideKit, type OpenOptions } from '../../testing/main-side-kit.ts'
import { EXPORT_PART_MAX_CHARS } from '../../src-shared/ipc.ts'
import { fileFolder } from '../files/file-cache.ts'

const kit = mainSideKit()

/** A main side of the browser host, signed in unless told otherwise. */
async function open(options: OpenOptions = {}) {
  const { side, ask, dataDir } = await kit.open({ appInfo: { shell: 'browser' }, signedIn: true, ...options })
  const begin = async () => {
    const begun = await ask('outpost:export.begin')
    expect(begun.ok).toBe(true)
    return begun.value as { exportId: string; folder: string }
  }
  return { side, ask, begin, dataDir }
}

describe('export.begin', () => {
  it('makes a new folder under the data folder’s exports/ where there is no folder dialog', async () => {
    const { begin, dataDir, side } = await open()
    const { folder } = await begin()
    const slug = side.accounts.current()!.workspaceSlug
    expect(folder.startsWith(join(dataDir, 'exports', `${slug}-`))).toBe(true)
    expect(readdirSync(folder)).toEqual([])
  })

  it('exports into a new folder inside the one the user picked, and answers null when they cancelled', async () => {
    const picked = kit.tempFolder()
    let answer: string | undefined = picked
    const { ask } = await open({ pickExportFolder: async () => answer })
    const begun = await ask('outpost:export.begin')
    expect(begun.ok).toBe(true)
    expect(begun.value.folder.startsWith(`${picked}/`)).toBe(true)
    expect(readdirSync(picked)).toHaveLength(1)
    answer = undefined
    expect(await ask('outpost:export.begin')).toEqual({ ok: true, value: null })
    expect(readdirSync(picked)).toHaveLength(1)
  })

  it('needs a workspace', async () => {
    const { ask } = await open({ signedIn: false })
    expect(await ask('outpost:export.begin')).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'no-account' } })
  })
})

describe('export refusals', () => {
  it('refuses paths that lead out of the export’s folder, with words that say why', async () => {
    const { ask, begin, dataDir } = await open()
    const { exportId } = await begin()
    for (const [path, why] of [
      ['../../accounts.json', /leads out of the export's folder/],
      ['/etc/passwd', /absolute/],
      ['epics\\..\\..\\x', /backslash/],
      ['manifest.json', /written when the export finishes/],
      ['a/b/c/d.md', /folders deep/],
    ] as const) {
      const answer = await ask('outpost:export.write', { exportId, path, text: 'x' })
      expect(answer, path).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
      expect(answer.error.message, path).toMatch(why)
    }
    expect(readFileSync(join(dataDir, 'accounts.json'), 'utf8')).not.toBe('x')
  })

  it('refuses malformed requests before a handler sees them', async () => {
    const { ask, begin } = await open()
    const { exportId } = await begin()
    const refusals: [string, unknown, RegExp][] = [
      ['outpost:export.write', { exportId, path: 'a.md' }, /text must be a string/],
      ['outpost:export.write', { exportId, path: 'a.md', text: 'x'.repeat(EXPORT_PART_MAX_CHARS + 1) }, /in parts/],
      ['outpost:export.write', { exportId, path: '', text: 'x' }, /path must be a string/],
      ['outpost:export.write', { exportId, path: 'a.md', text: 'x', append: 'yes' }, /append must be/],
      ['outpost:export.write', { path: 'a.md', text: 'x' }, /exportId must be a string/],
      ['outpost:export.copy-file', { exportId, fileId: '7', name: 'a' }, /fileId must be a positive integer/],
      ['outpost:export.copy-file', { exportId, fileId: 7 }, /name must be a string/],
      ['outpost:export.finish', { exportId, counts: { epics: -1 } }, /whole number/],
      ['outpost:export.finish', { exportId, counts: { epics: 1.5 } }, /whole number/],
      ['outpost:export.finish', { exportId, counts: { '../x': 1 } }, /not a kind's name/],
      ['outpost:export.finish', { exportId, counts: [] }, /counts must be an object/],
      ['outpost:export.finish', { exportId, counts: {}, notes: 'x' }, /notes must list/],
      ['outpost:export.cancel', {}, /exportId must be a string/],
    ]
    for (const [channel, request, why] of refusals) {
      const answer = await ask(channel, request)
      expect(answer, `${channel} ${JSON.stringify(request).slice(0, 80)}`).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
      expect(answer.error.message).toMatch(why)
    }
  })

  it('refuses an export that is not under way, and a file written twice', async () => {
    const { ask, begin } = await open()
    const unknown = await ask('outpost:export.write', { exportId: 'no-such-export', path: 'a.md', text: 'x' })
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'invalid-request', message: expect.stringMatching(/not under way/) } })
    const { exportId } = await begin()
    expect(await ask('outpost:export.write', { exportId, path: 'a.md', text: 'x' })).toMatchObject({ ok: true })
    expect(await ask('outpost:export.write', { exportId, path: 'a.md', text: 'y' })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request', message: expect.stringMatching(/written already/) },
    })
  })

  it('says the folder cannot be written, as cannot-write', async () => {
    const { ask, begin } = await open()
    const { exportId, folder } = await begin()
    rmSync(folder, { recursive: true })
    expect(await ask('outpost:export.write', { exportId, path: 'epics/1-A.md', text: '# A' })).toMatchObject({
      ok: false,
      error: { source: 'ipc', kind: 'cannot-write', message: expect.stringMatching(/is gone/) },
    })
  })
})

describe('a whole export', () => {
  it('writes parts, copies cached files without the network, and the manifest', async () => {
    const { ask, begin, side } = await open()
    const accountId = side.accounts.current()!.id
    const cached = fileFolder(side.folders.cache, accountId, 41)
    mkdirSync(cached, { recursive: true })
    writeFileSync(join(cached, 'brief.txt'), 'the brief')
    const { exportId, folder } = await begin()
    // The service answers nothing: a copy comes from the cache only.
    kit.service.setFaults({ failRate: 1 })
    try {
      expect(await ask('outpost:export.write', { exportId, path: 'epics.json', text: '[\n' })).toEqual({ ok: true, value: { path: 'epics.json', bytes: 2 } })
      expect(await ask('outpost:export.write', { exportId, path: 'epics.json', text: ']\n', append: true })).toEqual({
        ok: true,
        value: { path: 'epics.json', bytes: 4 },
      })
      expect(await ask('outpost:export.copy-file', { exportId, fileId: 41, name: 'brief.txt' })).toEqual({
        ok: true,
        value: { included: true, path: 'files/41-brief.txt', bytes: 9 },
      })
      expect(await ask('outpost:export.copy-file', { exportId, fileId: 42, name: 'other.txt' })).toMatchObject({ ok: true, value: { included: false } })
      const done = await ask('outpost:export.finish', { exportId, counts: { epics: 0, files: 2 }, notes: ['n'] })
      expect(done.ok).toBe(true)
      expect(done.value.folder).toBe(folder)
      expect(JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'))).toEqual(done.value.manifest)
      expect(done.value.manifest).toMatchObject({
        counts: { epics: 0, files: 2 },
        files: { included: [{ id: 41 }], notIncluded: [{ id: 42, name: 'other.txt' }] },
        notes: ['n'],
      })
    } finally {
      kit.service.setFaults({ failRate: 0 })
    }
    expect(readFileSync(join(folder, 'files', '41-brief.txt'), 'utf8')).toBe('the brief')
    expect(existsSync(join(folder, 'files', '42-other.txt'))).toBe(false)
  })

  it('cancel removes what was written', async () => {
    const { ask, begin } = await open()
    const { exportId, folder } = await begin()
    await ask('outpost:export.write', { exportId, path: 'docs/a.md', text: '# A' })
    expect(await ask('outpost:export.cancel', { exportId })).toEqual({ ok: true })
    expect(existsSync(folder)).toBe(false)
  })
})
