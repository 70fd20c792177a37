// Staging a dropped file: which failures are the file's (the user's to fix,
// in words that say why) and which are ours (the staging folder).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tooLargeToUpload } from '../../src-shared/ipc.ts'
import { stageCopy, stageStream, TooLargeError, unreadable, UnreadableFileError } from './staging.ts'

const dir = mkdtempSync(join(tmpdir(), 'outpost-staging-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const osError = (code: string) => Object.assign(new Error(`${code}: from the OS`), { code })

describe('unreadable', () => {
  it('names the reason of each code a file that cannot be read gives, and keeps the OS error as its cause', () => {
    const reasons = { ENOENT: 'gone', ENOTDIR: 'gone', ELOOP: 'gone', EACCES: 'denied', EPERM: 'denied', EISDIR: 'folder' }
    for (const [code, reason] of Object.entries(reasons)) {
      const cause = osError(code)
      const error = unreadable(cause, '/home/me/Desktop/report.pdf')
      expect(error, code).toBeInstanceOf(UnreadableFileError)
      expect(error).toMatchObject({ reason, code, cause, file: '/home/me/Desktop/report.pdf' })
      expect((error as Error).message).toContain('report.pdf')
      expect((error as Error).message).not.toContain('/home/me')
    }
  })

  it('leaves any other failure as it came: it is not the file being unreadable', () => {
    for (const error of [osError('ENOSPC'), osError('EMFILE'), new Error('no code'), 'a string']) expect(unreadable(error, '/x')).toBe(error)
  })
})

describe('stageCopy', () => {
  it('throws a failure to write the copy as it came, and leaves no partial copy', async () => {
    const source = join(dir, 'fine.txt')
    writeFileSync(source, 'fine')
    // The staging folder cannot be made: a file stands where it should be.
    const blocked = join(dir, 'blocked')
    writeFileSync(blocked, '')
    const error = await stageCopy(join(blocked, 'staging'), source, 'fine.txt').catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(UnreadableFileError)
    expect((error as { code?: string }).code).toMatch(/^(ENOTDIR|EEXIST)$/)
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'fine.txt'])
  })

  it('copies the exact bytes under a unique name', async () => {
    const source = join(dir, 'bytes.bin')
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13) % 256)
    writeFileSync(source, bytes)
    const staging = join(dir, 'staging')
    const staged = await stageCopy(staging, source, 'bytes.bin')
    expect(staged.size).toBe(bytes.length)
    expect(Buffer.compare(readFileSync(staged.path), Buffer.from(bytes))).toBe(0)
    expect(readdirSync(staging)).toHaveLength(1)
    const again = await stageCopy(staging, source, 'bytes.bin')
    expect(again.path).not.toBe(staged.path)
  })
})

describe('a file over the upload limit', () => {
  it('is refused by its size before a byte is copied, in the words the page shows', async () => {
    const source = join(dir, 'huge.iso')
    writeFileSync(source, Buffer.alloc(2048, 7))
    const staging = join(dir, 'staging-limit')
    const error = await stageCopy(staging, source, 'huge.iso', 1024).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TooLargeError)
    expect((error as Error).message).toBe(tooLargeToUpload('huge.iso', 1024))
    expect(existsSync(staging)).toBe(false)
    // At the limit: copied whole.
    const fits = await stageCopy(staging, source, 'huge.iso', 2048)
    expect(readFileSync(fits.path)).toEqual(Buffer.alloc(2048, 7))
  })

  it('streamed by the page, is cut off once past the limit, and no part of it stays', async () => {
    const staging = join(dir, 'staging-stream')
    async function* chunks() {
      for (let i = 0; i < 10; i++) yield new Uint8Array(512)
    }
    await expect(stageStream(staging, 'stream.bin', chunks(), 4096)).rejects.toBeInstanceOf(TooLargeError)
    expect(readdirSync(staging)).toEqual([])
    const whole = await stageStream(staging, 'stream.bin', chunks(), 5120)
    expect(whole.size).toBe(5120)
    expect(readdirSync(staging)).toHaveLength(1)
  })
})
