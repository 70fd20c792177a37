// A full disk on the main side: a download that finds no room clears the
// file cache (all but itself) and tries once more; still no room, it fails as
// `disk-full` in words, with nothing of it left behind. The window's
// files.evict-cache clears the cache but the files it keeps. Any other write
// of the main side's own (the accounts file, a staged copy) that meets ENOSPC
// is said as a full disk, not as a bug.
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { mainSideKit } from '../../testing/main-side-kit.ts'
import { DISK_FULL_DOWNLOAD_MESSAGE, DISK_FULL_MESSAGE } from '../files/disk-full.ts'
import { fileFolder } from '../files/file-cache.ts'
import { CacheWriteError } from '../gateway/save.ts'
import { createGateway } from '../gateway/gateway.ts'
import { toIpcError } from './errors.ts'

const kit = mainSideKit()

/** Bytes of every file under a folder. */
function usage(folder: string): number {
  if (!existsSync(folder)) return 0
  let total = 0
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const info = statSync(join(folder, name))
    if (info.isFile()) total += info.size
  }
  return total
}

const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })

/** A main side whose file cache lies on a "disk" of `capacity` bytes: a download past it fails as the gateway's does. */
async function open(capacity: number) {
  const dataDir = kit.tempFolder()
  const disk = { capacity }
  const cacheDir = join(dataDir, 'files')
  const { side, ask, upload } = await kit.open({
    dataDir,
    signedIn: true,
    createGateway: (options) => {
      const gateway = createGateway(options)
      return {
        call: gateway.call.bind(gateway),
        upload: gateway.upload.bind(gateway),
        close: gateway.close.bind(gateway),
        download: async (url, dest, onProgress, more) => {
          const got = await gateway.download(url, dest, onProgress, more)
          if (usage(cacheDir) <= disk.capacity) return got
          // The write ran out of room: the gateway leaves nothing behind (save.ts), nor does this.
          rmSync(dest, { force: true })
          throw new CacheWriteError(`Could not write ${dest}: ENOSPC: no space left on device, write`, { cause: enospc() })
        },
      }
    },
  })
  const uploaded = (name: string, bytes: number) => upload(name, 'x'.repeat(bytes))
  const download = (fileId: number) => ask('outpost:files.download', { downloadId: `d${fileId}`, fileId })
  const folderOf = (fileId: number) => fileFolder(side.folders.cache, side.accounts.current()!.id, fileId)
  return { side, ask, disk, uploaded, download, folderOf }
}

describe('a download on a full disk', () => {
  it('clears the other downloaded files and tries once more', async () => {
    const { uploaded, download, folderOf } = await open(1_000)
    const a = await uploaded('a.txt', 400)
    const b = await uploaded('b.txt', 400)
    const c = await uploaded('c.txt', 500)
    expect((await download(a)).ok).toBe(true)
    expect((await download(b)).ok).toBe(true)
    const got = await download(c)
    expect(got).toMatchObject({ ok: true, value: { bytes: 500 } })
    expect(readdirSync(folderOf(c))).toEqual(['c.txt'])
    expect(existsSync(folderOf(a))).toBe(false)
    expect(existsSync(folderOf(b))).toBe(false)
  })

  it('still no room: says the disk is full, and leaves nothing of the file behind', async () => {
    const { uploaded, download, folderOf, ask } = await open(300)
    const big = await uploaded('big.txt', 500)
    expect(await download(big)).toEqual({ ok: false, error: { source: 'ipc', kind: 'disk-full', message: DISK_FULL_DOWNLOAD_MESSAGE } })
    expect(existsSync(folderOf(big))).toBe(false)
    // Opening or reading it says the same (they download first).
    expect(await ask('outpost:files.read', { fileId: big })).toMatchObject({ ok: false, error: { kind: 'disk-full' } })
    expect(existsSync(folderOf(big))).toBe(false)
  })
})

describe('files.evict-cache', () => {
  it('removes the downloaded contents but the ones kept, and what interrupted downloads left', async () => {
    const { uploaded, download, folderOf, ask } = await open(1_000_000)
    const keep = await uploaded('keep.txt', 100)
    const go = await uploaded('go.txt', 200)
    expect((await download(keep)).ok).toBe(true)
    expect((await download(go)).ok).toBe(true)
    writeFileSync(join(folderOf(go), '.go.txt.0123456789ab.part'), 'half')
    const answer = await ask('outpost:files.evict-cache', { keep: [keep] })
    expect(answer).toEqual({ ok: true, value: { removed: 1, bytes: 204 } })
    expect(readdirSync(folderOf(keep))).toEqual(['keep.txt'])
    expect(existsSync(folderOf(go))).toBe(false)
    expect(await ask('outpost:files.evict-cache', { keep: ['1'] })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
  })
})

describe('the main side’s own files on a full disk', () => {
  it('is said as a full disk, not as something wrong inside Outpost', () => {
    expect(toIpcError(enospc())).toEqual({ source: 'ipc', kind: 'disk-full', message: DISK_FULL_MESSAGE })
    expect(toIpcError(new Error('Could not save', { cause: Object.assign(new Error('EDQUOT'), { code: 'EDQUOT' }) }))).toMatchObject({ kind: 'disk-full' })
    expect(toIpcError(new Error('boom'))).toMatchObject({ kind: 'internal' })
  })
})
