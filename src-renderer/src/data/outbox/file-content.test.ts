// A file deleted in Outpost takes its downloaded content with it once the
// service has confirmed the delete (or answered that it was gone already): the
// bytes leave the file cache on disk, and so does their row. (A file found
// deleted by sync goes the same way: sync/files.ts and sync/sync.ts.)
import { access } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { startDataLayer, type DataLayer } from '../data-layer.ts'
import type { CachedFile } from '../types.ts'
import { outboxStatus } from './records.ts'
import { actionsFor, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let engine: DataLayer
let files: CachedFile[]
beforeEach(async () => {
  kit = (await startFilledKit({ seed: 'demo' })).kit
  engine = startDataLayer({ db: kit.db, transport: kit.transport, sync: { fileBudgetBytes: 50 * 1024 * 1024 } })
  files = await kit.db.files.orderBy('id').toArray()
})
afterEach(async () => {
  await engine.stop()
  await kit.close()
})

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  )

describe('a deleted file’s downloaded content', () => {
  it('is removed from disk and from the cache once the service confirms the delete', async () => {
    const [file, other] = files
    const opened = await engine.openFile(file.id)
    const kept = await engine.openFile(other.id)
    expect(await exists(opened.path)).toBe(true)

    // Deleted offline: the content stays until the service has the delete (the delete may yet be discarded).
    await actionsFor(kit.db, offline(kit.transport)).deleteFile(file.id)
    expect(await exists(opened.path)).toBe(true)

    expect(await replayFast(kit.db, kit.transport)).toMatchObject({ confirmed: 1, remaining: 0 })
    expect(await exists(opened.path)).toBe(false)
    expect(await kit.db.fileContents.get(file.id)).toBeUndefined()
    expect(await kit.db.files.get(file.id)).toBeUndefined()
    // Another file's content is left alone.
    expect(await exists(kept.path)).toBe(true)
    expect(await kit.db.fileContents.get(other.id)).toMatchObject({ path: kept.path })
  })

  it('is removed when the service says the file was deleted already (404)', async () => {
    const [file] = files
    const opened = await engine.openFile(file.id)
    await actionsFor(kit.db, kit.transport).deleteFile(file.id)
    expect((await v3(kit.service, kit.service.tokens.admin).delete(`/files/${file.id}`)).status).toBe(204)

    await replayFast(kit.db, kit.transport)
    expect(await outboxStatus(kit.db)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })
    expect(await exists(opened.path)).toBe(false)
    expect(await kit.db.fileContents.get(file.id)).toBeUndefined()
  })
})
