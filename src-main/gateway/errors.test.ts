// What the caller is told when things go wrong, against the real local service
// and its fault injection: each error kind, retries of what is safe to retry,
// and "outcome unknown" for a write whose answer was lost.
import { createServer } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../src-server/index.ts'
import { testService, v3 } from '../../testing/service.ts'
import { GatewayError } from './errors.ts'
import { Gateway, type GatewayOptions } from './gateway.ts'

let service: RunningService
const answered: number[] = []
beforeAll(async () => {
  service = await testService({ seed: 'demo', log: (line) => answered.push(Number(line.split(' ')[2])) })
})
afterAll(() => service.close())

const gateways: Gateway[] = []
afterEach(async () => {
  service.setFaults({ latencyMs: 0, failRate: 0, dropRate: 0, dropAfterCommitRate: 0 })
  for (const g of gateways.splice(0)) await g.close()
})

// Short backoff so that retries take milliseconds.
const FAST_RETRY = { baseDelayMs: 10, maxDelayMs: 50 }

function gatewayFor(options: Partial<GatewayOptions> = {}): Gateway {
  const g = new Gateway({
    baseUrl: service.baseUrl,
    workspaceSlug: service.workspace,
    token: service.tokens.admin,
    tokenKind: 'v4',
    retry: FAST_RETRY,
    ...options,
  })
  gateways.push(g)
  return g
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(GatewayError)
  return error as GatewayError
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

describe('the HTTPS rule', () => {
  it('refuses plain HTTP to any host but this machine', () => {
    const make = (baseUrl: string) => () => new Gateway({ baseUrl, workspaceSlug: 'demo', token: 'svc_rw_x', tokenKind: 'v4' })
    for (const url of ['http://api.example.com', 'http://10.0.0.5:8080', 'http://128.0.0.1', 'http://[::2]', 'http://localhost.example.com']) {
      expect(make(url)).toThrow(expect.objectContaining({ kind: 'insecure' }))
    }
    for (const url of ['not a url', 'ftp://example.com', 'https://user:pw@example.com', 'https://example.com/?token=x']) {
      expect(make(url)).toThrow(expect.objectContaining({ kind: 'bad-url' }))
    }
  })

  it('accepts HTTPS anywhere and plain HTTP on loopback', async () => {
    for (const url of [
      'https://api.example.com',
      'https://example.com/work/',
      'http://127.0.0.1:9',
      'http://127.1.2.3',
      'http://localhost:3000',
      'http://[::1]:3000',
    ]) {
      const g = new Gateway({ baseUrl: url, workspaceSlug: 'demo', token: 'svc_rw_x', tokenKind: 'v4' })
      await g.close()
    }
  })

  it('never sends the token for a download from another origin', async () => {
    const g = gatewayFor()
    const e = await failure(g.download('https://elsewhere.example.com/media/files/1/a.txt', '/tmp/never-written'))
    expect(e.kind).toBe('insecure')
  })
})

describe('error mapping', () => {
  it('network: nothing listens on the port', async () => {
    const port = await closedPort()
    const online: boolean[] = []
    const g = gatewayFor({ baseUrl: `http://127.0.0.1:${port}`, onReachability: (o) => online.push(o), retry: { ...FAST_RETRY, attempts: 2 } })
    const e = await failure(g.call('whoami'))
    expect(e).toMatchObject({ kind: 'network', attempts: 2 })
    expect(online).toEqual([false, false])
    // A create that never left is not "outcome unknown": it was certainly not made.
    expect((await failure(g.call('categories.create', { body: { name: 'Never' } }))).kind).toBe('network')
  })

  it('timeout: the service answers later than the headers timeout', async () => {
    // undici checks its timeouts about twice a second, so the latency is well past the timeout.
    service.setFaults({ latencyMs: 2000 })
    const g = gatewayFor({ timeouts: { headersMs: 200 }, retry: { ...FAST_RETRY, attempts: 2 } })
    expect(await failure(g.call('member'))).toMatchObject({ kind: 'timeout', attempts: 2 })
    // A create that timed out may have been made: the caller must look before sending it again.
    expect(await failure(g.call('categories.create', { body: { name: 'Slow' } }))).toMatchObject({ kind: 'outcome-unknown', attempts: 1 })
  })

  it("http: 404 and 422 carry the service's status, tag, message and per-field errors", async () => {
    const g = gatewayFor()
    const missing = await failure(g.call('categories.get', { params: { id: 987_654 } }))
    expect(missing).toMatchObject({ kind: 'http', status: 404, tag: 'not_found', message: 'Category 987654 does not exist.' })
    // A well-formed create the service refuses: a state it does not have.
    const refused = await failure(g.call('epics.create', { body: { name: 'In no state', epic_state_id: 987_654 } }))
    expect(refused).toMatchObject({ kind: 'http', status: 422, errors: { epic_state_id: expect.any(String) } })
    expect(refused.message).toMatch(/state/i)
    expect(refused.toJSON()).toEqual({ kind: 'http', status: 422, tag: refused.tag, message: refused.message, errors: refused.errors })
  })

  it('auth: 401 for a bad token, and a v3 token refused for v4 operations before anything is sent', async () => {
    const bad = gatewayFor({ token: 'svc_rw_not-a-real-token' })
    expect(await failure(bad.call('whoami'))).toMatchObject({ kind: 'auth', status: 401 })
    const before = answered.length
    const v3Only = gatewayFor({ token: service.tokens.v3, tokenKind: 'v3' })
    expect(await failure(v3Only.call('epics.list'))).toMatchObject({ kind: 'auth' })
    expect(answered.length).toBe(before)
    expect(await v3Only.call('member')).toMatchObject({ mention_name: 'ada' })
  })

  it('readonly: a write with an svc_ro_ token', async () => {
    const g = gatewayFor({ token: service.tokens.readonly })
    expect(await failure(g.call('categories.create', { body: { name: 'Nope' } }))).toMatchObject({ kind: 'readonly', status: 403, tag: 'read_only_token' })
    expect(await g.call('whoami')).toMatchObject({ entity_type: 'whoami' })
  })
})

describe('retries', () => {
  it('retries reads through injected 5xx and dropped connections until they succeed', async () => {
    service.setFaults({ failRate: 0.3, dropRate: 0.2 })
    const online: boolean[] = []
    const g = gatewayFor({ retry: { ...FAST_RETRY, attempts: 8 }, onReachability: (o) => online.push(o) })
    const before = answered.length
    const results = await Promise.all(Array.from({ length: 20 }, () => g.call('member', { lane: 'sync' })))
    expect(results.every((r) => (r as { mention_name: string }).mention_name === 'ada')).toBe(true)
    const statuses = answered.slice(before)
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0)
    expect(statuses.filter((s) => s === 200)).toHaveLength(20)
    expect(online).toContain(false) // the dropped connections
    expect(online.at(-1)).toBe(true)
  })

  it('gives up on a read after the bounded number of attempts', async () => {
    service.setFaults({ failRate: 1 })
    const g = gatewayFor({ retry: { ...FAST_RETRY, attempts: 3 } })
    expect(await failure(g.call('member'))).toMatchObject({ kind: 'http', status: 503, attempts: 3 })
  })

  it('does not retry a create on a 5xx: its outcome is unknown', async () => {
    service.setFaults({ failRate: 1 })
    const g = gatewayFor()
    expect(await failure(g.call('categories.create', { body: { name: 'Maybe' } }))).toMatchObject({ kind: 'outcome-unknown', status: 503, attempts: 1 })
  })

  it('reports outcome-unknown for a create whose answer is lost after it committed, and sends it once', async () => {
    service.setFaults({ dropAfterCommitRate: 1 })
    const g = gatewayFor()
    const e = await failure(g.call('categories.create', { body: { name: 'Committed but unheard', external_id: 'outbox-42' } }))
    expect(e).toMatchObject({ kind: 'outcome-unknown', attempts: 1 })
    service.setFaults({ dropAfterCommitRate: 0 })
    // It was made, exactly once: the outbox finds it by external_id instead of sending it again.
    const all = (await v3(service).get('/categories')).body as { external_id: string | null }[]
    expect(all.filter((c) => c.external_id === 'outbox-42')).toHaveLength(1)
  })

  it('retries an idempotent write whose answer was lost', async () => {
    const g = gatewayFor()
    const made = (await g.call('categories.create', { body: { name: 'Rename me' } })) as { id: number }
    service.setFaults({ dropAfterCommitRate: 1 })
    const e = await failure(g.call('categories.update', { params: { id: made.id }, body: { name: 'Renamed' } }))
    // Every attempt committed and lost its answer; the update is idempotent, so that did no harm.
    expect(e).toMatchObject({ kind: 'network', attempts: 4 })
    service.setFaults({ dropAfterCommitRate: 0 })
    expect(await g.call('categories.get', { params: { id: made.id } })).toMatchObject({ name: 'Renamed' })
  })

  it('stops waiting for a request whose signal aborts while it is queued', async () => {
    const g = gatewayFor({ rateLimit: { max: 1, windowMs: 60_000 } })
    await g.call('member')
    const controller = new AbortController()
    const queued = g.call('member', { signal: controller.signal })
    controller.abort(new Error('user cancelled'))
    await expect(queued).rejects.toThrow('user cancelled')
    expect(g.waiting).toBe(0)
  })
})
