// Files and linked files over v3: multipart uploads, the bytes served back at
// each file's url, property updates, deletes, limits, and restarts.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Tokens } from '../../auth.ts'
import { startService, type RunningService } from '../../index.ts'
import { anonymous, testService, v3, type Client } from '../../../testing/service.ts'
import type { MemberRecord } from '../members/member.ts'
import { outpostLogo } from './png.ts'

let service: RunningService
let observerV3: string
let maxId: string

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  const members = service.ctx.col<MemberRecord>('member').all()
  maxId = members.find((m) => m.profile.mention_name === 'max')!.id
  const olga = members.find((m) => m.profile.mention_name === 'olga')!
  observerV3 = new Tokens(service.ctx).create('v3', olga.id, 'files test observer').secret
})
afterAll(() => service.close())

interface Part {
  name: string
  filename?: string
  type?: string
  data: Buffer | string
}

/** A multipart/form-data body built by hand, so names and headers are exactly what a test says. */
function form(parts: Part[]): { data: Buffer; contentType: string } {
  const boundary = `----outpost-test-${Math.random().toString(16).slice(2)}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`
    const head = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`
    chunks.push(Buffer.from(head), Buffer.from(p.data), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { data: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

const upload = (client: Client, parts: Part[]) => client.post('/files', undefined, { raw: form(parts) })

/** A story record as the stories resource stores it, made directly so these tests stand alone. */
function makeStory(): number {
  const ctx = service.ctx
  const now = ctx.now()
  const id = ctx.nextId()
  ctx.col('story').insert({ id, name: 'Files test story', archived: false, created_at: now, updated_at: now } as never)
  return id
}

async function fetchBytes(url: string, headers: Record<string, string> = { 'shortcut-token': service.tokens.v3 }) {
  const res = await request(url, { headers })
  return { status: res.statusCode, headers: res.headers, bytes: Buffer.from(await res.body.arrayBuffer()) }
}

describe('uploads', () => {
  it('uploads four files at once with story_id: 201 list of UploadedFile in field order', async () => {
    const storyId = makeStory()
    const png = outpostLogo(32)
    const res = await upload(v3(service), [
      { name: 'story_id', data: String(storyId) },
      { name: 'file2', filename: 'data.csv', type: 'text/csv', data: 'a,b\n1,2\n' },
      { name: 'file0', filename: 'logo.png', type: 'image/png', data: png },
      { name: 'file3', filename: 'notes.md', type: 'text/markdown', data: '# Notes\n' },
      { name: 'file1', filename: 'hello.txt', type: 'text/plain', data: 'hello' },
    ])
    expect(res.status).toBe(201)
    expect(res.body.map((f: { name: string }) => f.name)).toEqual(['logo.png', 'hello.txt', 'data.csv', 'notes.md'])
    const [logo, hello] = res.body
    expect(logo).toMatchObject({
      entity_type: 'file',
      filename: 'logo.png',
      name: 'logo.png',
      content_type: 'image/png',
      size: png.length,
      story_ids: [storyId],
      uploader_id: (await v3(service).get('/member')).body.id,
      description: null,
      external_id: null,
      member_mention_ids: [],
      group_mention_ids: [],
      mention_ids: [],
    })
    expect(logo.url).toBe(`${service.baseUrl}/media/files/${logo.id}/logo.png`)
    expect(logo.thumbnail_url).toBe(`${service.baseUrl}/media/thumbnails/${logo.id}/logo.png`)
    expect(hello).toMatchObject({ content_type: 'text/plain', size: 5, thumbnail_url: null })
    // And they are in the list and readable one by one.
    const listed = (await v3(service).get('/files')).body.map((f: { id: number }) => f.id)
    for (const f of res.body) expect(listed).toContain(f.id)
    expect((await v3(service).get(`/files/${hello.id}`)).body).toEqual(hello)
  })

  it('serves the bytes back identical, with type, length and a safe disposition, to any valid token', async () => {
    const png = outpostLogo(48)
    const [f] = (await upload(v3(service), [{ name: 'file0', filename: 'Résumé (final).png', type: 'image/png', data: png }])).body
    expect(f.url).toBe(`${service.baseUrl}/media/files/${f.id}/Resume_final_.png`)
    const got = await fetchBytes(f.url)
    expect(got.status).toBe(200)
    expect(got.bytes.equals(png)).toBe(true)
    expect(got.headers['content-type']).toBe('image/png')
    expect(got.headers['content-length']).toBe(String(png.length))
    expect(got.headers['content-disposition']).toBe(`inline; filename="R_sum_ (final).png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28final%29.png`)
    expect(got.headers['x-content-type-options']).toBe('nosniff')
    const thumb = await fetchBytes(f.thumbnail_url)
    expect(thumb.bytes.equals(png)).toBe(true)
    // Bearer tokens (v4) and the deprecated query token work too; no token is 401.
    expect((await fetchBytes(f.url, { authorization: `Bearer ${service.tokens.readonly}` })).bytes.equals(png)).toBe(true)
    expect((await fetchBytes(`${f.url}?token=${service.tokens.v3}`, {})).status).toBe(200)
    expect((await fetchBytes(f.url, {})).status).toBe(401)
    expect((await fetchBytes(f.url, { 'shortcut-token': 'nope' })).status).toBe(401)
  })

  it('serves risky types as downloads, and non-images have no thumbnail', async () => {
    const [page] = (await upload(v3(service), [{ name: 'file0', filename: 'page.html', type: 'text/html', data: '<script>alert(1)</script>' }])).body
    const got = await fetchBytes(page.url)
    expect(got.headers['content-type']).toBe('text/html')
    expect(got.headers['content-disposition']).toMatch(/^attachment; /)
    expect(got.headers['content-security-policy']).toContain('sandbox')
    expect(page.thumbnail_url).toBeNull()
    expect((await fetchBytes(`${service.baseUrl}/media/thumbnails/${page.id}/page.html`)).status).toBe(404)
    expect((await fetchBytes(`${service.baseUrl}/media/files/99999999/x`)).status).toBe(404)
    expect((await fetchBytes(`${service.baseUrl}/media/files/abc/x`)).status).toBe(400)
  })

  it('treats path traversal in a filename as just a name', async () => {
    const [f] = (await upload(v3(service), [{ name: 'file0', filename: '../../etc/passwd', data: 'not the real one' }])).body
    // A part without a Content-Type is text/plain (RFC 7578).
    expect(f).toMatchObject({ name: '../../etc/passwd', filename: '../../etc/passwd', content_type: 'text/plain' })
    expect(f.url).toBe(`${service.baseUrl}/media/files/${f.id}/passwd`)
    const got = await fetchBytes(f.url)
    expect(got.bytes.toString()).toBe('not the real one')
    expect(got.headers['content-disposition']).toBe(`inline; filename=".._.._etc_passwd"; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd`)
    const dots = (await upload(v3(service), [{ name: 'file0', filename: '..', data: 'x' }])).body[0]
    expect(dots.url).toBe(`${service.baseUrl}/media/files/${dots.id}/file`)
  })

  it.each([
    ['no file0', [{ name: 'file1', filename: 'a.txt', data: 'a' }], 'file0'],
    ['no parts', [], 'file0'],
    [
      'a fifth file',
      [
        { name: 'file0', filename: 'a', data: 'a' },
        { name: 'file4', filename: 'e', data: 'e' },
      ],
      'file4',
    ],
    [
      'file0 twice',
      [
        { name: 'file0', filename: 'a', data: 'a' },
        { name: 'file0', filename: 'b', data: 'b' },
      ],
      'file0',
    ],
    ['file0 as a text field', [{ name: 'file0', data: 'not a file' }], 'file0'],
    [
      'an unknown field',
      [
        { name: 'file0', filename: 'a', data: 'a' },
        { name: 'comment', data: 'x' },
      ],
      'comment',
    ],
    [
      'a bad story_id',
      [
        { name: 'story_id', data: 'abc' },
        { name: 'file0', filename: 'a', data: 'a' },
      ],
      'story_id',
    ],
  ] as [string, Part[], string][])('answers 400 to %s', async (_what, parts, field) => {
    const res = await upload(v3(service), parts)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('answers 400 to a body that is not multipart, 422 to an unknown story, 403 to Observers', async () => {
    const json = await v3(service).post('/files', { file0: 'x' })
    expect(json.status).toBe(400)
    const unknown = await upload(v3(service), [
      { name: 'story_id', data: '99999999' },
      { name: 'file0', filename: 'a', data: 'a' },
    ])
    expect(unknown.status).toBe(422)
    expect(unknown.body.errors).toEqual({ story_id: 'no such story' })
    const obs = await upload(v3(service, observerV3), [{ name: 'file0', filename: 'a', data: 'a' }])
    expect(obs.status).toBe(403)
    // Nothing was stored by the refused uploads.
    expect((await v3(service).get('/files')).body.some((f: { name: string }) => f.name === 'a')).toBe(false)
  })
})

