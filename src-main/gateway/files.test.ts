// Uploads and downloads against the real local service: the multipart form it
// reads (file0..file3, story_id, names), progress, and the bytes coming back
// exactly as they left.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UploadedFileV3 } from '../../src-shared/api/v3/files.ts'
import type { RunningService } from '../../src-server/index.ts'
import { testService } from '../../testing/service.ts'
import { GatewayError } from './errors.ts'
import { Gateway, type DownloadProgress, type UploadProgress } from './gateway.ts'

let service: RunningService
let gateway: Gateway
let dir: string
const sources: { path: string; name: string; bytes: Buffer }[] = []

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  gateway = new Gateway({ baseUrl: service.baseUrl, workspaceSlug: service.workspace, token: service.tokens.admin, tokenKind: 'v4' })
  dir = mkdtempSync(join(tmpdir(), 'outpost-gateway-files-'))
  const add = (name: string, bytes: Buffer) => {
    const path = join(dir, `source-${sources.length}`)
    writeFileSync(path, bytes)
    sources.push({ path, name, bytes })
  }
  add('diagram.png', randomBytes(2 * 1024 * 1024 + 17))
  add('notes.txt', Buffer.from('Plain notes\r\n--not-a-boundary--\r\nend\n'))
  add('Résumé – brouillon 2.pdf', randomBytes(70_001))
  add('empty.csv', Buffer.alloc(0))
})

afterAll(async () => {
  await gateway.close()
  await service.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The bytes the service serves at a file's url, read without the gateway. */
async function servedBytes(url: string): Promise<Buffer> {
  const res = await request(url, { headers: { authorization: `Bearer ${service.tokens.admin}` } })
  expect(res.statusCode).toBe(200)
  return Buffer.from(await res.body.arrayBuffer())
}

describe('upload', () => {
  let uploaded: UploadedFileV3[]
  const progress: UploadProgress[] = []

  beforeAll(async () => {
    uploaded = await gateway.upload<UploadedFileV3[]>(
      sources.map((s) => ({ path: s.path, name: s.name })),
      { onProgress: (p) => progress.push(p) },
    )
  })

  it('sends four files as file0..file3 with their names and types, in order', () => {
    expect(uploaded.map((f) => f.name)).toEqual(sources.map((s) => s.name))
    expect(uploaded.map((f) => f.size)).toEqual(sources.map((s) => s.bytes.length))
    expect(uploaded.map((f) => f.content_type)).toEqual(['image/png', 'text/plain', 'application/pdf', 'text/csv'])
    expect(uploaded.every((f) => f.entity_type === 'file' && f.story_ids.length === 0)).toBe(true)
  })

  it('reports progress from 0 to the total of the files, never going back', () => {
    const total = sources.reduce((n, s) => n + s.bytes.length, 0)
    expect(progress[0]).toEqual({ sent: 0, total })
    expect(progress.at(-1)).toEqual({ sent: total, total })
    expect(progress.length).toBeGreaterThan(10)
    for (let i = 1; i < progress.length; i++) expect(progress[i].sent).toBeGreaterThanOrEqual(progress[i - 1].sent)
  })

  it('stores exactly the bytes that were on disk', async () => {
    for (const [i, f] of uploaded.entries()) expect((await servedBytes(f.url)).equals(sources[i].bytes)).toBe(true)
  })

  it('sends story_id: attaches to a story, and a missing story is a 422 naming the field', async () => {
    const story = service.ctx.col('story').all()[0] as { id: number } | undefined
    expect(story).toBeDefined()
    const [attached] = await gateway.upload<UploadedFileV3[]>([{ path: sources[1].path, name: 'attached.txt' }], { storyId: story!.id })
    expect(attached.story_ids).toEqual([story!.id])
    const e = await gateway.upload([{ path: sources[1].path, name: 'orphan.txt' }], { storyId: 999_999 }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(GatewayError)
    expect(e).toMatchObject({ kind: 'http', status: 422, errors: { story_id: 'no such story' } })
  })

  it('takes one to four files', async () => {
    const five = Array.from({ length: 5 }, () => ({ path: sources[1].path, name: 'x.txt' }))
    await expect(gateway.upload(five)).rejects.toThrow(RangeError)
    await expect(gateway.upload([])).rejects.toThrow(RangeError)
  })

  it('reports outcome-unknown, not a second upload, when the answer is lost', async () => {
    const before = service.ctx.col('file').all().length
    service.setFaults({ dropAfterCommitRate: 1 })
    try {
      const e = await gateway.upload([{ path: sources[1].path, name: 'lost-answer.txt' }]).catch((x: unknown) => x)
      expect(e).toMatchObject({ kind: 'outcome-unknown' })
    } finally {
      service.setFaults({ dropAfterCommitRate: 0 })
    }
    expect(service.ctx.col('file').all().length).toBe(before + 1)
  })

  describe('download', () => {
    it('streams each file into the cache folder with progress, through a temporary name', async () => {
      const cache = join(dir, 'cache', 'files')
      for (const [i, f] of uploaded.entries()) {
        const seen: DownloadProgress[] = []
        const dest = join(cache, `${f.id}`)
        const done = await gateway.download(f.url, dest, (p) => seen.push(p))
        expect(done.bytes).toBe(sources[i].bytes.length)
        expect(readFileSync(dest).equals(sources[i].bytes)).toBe(true)
        if (sources[i].bytes.length > 0) {
          expect(seen.at(-1)).toEqual({ received: sources[i].bytes.length, total: sources[i].bytes.length })
        }
      }
      expect(readdirSync(cache).sort()).toEqual(uploaded.map((f) => String(f.id)).sort())
    })

    it('accepts the url relative to the service, and leaves nothing behind on a 404', async () => {
      const cache = join(dir, 'cache-404')
      const path = new URL(uploaded[1].url).pathname
      await gateway.download(path, join(cache, 'relative'))
      expect(readFileSync(join(cache, 'relative')).equals(sources[1].bytes)).toBe(true)
      const e = await gateway.download('/media/files/987654/missing.txt', join(cache, 'missing')).catch((x: unknown) => x)
      expect(e).toMatchObject({ kind: 'http', status: 404 })
      expect(existsSync(join(cache, 'missing'))).toBe(false)
      expect(readdirSync(cache)).toEqual(['relative'])
    })
  })
})
