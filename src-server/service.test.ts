// The service as a whole: fault injection, restart, the CLI, the schema routes.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from './index.ts'
import { parseRateLimit } from './ratelimit.ts'
import { anonymous, testService, v4, v4Root } from '../testing/service.ts'

describe('fault injection', () => {
  let service: RunningService
  beforeAll(async () => {
    service = await testService()
  })
  afterAll(() => service.close())

  it('adds latency', async () => {
    service.setFaults({ latencyMs: 120 })
    const started = performance.now()
    expect((await v4Root(service).get('/whoami')).status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(110)
    service.setFaults({ latencyMs: 0 })
  })

  it('holds the requests of the paths named until they are no longer named, answers the others, and refuses what is not a path', async () => {
    service.setFaults({ heldPaths: ['/api/v4/whoami'] })
    let answered = false
    const held = v4Root(service)
      .get('/whoami')
      .then((res) => ((answered = true), res))
    // Another path is answered meanwhile.
    expect((await v4(service).get('/categories', { query: { limit: 1 } })).status).toBe(200)
    expect(answered).toBe(false)
    service.setFaults({ heldPaths: [] })
    expect((await held).status).toBe(200)
    expect(() => service.setFaults({ heldPaths: ['whoami'] })).toThrow('heldPaths: "whoami" is not a path')
  })

  it('answers 503 with the error body at the fail rate, without handling the request', async () => {
    service.setFaults({ failRate: 1 })
    const res = await v4(service).post('/categories', { name: 'Never made' })
    service.setFaults({ failRate: 0 })
    expect(res.status).toBe(503)
    expect(res.body.tag).toBe('service_unavailable')
    const all = await v4(service).get('/categories', { query: { limit: 100 } })
    expect(all.body.entities.map((c: { name: string }) => c.name)).not.toContain('Never made')
  })

  it('drops the connection before the write at the drop rate', async () => {
    service.setFaults({ dropRate: 1 })
    await expect(v4(service).post('/categories', { name: 'Dropped before' })).rejects.toThrow()
    service.setFaults({ dropRate: 0 })
    const all = await v4(service).get('/categories', { query: { limit: 100 } })
    expect(all.body.entities.map((c: { name: string }) => c.name)).not.toContain('Dropped before')
  })

  it('commits the write and loses the answer at the drop-after-commit rate', async () => {
    service.setFaults({ dropAfterCommitRate: 1 })
    await expect(v4(service).post('/categories', { name: 'Dropped after', external_id: 'after-commit-1' })).rejects.toThrow()
    // Reads are never dropped after commit: there is nothing to commit.
    expect((await v4(service).get('/categories')).status).toBe(200)
    service.setFaults({ dropAfterCommitRate: 0 })
    const all = await v4(service).get('/categories', { query: { limit: 100 } })
    expect(all.body.entities.filter((c: { external_id: string }) => c.external_id === 'after-commit-1')).toHaveLength(1)
  })

  it('refuses rates outside 0..1', () => {
    expect(() => service.setFaults({ failRate: 2 })).toThrow(/between 0 and 1/)
  })
})

describe('storage', () => {
  it('keeps data and tokens across a restart on the same file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-restart-'))
    try {
      const file = join(dir, 'service.db')
      const first = await startService({ db: file, rateLimit: 'off' })
      const made = await v4(first).post('/categories', { name: 'Survives restart', color: '#123456' })
      expect(made.status).toBe(201)
      const tokens = first.tokens
      await first.close()
      const second = await startService({ db: file, rateLimit: 'off' })
      try {
        expect(second.tokens).toEqual(tokens)
        const back = await v4(second).get(`/categories/${made.body.id}`)
        expect(back.body).toMatchObject({ name: 'Survives restart', color: '#123456' })
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('serves concurrent writes without losing any', async () => {
    const service = await testService()
    try {
      const api = v4(service)
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post('/categories', { name: `Parallel ${i}` })))
      expect(results.every((r) => r.status === 201)).toBe(true)
      expect(new Set(results.map((r) => r.body.id)).size).toBe(50)
      expect((await api.get('/categories', { query: { limit: 100 } })).body.total_items).toBe(50)
    } finally {
      await service.close()
    }
  })
})

