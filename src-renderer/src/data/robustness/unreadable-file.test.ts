// A dropped file that cannot be read (deleted before it was staged, a folder,
// no permission) gets a clear error from actions.uploadFile, and nothing is
// queued or left in the staging folder.
import { chmod, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { outboxActions, WriteRefused } from '../actions.ts'
import { failureOfIpc } from '../bridge-transport.ts'
import { outboxStatus } from '../outbox/index.ts'
import { startKit, tempFile, type Kit } from '../outbox/test-kit.ts'
import { TransportError, type Transport } from '../transport.ts'

let kit: Kit
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
})
afterEach(() => kit.close())

const isRoot = process.getuid?.() === 0

/** What uploadFile refused with (it must refuse). */
async function refusal(transport: Transport, file: { path: string; name: string }): Promise<WriteRefused> {
  const error = await outboxActions({ db: kit.db, transport })
    .uploadFile(file)
    .then(() => null, (e: unknown) => e)
  expect(error).toBeInstanceOf(WriteRefused)
  return error as WriteRefused
}

async function nothingQueued() {
  expect(await kit.db.outbox.count()).toBe(0)
  expect(await kit.db.overlay.count()).toBe(0)
  expect(await outboxStatus(kit.db)).toMatchObject({ pending: 0, failed: 0 })
  const staged = await readdir(join(kit.folder, 'staging')).catch(() => [])
  expect(staged.filter((name) => !name.startsWith('.'))).toEqual([])
}

describe('a dropped file that cannot be read', () => {
  it('deleted before it was staged: a clear error naming it, nothing queued', async () => {
    const path = await tempFile(kit.folder, 'report.pdf', 'bytes')
    await rm(path)
    const error = await refusal(kit.transport, { path, name: 'report.pdf' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toBe('"report.pdf" could not be read, so it was not queued for upload: it is no longer where it was dropped from (moved or deleted).')
    await nothingQueued()
  })

  it('a folder: a clear error, nothing queued', async () => {
    const path = join(kit.folder, 'Holiday photos')
    await mkdir(path)
    const error = await refusal(kit.transport, { path, name: 'Holiday photos' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toMatch(/^"Holiday photos" could not be read, so it was not queued for upload: it is a folder/)
    await nothingQueued()
  })

  // Root reads any file whatever its mode: the case runs where the tests do not run as root.
  it.skipIf(isRoot)('without permission to read it: a clear error, nothing queued', async () => {
    const path = await tempFile(kit.folder, 'secret.txt', 'bytes')
    await chmod(path, 0o000)
    const error = await refusal(kit.transport, { path, name: 'secret.txt' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toMatch(/^"secret.txt" could not be read, so it was not queued for upload: Outpost is not allowed to read it/)
    await nothingQueued()
  })

  it('refused by the main side as the app bridge reports it (permission denied): a clear error, nothing queued', async () => {
    // The desktop app stages through the main side; an unexpected failure there reaches the renderer as this.
    const bridged: Transport = {
      ...kit.transport,
      stage: async () => {
        throw new TransportError(
          failureOfIpc({ source: 'ipc', kind: 'internal', message: "Something went wrong inside Outpost: EACCES: permission denied, copyfile '/home/me/secret.txt'" }),
        )
      },
    }
    const error = await refusal(bridged, { path: '/home/me/secret.txt', name: 'secret.txt' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toMatch(/^"secret.txt" could not be read, so it was not queued for upload: Outpost is not allowed to read it/)
    await nothingQueued()
  })

  it('a readable file dropped next goes through as usual', async () => {
    const path = await tempFile(kit.folder, 'fine.txt', 'fine bytes')
    await outboxActions({ db: kit.db, transport: kit.transport }).uploadFile({ path, name: 'fine.txt' })
    expect(await outboxStatus(kit.db)).toMatchObject({ pending: 1 })
  })
})
