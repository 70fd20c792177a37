// The service compresses an answer when the request's Accept-Encoding allows it and the answer is
// worth it (COMPRESS_THRESHOLD), never otherwise: compression is transport, the JSON is the same.
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPRESS_THRESHOLD } from './app.ts'
import type { RunningService } from './index.ts'
import { testService } from '../testing/service.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: { epics: 150, docs: 5, files: 3 }, rateLimit: 'off' })
})
afterAll(() => service.close())

/** One GET as sent, its answer's bytes as they came (not decoded). */
async function raw(path: string, acceptEncoding?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${service.tokens.admin}`, 'shortcut-token': service.tokens.admin }
  if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding
  const res = await request(`${service.baseUrl}${path}`, { headers })
  return { status: res.statusCode, encoding: res.headers['content-encoding'], vary: res.headers.vary, bytes: Buffer.from(await res.body.arrayBuffer()) }
}

const epicPage = '/api/v4/demo/epics?limit=100&filter=include_archived'

describe('answers compressed when asked', () => {
  it('prefers brotli, and sends the same JSON as without compression', async () => {
    const plain = await raw(epicPage)
    const both = await raw(epicPage, 'gzip, br')
    expect(both.encoding).toBe('br')
    expect(both.vary).toContain('accept-encoding')
    expect(both.bytes.length).toBeLessThan(plain.bytes.length / 5)
    // Each first page takes a snapshot of its own (its cursor differs); the entities are the same.
    const entities = (bytes: Buffer) => JSON.parse(bytes.toString('utf8')).entities as unknown[]
    expect(entities(brotliDecompressSync(both.bytes))).toEqual(entities(plain.bytes))
  })

  it('gives gzip to a client that only takes gzip, v3 lists too', async () => {
    const plain = await raw('/api/v3/epics')
    const gzip = await raw('/api/v3/epics', 'gzip')
    expect(gzip.encoding).toBe('gzip')
    expect(gunzipSync(gzip.bytes).equals(plain.bytes)).toBe(true)
  })

  it('never compresses for a request that does not ask, or asks for identity', async () => {
    for (const asked of [undefined, 'identity']) {
      const answer = await raw(epicPage, asked)
      expect(answer.encoding).toBeUndefined()
      expect(JSON.parse(answer.bytes.toString('utf8')).entities).toHaveLength(100)
    }
  })

  it('leaves small answers as they are', async () => {
    const small = await raw('/api/v4/demo/epics?limit=1&fields=id', 'gzip, br')
    expect(small.bytes.length).toBeLessThan(COMPRESS_THRESHOLD)
    expect(small.encoding).toBeUndefined()
    expect(JSON.parse(small.bytes.toString('utf8')).entities).toHaveLength(1)
  })

  it('compresses error answers only as any other: a 404 stays readable', async () => {
    const missing = await raw('/api/v4/demo/epics/999999', 'gzip, br')
    expect(missing.status).toBe(404)
    expect(JSON.parse(missing.bytes.toString('utf8')).tag).toBeDefined()
  })
})
