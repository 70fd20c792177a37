// Exporting a cache filled from the local service, through the real main side
// (its handler table, as the bridge reaches it): what lands in the folder, long
// lists in parts, local changes, and a failure half way.
import 'fake-indexeddb/auto'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openMainSide, type MainSide } from '../../../../src-main/main-side.ts'
import { dispatch } from '../../../../src-main/ipc/dispatch.ts'
import { MemorySecretStore } from '../../../../src-web/memory-secrets.ts'
import type { IpcError, RequestChannel } from '../../../../src-shared/ipc.ts'
import { actionsFor, fillCache, fillComments, offline, startKit, type Kit } from '../../../../testing/outbox-kit.ts'
import { BridgeError, type Bridge } from '../../lib/bridge.ts'
import type { CachedDoc, CachedEpic } from '../types.ts'
import { exportWorkspace, type ExportProgress } from './export.ts'

let kit: Kit
let side: MainSide
const dirs: string[] = []

beforeEach(async () => {
  kit = await startKit()
  await fillCache(kit.db, kit.transport)
  const dataDir = await mkdtemp(join(tmpdir(), 'outpost-export-renderer-'))
  dirs.push(dataDir)
  side = await openMainSide({
    dataDir,
    secrets: new MemorySecretStore(),
    appInfo: { name: 'Outpost', version: '0.0.0', platform: 'linux', shell: 'browser' },
    isOnline: () => true,
    emit: () => undefined,
  })
  await side.accounts.addAccount(kit.service.baseUrl, kit.service.tokens.admin)
})
afterEach(async () => {
  await side.close()
  await kit.close()
})
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The page's bridge, answered by the main side's handler table; `fail` makes one channel fail on its nth call. */
function bridgeTo(table: MainSide['table'], fail?: { channel: RequestChannel; at: number; error?: IpcError }): Pick<Bridge, 'call'> & { calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    call: (async (channel: RequestChannel, request?: unknown) => {
      calls.push(channel)
      if (fail && channel === fail.channel && calls.filter((c) => c === channel).length === fail.at) {
        throw new BridgeError(fail.error ?? { source: 'ipc', kind: 'cannot-write', message: 'Outpost could not write: the disk is full.' })
      }
      const result = await dispatch(table, channel, request)
      if (!result.ok) throw new BridgeError(result.error)
      return result.value
    }) as Bridge['call'],
  }
}

