// The "came from the internet" mark: which platform gets which mark and its
// exact text (with writers that record), and the real write on this OS. CI
// runs on Linux, where the mark is nothing: the real writers leave the file
// and its folder as they were.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { internetMark, markFromInternet, systemWriters, type MarkWriters } from './internet-mark.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const SOURCE = { hostUrl: 'https://files.example.com/api/attachments/files/abc/plan.pdf', referrerUrl: 'https://api.example.com' }
const MADE = { now: Date.parse('2026-11-26T15:20:32.123Z'), uuid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }

function recordingWriters() {
  const written: Array<[string, ...string[]]> = []
  const writers: MarkWriters = {
    writeStream: async (path, stream, text) => void written.push(['stream', path, stream, text]),
    setAttribute: async (path, name, value) => void written.push(['attribute', path, name, value]),
  }
  return { writers, written }
}

describe('the mark of each platform', () => {
  it('is a Zone.Identifier stream of the internet zone on Windows, with the file’s and the service’s addresses', () => {
    expect(internetMark('win32', SOURCE, MADE)).toEqual({
      kind: 'zone-identifier',
      stream: 'Zone.Identifier',
      text: '[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://api.example.com/\r\nHostUrl=https://files.example.com/api/attachments/files/abc/plan.pdf\r\n',
    })
  })

  it('leaves credentials out of the addresses, and an address that is none out altogether', () => {
    const text = (source: { hostUrl: string; referrerUrl?: string }) => (internetMark('win32', source, MADE) as { text: string }).text
    expect(text({ hostUrl: 'https://me:secret@files.example.com/f?x=1', referrerUrl: 'https://token@api.example.com/' })).toBe(
      '[ZoneTransfer]\r\nZoneId=3\r\nReferrerUrl=https://api.example.com/\r\nHostUrl=https://files.example.com/f?x=1\r\n',
    )
    expect(text({ hostUrl: 'not a url' })).toBe('[ZoneTransfer]\r\nZoneId=3\r\n')
    // A line break in an address never makes a line of its own (the URL parser drops it).
    expect(text({ hostUrl: 'https://files.example.com/a\r\nZoneId=0' })).toBe('[ZoneTransfer]\r\nZoneId=3\r\nHostUrl=https://files.example.com/aZoneId=0\r\n')
  })

  it('is the quarantine attribute on macOS: a download not yet approved, its time in hex, Outpost and a UUID', () => {
    // 0x6b084e40 seconds since 1970 is 2026-11-26T15:20:32Z.
    expect(internetMark('darwin', SOURCE, MADE)).toEqual({
      kind: 'quarantine',
      attribute: 'com.apple.quarantine',
      value: '0081;6b084e40;Outpost;1B4E28BA-2FA1-11D2-883F-0016D3CCA427',
    })
  })

  it.each(['linux', 'freebsd', 'openbsd', 'sunos', 'aix'] as const)('is nothing on %s, which has none the OS acts on', (platform) => {
    expect(internetMark(platform, SOURCE, MADE)).toEqual({
      kind: 'none',
      why: `${platform} has no "came from the internet" mark that the OS or its apps act on.`,
    })
  })
})

describe('writing the mark', () => {
  it('hands each platform’s mark to its writer, and nothing to any writer where there is none', async () => {
    for (const [platform, expected] of [
      ['win32', [['stream', '/cache/plan.pdf', 'Zone.Identifier', expect.stringContaining('ZoneId=3')]]],
      ['darwin', [['attribute', '/cache/plan.pdf', 'com.apple.quarantine', expect.stringMatching(/^0081;[0-9a-f]+;Outpost;[0-9A-F-]{36}$/)]]],
      ['linux', []],
    ] as const) {
      const { writers, written } = recordingWriters()
      await markFromInternet('/cache/plan.pdf', SOURCE, { platform, writers })
      expect(written, platform).toEqual(expected)
    }
  })

  it('passes a writer’s failure on (the main side logs it and keeps the file)', async () => {
    const writers: MarkWriters = {
      writeStream: async () => Promise.reject(new Error('EINVAL: a FAT disk has no streams')),
      setAttribute: async () => undefined,
    }
    await expect(markFromInternet('/cache/plan.pdf', SOURCE, { platform: 'win32', writers })).rejects.toThrow(/no streams/)
  })

  it.runIf(process.platform === 'linux')('with the system’s writers on Linux writes nothing: the file and its folder are as they were', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-mark-'))
    dirs.push(dir)
    const path = join(dir, 'plan.pdf')
    writeFileSync(path, 'the plan')
    const before = statSync(path)
    expect(await markFromInternet(path, SOURCE, { platform: process.platform, writers: systemWriters })).toMatchObject({ kind: 'none' })
    expect(readdirSync(dir)).toEqual(['plan.pdf'])
    expect(readFileSync(path, 'utf8')).toBe('the plan')
    const after = statSync(path)
    expect([after.size, after.mtimeMs, after.ctimeMs, after.mode]).toEqual([before.size, before.mtimeMs, before.ctimeMs, before.mode])
  })
})