describe('request bodies', () => {
  let service: RunningService
  beforeAll(async () => {
    service = await testService({ bodyLimit: 64 * 1024 })
  })
  afterAll(() => service.close())

  it('answers 413 to a body over the limit', async () => {
    const res = await v4(service).post('/categories', { name: 'x', external_id: 'y'.repeat(100 * 1024) })
    expect(res.status).toBe(413)
    expect(res.body.tag).toBe('payload_too_large')
  })

  it('answers 400 to malformed JSON and to prototype pollution', async () => {
    const bad = await v4(service).call('POST', '/categories', { raw: { data: '{"name": ', contentType: 'application/json' } })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/not valid JSON/)
    const proto = await v4(service).call('POST', '/categories', { raw: { data: '{"name":"p","__proto__":{"admin":true}}', contentType: 'application/json' } })
    expect(proto.status).toBe(400)
  })

  it('takes an empty form body as no body, as axios sends bodiless PUTs', async () => {
    const res = await v4(service).call('GET', '/categories', { raw: { data: '', contentType: 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(200)
  })

  it('answers 415 to a body type it does not take', async () => {
    const res = await v4(service).call('POST', '/categories', { raw: { data: 'name=x', contentType: 'application/x-www-form-urlencoded' } })
    expect(res.status).toBe(415)
    expect(typeof res.body.message).toBe('string')
  })
})

describe('schemas', () => {
  let service: RunningService
  beforeAll(async () => {
    service = await testService()
  })
  afterAll(() => service.close())

  it('lists v4 route schemas and returns one as JSON Schema', async () => {
    const index = await v4Root(service).get('/schemas')
    expect(index.body.schemas).toContain('post-categories')
    const one = await v4Root(service).get('/schemas/post-categories')
    expect(one.status).toBe(200)
    expect(one.body.body.required).toEqual(['name'])
    expect(one.body.body.properties.name.maxLength).toBe(128)
    expect((await v4Root(service).get('/schemas/nothing-like-this')).status).toBe(404)
    expect((await anonymous(service, '/api/v4').get('/schemas/post-categories')).status).toBe(401)
  })
})

describe('rate limit flag', () => {
  it('parses windows and refuses nonsense', () => {
    expect(parseRateLimit('200/60s')).toEqual({ max: 200, windowMs: 60_000 })
    expect(parseRateLimit('200/6s')).toEqual({ max: 200, windowMs: 6_000 })
    expect(parseRateLimit('10/1m')).toEqual({ max: 10, windowMs: 60_000 })
    expect(parseRateLimit('off')).toBe('off')
    expect(() => parseRateLimit('lots')).toThrow(/--rate-limit/)
    expect(() => parseRateLimit('0/60s')).toThrow(/at least one/)
  })
})

describe('command line', () => {
  const cli = (args: string[]) => spawn(process.execPath, ['--import', 'tsx', 'src-server/cli.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })

  it('prints one JSON line with the base URL, workspace and tokens, then logs requests', async () => {
    const child = cli(['--port', '0', '--seed', 'demo'])
    try {
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
      const first = JSON.parse((await lines.next()).value as string)
      expect(first.workspace).toBe('demo')
      expect(Object.keys(first.tokens).sort()).toEqual(['admin', 'member', 'observer', 'readonly', 'v3'])
      const res = await fetch(`${first.baseUrl}/api/v3/member?token=${first.tokens.v3}`)
      expect(res.status).toBe(200)
      const logged = (await lines.next()).value as string
      expect(logged).toMatch(/^GET \/api\/v3\/member\?token=\[redacted\] 200 /)
      expect(logged).not.toContain(first.tokens.v3)
    } finally {
      child.kill('SIGTERM')
    }
  })

  it('exits 2 with a clear message on a bad flag', async () => {
    const child = cli(['--rate-limit', 'lots'])
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    const code = await new Promise((resolve) => child.on('exit', resolve))
    expect(code).toBe(2)
    expect(err).toMatch(/--rate-limit takes N\/<window>/)
  })
})