describe('exportWorkspace', () => {
  it('writes every kind, an epic and a doc a file, and a manifest whose counts are the cache’s', async () => {
    const epics = (await kit.db.epics.toArray()) as CachedEpic[]
    const withComments = epics.find((e) => !e.archived)!
    await fillComments(kit.db, kit.transport, Number(withComments.id))
    const seen: ExportProgress[] = []
    // Small parts: every list of more than a row or two crosses in several writes.
    const bridge = bridgeTo(side.table)
    const done = await exportWorkspace({ db: kit.db, bridge, partChars: 2_000, onProgress: (p) => seen.push(p), bootstrapped: true })
    expect(done).not.toBeNull()
    const folder = done!.folder
    expect(bridge.calls.filter((c) => c === 'outpost:export.write').length).toBeGreaterThan(16 + epics.length)

    const read = (path: string) => readFileSync(join(folder, path), 'utf8')
    expect(JSON.parse(read('epics.json'))).toEqual(expect.arrayContaining(epics.map((e) => expect.objectContaining({ id: e.id, name: e.name }))))
    expect(JSON.parse(read('epics.json'))).toHaveLength(epics.length)
    expect(JSON.parse(read('members.json'))).toEqual([])
    const docs = (await kit.db.docs.toArray()) as CachedDoc[]
    expect(readdirSync(join(folder, 'epics'))).toHaveLength(epics.length)
    expect(readdirSync(join(folder, 'docs'))).toHaveLength(docs.length)
    const epicFile = readdirSync(join(folder, 'epics')).find((f) => f.startsWith(`${withComments.id}-`))!
    expect(read(`epics/${epicFile}`).startsWith(`# ${withComments.name}\n`)).toBe(true)
    const comments = await kit.db.epicComments.where('epic_id').equals(withComments.id).toArray()
    for (const c of comments.filter((c) => !c.deleted)) expect(read(`epics/${epicFile}`)).toContain(c.text.trim().split('\n')[0])

    const manifest = JSON.parse(read('manifest.json'))
    expect(manifest).toEqual(done!.manifest)
    expect(manifest.counts).toMatchObject({
      epics: epics.length,
      docs: docs.length,
      files: await kit.db.files.count(),
      filesIncluded: 0,
      comments: comments.length,
    })
    // Nothing was downloaded: no file is in the main side's cache.
    expect(manifest.files.notIncluded).toHaveLength(await kit.db.files.count())
    expect(manifest.notes).toEqual([])
    expect(seen.at(-1)).toEqual({ step: 'Done', done: seen.at(-1)!.total, total: seen.at(-1)!.total })
    expect(seen.every((p, i) => i === 0 || p.done >= seen[i - 1].done)).toBe(true)
  })

  it('shows local changes as made, and says they were not sent yet', async () => {
    const act = actionsFor(kit.db, offline(kit.transport))
    const epic = (await kit.db.epics.orderBy('id').first()) as CachedEpic
    await act.updateEpic(epic.id, { name: 'Renamed offline' })
    const local = await act.createEpic({ name: 'Made offline' })
    const done = await exportWorkspace({ db: kit.db, bridge: bridgeTo(side.table) })
    const files = readdirSync(join(done!.folder, 'epics'))
    expect(files).toContain(`${epic.id}-Renamed offline.md`)
    expect(files).toContain(`${String(local).replace(':', '_')}-Made offline.md`)
    expect(done!.manifest.notes.join(' ')).toMatch(/2 changes made in Outpost had not reached the service yet/)
  })

  it('goes on past files whose names spell paths, each written as one file under files/', async () => {
    // Members name files as they like: the service keeps `a/b/c` as a name.
    const names = ['a/b/c', 'x/', 'a/./b']
    const ids = (await kit.db.files.toArray()).slice(0, names.length).map((f) => Number(f.id))
    for (const [i, id] of ids.entries()) await kit.transport.call('files.update', { params: { id }, body: { name: names[i] } })
    await fillCache(kit.db, kit.transport)
    for (const id of ids) expect((await dispatch(side.table, 'outpost:files.download', { downloadId: `d${id}`, fileId: id })).ok).toBe(true)

    const done = await exportWorkspace({ db: kit.db, bridge: bridgeTo(side.table) })
    const included = done!.manifest.files.included
    expect(included.filter((f) => ids.includes(f.id)).map((f) => [f.name, f.path])).toEqual(
      expect.arrayContaining([
        ['a/b/c', `files/${ids[0]}-a_b_c`],
        ['x/', `files/${ids[1]}-x_`],
        ['a/./b', `files/${ids[2]}-a_._b`],
      ]),
    )
    expect(readdirSync(join(done!.folder, 'files')).sort()).toEqual([`${ids[0]}-a_b_c`, `${ids[1]}-x_`, `${ids[2]}-a_._b`].sort())
    expect(done!.manifest.counts).toMatchObject({ files: await kit.db.files.count(), filesIncluded: 3 })
  })

  it('leaves out a file the main side refuses, says why in the manifest, and goes on with the rest', async () => {
    const ids = (await kit.db.files.toArray()).slice(0, 2).map((f) => Number(f.id))
    for (const id of ids) expect((await dispatch(side.table, 'outpost:files.download', { downloadId: `d${id}`, fileId: id })).ok).toBe(true)
    const bridge = bridgeTo(side.table, {
      channel: 'outpost:export.copy-file',
      at: 1,
      error: { source: 'ipc', kind: 'invalid-request', message: 'Refused for the test.' },
    })
    const done = await exportWorkspace({ db: kit.db, bridge })
    expect(bridge.calls.filter((c) => c === 'outpost:export.copy-file')).toHaveLength(await kit.db.files.count())
    expect(done!.manifest.notes).toEqual([expect.stringMatching(/^1 file could not be written, not included: “.+” \(Refused for the test\.\)$/)])
    expect(done!.manifest.counts.filesIncluded).toBe(1)
  })

  it('answers null when the user cancelled the folder dialog, and writes nothing', async () => {
    const bridge = { call: (async () => null) as unknown as Bridge['call'] }
    expect(await exportWorkspace({ db: kit.db, bridge })).toBeNull()
  })

  it('stops at its next step when cancelled, and removes what it had written', async () => {
    const bridge = bridgeTo(side.table)
    const controller = new AbortController()
    const steps: ExportProgress[] = []
    const running = exportWorkspace({
      db: kit.db,
      bridge,
      signal: controller.signal,
      onProgress: (p) => {
        steps.push(p)
        if (p.step === 'Epics' && p.done === 20) controller.abort()
      },
    })
    await expect(running).rejects.toThrow(/aborted/)
    expect(bridge.calls.at(-1)).toBe('outpost:export.cancel')
    // Nothing after the step it was cancelled in: no more epics, no docs, no manifest.
    expect(steps.at(-1)).toMatchObject({ step: 'Epics', done: 20 })
    expect(bridge.calls).not.toContain('outpost:export.finish')
    const exportsDir = join(dirs.at(-1)!, 'exports')
    expect(existsSync(exportsDir) ? readdirSync(exportsDir) : []).toEqual([])
  })

  it('removes the half-written folder when a write fails, and says why', async () => {
    const bridge = bridgeTo(side.table, { channel: 'outpost:export.write', at: 20 })
    await expect(exportWorkspace({ db: kit.db, bridge })).rejects.toThrow(/disk is full/)
    expect(bridge.calls.at(-1)).toBe('outpost:export.cancel')
    const exportsDir = join(dirs.at(-1)!, 'exports')
    expect(existsSync(exportsDir) ? readdirSync(exportsDir) : []).toEqual([])
  })
})
