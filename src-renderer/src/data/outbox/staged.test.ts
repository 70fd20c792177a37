// Staged copies a crash left behind are swept once a session, through the
// transport (here the Node one, over the main side's own sweep, on real files):
// a copy no queued upload names goes once it is old; one a record names stays,
// however old; a fresh one stays (a drop writes its record a moment after it
// stages its copy). The sweep reads the outbox under the outbox lock, so a
// record written by a replay holding the lock is seen.
import { access, readdir, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startDataLayer } from '../data-layer.ts'
import { createProcessLock, outboxLockName } from '../lock.ts'
import { outboxRecords } from './records.ts'
import { stagedPaths, sweepStagedCopies } from './staged.ts'
import { actionsFor, offline, startKit, tempFile, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
})
afterEach(() => kit.close())

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )
const anHourAgo = () => new Date(Date.now() - 60 * 60_000)
const age = (path: string) => utimes(path, anHourAgo(), anHourAgo())

/** A copy staged for a drop whose record never got written (the app died in between). */
async function orphan(name: string): Promise<string> {
  return (await kit.transport.stage({ path: await tempFile(kit.folder, name, `bytes of ${name}`), name })).path
}

describe('staged copies nobody needs', () => {
  it('go when the engine starts: a copy with no record is removed, one with a record is kept, a fresh one is kept', async () => {
    const act = actionsFor(kit.db, offline(kit.transport))
    const queued = await act.uploadFile({ path: await tempFile(kit.folder, 'queued.txt', 'still to upload'), name: 'queued.txt' })
    const [record] = await outboxRecords(kit.db)
    const kept = record.staged!.path
    const left = await orphan('left-by-a-crash.txt')
    const fresh = await orphan('just-dropped.txt')
    await age(kept)
    await age(left)

    await startDataLayer({ db: kit.db, transport: kit.transport }).stop()
    expect(await exists(kept)).toBe(true)
    expect(await exists(left)).toBe(false)
    expect(await exists(fresh)).toBe(true)
    expect((await readdir(join(kit.folder, 'staging'))).sort()).toEqual([kept, fresh].map((p) => p.slice(p.lastIndexOf('/') + 1)).sort())
    // The queued upload still goes, with its copy.
    expect((await outboxRecords(kit.db)).map((r) => [r.entityId, r.staged?.path])).toEqual([[queued, kept]])
  })

  it('keeps the copies of every record that names one, failed ones and ones the app cannot read included', async () => {
    const act = actionsFor(kit.db, offline(kit.transport))
    await act.uploadFile({ path: await tempFile(kit.folder, 'a.txt', 'a'), name: 'a.txt' })
    await act.uploadFile({ path: await tempFile(kit.folder, 'b.txt', 'b'), name: 'b.txt' })
    const [a, b] = await outboxRecords(kit.db)
    await kit.db.outbox.update(b.seq!, { state: 'failed', error: { message: 'refused' } })
    const spoilt = await orphan('spoilt.txt')
    await kit.db.outbox.add({ kind: 'file', op: 'sideways', staged: { path: spoilt } } as never)
    expect((await stagedPaths(kit.db)).sort()).toEqual([a.staged!.path, b.staged!.path, spoilt].sort())
    for (const p of [a.staged!.path, b.staged!.path, spoilt]) await age(p)

    expect(await sweepStagedCopies(kit.db, kit.transport)).toEqual({ removed: 0, kept: 3 })
  })

  it('waits for a replay holding the outbox lock, and sees what it wrote', async () => {
    const lock = createProcessLock()
    const copy = await orphan('named-meanwhile.txt')
    await age(copy)
    let release!: () => void
    const holding = lock(outboxLockName(kit.db.name), () => new Promise<void>((resolve) => (release = resolve)))
    const sweeping = sweepStagedCopies(kit.db, kit.transport, lock)
    // While the sweep waits, the lock's holder queues the upload that names the copy.
    await kit.db.outbox.add({
      kind: 'file',
      entityId: 'local:00000000-0000-4000-8000-000000000001',
      op: 'create',
      payload: { name: 'named-meanwhile.txt' },
      base: {},
      state: 'pending',
      attempts: 0,
      createdAt: 1,
      updatedAt: 1,
      staged: { path: copy, name: 'named-meanwhile.txt', size: 1 },
    })
    release()
    await holding
    expect(await sweeping).toEqual({ removed: 0, kept: 1 })
    expect(await exists(copy)).toBe(true)
  })
})