describe('file properties', () => {
  it('updates properties, not content', async () => {
    const [f] = (await upload(v3(service), [{ name: 'file0', filename: 'plan.txt', type: 'text/plain', data: 'the plan' }])).body
    const res = await v3(service).put(`/files/${f.id}`, {
      name: 'Plan v2.txt',
      description: 'For @max to review',
      external_id: 'ext-1',
      created_at: '2024-01-02T03:04:05.000Z',
      updated_at: '2024-02-03T04:05:06.000Z',
      uploader_id: maxId,
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      name: 'Plan v2.txt',
      filename: 'plan.txt',
      description: 'For @max to review',
      external_id: 'ext-1',
      created_at: '2024-01-02T03:04:05.000Z',
      updated_at: '2024-02-03T04:05:06.000Z',
      uploader_id: maxId,
      member_mention_ids: [maxId],
      mention_ids: [maxId],
      size: 8,
      url: f.url,
    })
    expect((await v3(service).get(`/files/${f.id}`)).body).toEqual(res.body)
    const got = await fetchBytes(f.url)
    expect(got.bytes.toString()).toBe('the plan')
    expect(got.headers['content-disposition']).toContain('filename="Plan v2.txt"')
  })

  it('answers 422 naming the field past its limit, 400 to schema mismatches, 404 to unknown files', async () => {
    const [f] = (await upload(v3(service), [{ name: 'file0', filename: 'limits.txt', data: 'x' }])).body
    const api = v3(service)
    expect((await api.put(`/files/${f.id}`, { name: 'n'.repeat(1024) })).status).toBe(200)
    const long = await api.put(`/files/${f.id}`, { name: 'n'.repeat(1025) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ name: 'must be at most 1024 characters' })
    expect((await api.put(`/files/${f.id}`, { external_id: 'e'.repeat(129) })).body.errors).toEqual({ external_id: 'must be at most 128 characters' })
    expect((await api.put(`/files/${f.id}`, { uploader_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(422)
    expect((await api.put(`/files/${f.id}`, { created_at: 'yesterday' })).status).toBe(400)
    expect((await api.put(`/files/${f.id}`, { content: 'new bytes' })).status).toBe(400)
    expect((await api.put(`/files/${f.id}`, { name: '' })).status).toBe(400)
    expect((await api.put('/files/99999999', { name: 'x' })).status).toBe(404)
    expect((await api.get('/files/99999999')).status).toBe(404)
    expect((await api.get('/files/abc')).status).toBe(400)
  })

  it('deletes the record and its bytes', async () => {
    const storyId = makeStory()
    const [f] = (
      await upload(v3(service), [
        { name: 'story_id', data: String(storyId) },
        { name: 'file0', filename: 'gone.txt', data: 'bye' },
      ])
    ).body
    expect((await v3(service).delete(`/files/${f.id}`)).status).toBe(204)
    expect((await v3(service).get(`/files/${f.id}`)).status).toBe(404)
    expect((await fetchBytes(f.url)).status).toBe(404)
    expect(service.ctx.db.prepare('SELECT count(*) AS n FROM file_blobs WHERE id = ?').get(String(f.id))).toEqual({ n: 0 })
    expect((await v3(service).delete(`/files/${f.id}`)).status).toBe(404)
  })

  it('lists the demo files, whose bytes are real', async () => {
    const list = (await v3(service).get('/files')).body
    const logo = list.find((f: { name: string }) => f.name === 'outpost-logo.png')
    expect(logo).toBeTruthy()
    const got = await fetchBytes(logo.url)
    expect(got.bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true)
    const csv = list.find((f: { content_type: string }) => f.content_type === 'text/csv')
    expect((await fetchBytes(csv.url)).bytes.toString()).toContain(',')
  })
})

describe('linked files', () => {
  it('creates, reads, lists, updates and deletes', async () => {
    const api = v3(service)
    const storyId = makeStory()
    const made = await api.post('/linked-files', {
      name: 'Spec sheet',
      type: 'google',
      url: 'https://docs.google.com/document/d/abc',
      content_type: 'application/vnd.google-apps.document',
      description: 'Ask @max',
      size: 2048,
      story_id: storyId,
      thumbnail_url: 'https://example.com/thumb.png',
      uploader_id: maxId,
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      entity_type: 'linked-file',
      name: 'Spec sheet',
      type: 'google',
      url: 'https://docs.google.com/document/d/abc',
      size: 2048,
      story_ids: [storyId],
      thumbnail_url: 'https://example.com/thumb.png',
      uploader_id: maxId,
      member_mention_ids: [maxId],
    })
    const id = made.body.id
    expect((await api.get(`/linked-files/${id}`)).body).toEqual(made.body)
    expect((await api.get('/linked-files')).body.map((f: { id: number }) => f.id)).toContain(id)

    const minimal = await api.post('/linked-files', { name: 'Site', type: 'url', url: 'https://example.com' })
    expect(minimal.body).toMatchObject({ content_type: null, description: null, size: null, story_ids: [], thumbnail_url: null })
    expect(minimal.body.uploader_id).toBe((await api.get('/member')).body.id)

    const other = makeStory()
    const updated = await api.put(`/linked-files/${id}`, { name: 'Spec sheet v2', type: 'dropbox', story_id: other })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ name: 'Spec sheet v2', type: 'dropbox', url: 'https://docs.google.com/document/d/abc', story_ids: [storyId, other] })

    expect((await api.delete(`/linked-files/${id}`)).status).toBe(204)
    expect((await api.get(`/linked-files/${id}`)).status).toBe(404)
    expect((await api.delete(`/linked-files/${id}`)).status).toBe(404)
  })

  it('answers 422 naming each field past its limit, and takes exactly the limit', async () => {
    const api = v3(service)
    const base = { name: 'n', type: 'url', url: 'https://example.com' }
    const long = 'https://example.com/'
    expect(
      (
        await api.post('/linked-files', {
          ...base,
          name: 'n'.repeat(256),
          url: long + 'u'.repeat(2048 - long.length),
          thumbnail_url: long + 't'.repeat(2048 - long.length),
        })
      ).status,
    ).toBe(201)
    for (const [field, value, limit] of [
      ['name', 'n'.repeat(257), 256],
      ['url', long + 'u'.repeat(2049 - long.length), 2048],
      ['thumbnail_url', long + 't'.repeat(2049 - long.length), 2048],
    ] as const) {
      const res = await api.post('/linked-files', { ...base, [field]: value })
      expect(res.status).toBe(422)
      expect(res.body.errors).toEqual({ [field]: `must be at most ${limit} characters` })
    }
    const made = (await api.post('/linked-files', base)).body
    const put = await api.put(`/linked-files/${made.id}`, { name: 'n'.repeat(257) })
    expect(put.status).toBe(422)
    expect(put.body.errors).toEqual({ name: 'must be at most 256 characters' })
  })

  it.each([
    [{ type: 'url', url: 'https://x' }, 'name'],
    [{ name: 'n', url: 'https://x' }, 'type'],
    [{ name: 'n', type: 'url' }, 'url'],
    [{ name: 'n', type: 'ftp', url: 'https://x' }, 'type'],
    [{ name: 'n', type: 'url', url: 'https://x', size: -1 }, 'size'],
    [{ name: 'n', type: 'url', url: 'https://x', story_id: 'one' }, 'story_id'],
    [{ name: 'n', type: 'url', url: 'https://x', uploader_id: 'ada' }, 'uploader_id'],
    [{ name: 'n', type: 'url', url: 'https://x', color: 'red' }, 'color'],
  ])('answers 400 to a create body %o', async (body, field) => {
    const res = await v3(service).post('/linked-files', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('answers 422 to an unknown story or uploader, 404 to unknown linked files, 403 to Observers', async () => {
    const api = v3(service)
    const base = { name: 'n', type: 'url', url: 'https://example.com' }
    expect((await api.post('/linked-files', { ...base, story_id: 99999999 })).body.errors).toEqual({ story_id: 'no such story' })
    expect((await api.post('/linked-files', { ...base, uploader_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(422)
    expect((await api.put('/linked-files/99999999', { name: 'x' })).status).toBe(404)
    expect((await api.get('/linked-files/99999999')).status).toBe(404)
    expect((await api.get('/linked-files/abc')).status).toBe(400)
    expect((await v3(service, observerV3).post('/linked-files', base)).status).toBe(403)
    expect((await anonymous(service, '/api/v3').get('/linked-files')).status).toBe(401)
  })
})

describe('durability and size', () => {
  it('keeps the bytes across a restart on the same database file, and answers 413 past the size limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-files-test-'))
    const db = join(dir, 'service.db')
    try {
      const first = await startService({ db, rateLimit: 'off', maxFileBytes: 1024 })
      const png = outpostLogo(12)
      expect(png.length).toBeLessThan(1024)
      const made = await upload(v3(first), [{ name: 'file0', filename: 'keep.png', type: 'image/png', data: png }])
      expect(made.status).toBe(201)
      const big = await upload(v3(first), [
        { name: 'file0', filename: 'small.txt', data: 'ok' },
        { name: 'file1', filename: 'big.bin', data: Buffer.alloc(2048, 7) },
      ])
      expect(big.status).toBe(413)
      expect(big.body).toMatchObject({ tag: 'payload_too_large', errors: { file1: 'must be at most 1024 bytes' } })
      expect(big.body.message).toContain('big.bin')
      expect((await v3(first).get('/files')).body.map((f: { name: string }) => f.name)).toEqual(['keep.png'])
      await first.close()

      const second = await startService({ db, rateLimit: 'off' })
      try {
        expect(second.tokens).toEqual(first.tokens)
        const [f] = (await v3(second).get('/files')).body
        const url = f.url.replace(/^http:\/\/[^/]+/, second.baseUrl)
        const res = await request(url, { headers: { 'shortcut-token': second.tokens.v3 } })
        expect(res.statusCode).toBe(200)
        expect(Buffer.from(await res.body.arrayBuffer()).equals(png)).toBe(true)
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('seeds large workspaces with small files quickly', async () => {
    const started = Date.now()
    const big = await startService({ seed: { files: 200 }, rateLimit: 'off' })
    try {
      expect(Date.now() - started).toBeLessThan(5000)
      const list = (await v3(big).get('/files')).body
      expect(list).toHaveLength(200)
      const got = await request(list[0].url, { headers: { 'shortcut-token': big.tokens.v3 } })
      expect(Number(got.headers['content-length'])).toBe(list[0].size)
      await got.body.arrayBuffer()
    } finally {
      await big.close()
    }
  })
})
