// A dropped file that cannot be read (deleted before it was staged, a folder,
// no permission, a pipe) gets a clear error from actions.uploadFile, and
// nothing is queued or left in the staging folder. The main side says why by
// kind (`{source: 'ipc', kind: 'unreadable', message}`), and its message is
// what the user reads, as it is.
import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { IpcError } from '../../../../src-shared/ipc.ts'
import { BridgeError, type Bridge } from '../../lib/bridge.ts'
import { outboxActions, WriteRefused } from '../actions.ts'
import { bridgeTransport } from '../bridge-transport.ts'
import { outboxStatus } from '../outbox/index.ts'
import { startKit, tempFile, type Kit } from '../../../../testing/outbox-kit.ts'
import { TransportError, type Transport } from '../transport.ts'

let kit: Kit
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
})
afterEach(() => kit.close())

const isRoot = process.getuid?.() === 0

/** The app's transport over a bridge whose files.stage fails as the main side reports it. */
const bridgedStageFailing = (error: IpcError): Transport => {
  const bridge = {
    shell: 'electron',
    call: async () => {
      throw new BridgeError(error)
    },
    on: () => () => undefined,
    pathForFile: async () => undefined,
  } as unknown as Bridge
  return { ...kit.transport, stage: bridgeTransport(bridge).stage }
}

/** What uploadFile refused with (it must refuse). */
async function refusal(transport: Transport, file: { path: string; name: string }): Promise<WriteRefused> {
  const error = await outboxActions({ db: kit.db, transport })
    .uploadFile(file)
    .then(
      () => null,
      (e: unknown) => e,
    )
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
  it("deleted before it was staged: the main side's message naming it, nothing queued", async () => {
    const path = await tempFile(kit.folder, 'report.pdf', 'bytes')
    await rm(path)
    const error = await refusal(kit.transport, { path, name: 'report.pdf' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toBe('report.pdf is no longer where it was dropped from (moved or deleted): drop it again.')
    await nothingQueued()
  })

  it('a folder: a clear error, nothing queued', async () => {
    const path = join(kit.folder, 'Holiday photos')
    await mkdir(path)
    const error = await refusal(kit.transport, { path, name: 'Holiday photos' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toBe('Holiday photos is a folder: drop the files in it instead.')
    await nothingQueued()
  })

  it('a pipe: a clear error ending in one full stop, nothing queued', async () => {
    const path = join(kit.folder, 'events.pipe')
    execFileSync('mkfifo', [path])
    const error = await refusal(kit.transport, { path, name: 'events.pipe' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toBe('events.pipe is not a regular file (a device, a pipe or a socket): Outpost uploads files only.')
    await nothingQueued()
  })

  // Root reads any file whatever its mode: the case runs where the tests do not run as root.
  it.skipIf(isRoot)('without permission to read it: a clear error, nothing queued', async () => {
    const path = await tempFile(kit.folder, 'secret.txt', 'bytes')
    await chmod(path, 0o000)
    const error = await refusal(kit.transport, { path, name: 'secret.txt' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toMatch(/^Outpost is not allowed to read secret.txt \(permission denied\)/)
    await nothingQueued()
  })

  it('refused by the main side as the app bridge reports it (kind unreadable): its message as it is, nothing queued', async () => {
    const message = 'dev0 is not a regular file (a device, a pipe or a socket): Outpost uploads files only.'
    const error = await refusal(bridgedStageFailing({ source: 'ipc', kind: 'unreadable', message }), { path: '/dev/dev0', name: 'dev0' })
    expect(error.reason).toBe('unreadable')
    expect(error.message).toBe(message)
    await nothingQueued()
  })

  it('a failure of the app itself while staging is not blamed on the file: it comes back as it is, nothing queued', async () => {
    // The same words as a permission problem, but not of the kind that says so: no guessing from the text.
    const message = "Something went wrong inside Outpost: EACCES: permission denied, open '/data/staging/acc'"
    const error = await outboxActions({ db: kit.db, transport: bridgedStageFailing({ source: 'ipc', kind: 'internal', message }) })
      .uploadFile({ path: '/home/me/notes.txt', name: 'notes.txt' })
      .then(
        () => null,
        (e: unknown) => e,
      )
    expect(error).toBeInstanceOf(TransportError)
    expect((error as TransportError).failure).toEqual({ kind: 'network', message })
    await nothingQueued()
  })

  it('a readable file dropped next goes through as usual', async () => {
    const path = await tempFile(kit.folder, 'fine.txt', 'fine bytes')
    await outboxActions({ db: kit.db, transport: kit.transport }).uploadFile({ path, name: 'fine.txt' })
    expect(await outboxStatus(kit.db)).toMatchObject({ pending: 1 })
  })
})
