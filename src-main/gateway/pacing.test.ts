// Pacing against the real local service, with a scaled window (20 a 2 s rather
// than 200 a minute): the service's own sliding log is the judge, and the
// arrival times it sees are checked window by window.
import { afterEach, describe, expect, it } from 'vitest'
import type { Lane, OperationName } from '../../src-shared/api/operations.ts'
import type { RunningService } from '../../src-server/index.ts'
import { testService } from '../../testing/service.ts'
import { EARLY_LISTS, EarlyAnswers, earlyKey } from './early.ts'
import { Gateway } from './gateway.ts'

interface Watched {
  service: RunningService
  /** Arrival of each request at the service (performance.now()), with its URL. */
  arrivals: { at: number; url: string }[]
  /** Status of each answered request, in answer order, with when it was answered. */
  answers: { at: number; status: number; line: string }[]
}

const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close()
})

async function watchedService(options: Parameters<typeof testService>[0]): Promise<Watched> {
  const answers: Watched['answers'] = []
  const service = await testService({
    ...options,
    log: (line) => answers.push({ at: performance.now(), status: Number(line.split(' ')[2]), line }),
  })
  open.push(service)
  const arrivals: Watched['arrivals'] = []
  service.app.server.on('request', (req: { url?: string }) => arrivals.push({ at: performance.now(), url: req.url ?? '' }))
  return { service, arrivals, answers }
}

function gatewayFor(service: RunningService, options: Partial<ConstructorParameters<typeof Gateway>[0]> = {}): Gateway {
  const gateway = new Gateway({ baseUrl: service.baseUrl, workspaceSlug: service.workspace, token: service.tokens.admin, tokenKind: 'v4', ...options })
  open.push(gateway)
  return gateway
}

/** The most requests that arrived within any `windowMs` (each arrival opening a window). */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++
    most = Math.max(most, i - j + 1)
  }
  return most
}

const LIMIT = { max: 20, windowMs: 2000 }

describe('gateway pacing', () => {
  it('sends three times the limit of mixed-lane requests with zero 429s and never more than the limit in a window', async () => {
    const { service, arrivals, answers } = await watchedService({ seed: 'demo', rateLimit: LIMIT })
    const gateway = gatewayFor(service, { rateLimit: LIMIT })
    const kinds: [OperationName, Lane][] = [
      ['categories.list', 'sync'],
      ['member', 'user-read'],
      ['members.list', 'sync'],
      ['whoami', 'user-read'],
    ]
    const calls = Array.from({ length: 3 * LIMIT.max }, (_, i) => {
      if (i % 10 === 9) return gateway.call('categories.create', { body: { name: `Paced ${i}` } })
      const [name, lane] = kinds[i % kinds.length]
      return gateway.call(name, { lane })
    })
    const results = await Promise.allSettled(calls)
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    expect(answers.filter((a) => a.status === 429)).toEqual([])
    expect(answers).toHaveLength(3 * LIMIT.max)
    expect(
      busiestWindow(
        arrivals.map((a) => a.at),
        LIMIT.windowMs,
      ),
    ).toBeLessThanOrEqual(LIMIT.max)
  })

  it('lets a burst of exactly the limit through at once with zero 429s', async () => {
    const { service, answers, arrivals } = await watchedService({ seed: 'demo', rateLimit: LIMIT })
    const gateway = gatewayFor(service, { rateLimit: LIMIT, concurrency: LIMIT.max })
    const results = await Promise.all(Array.from({ length: LIMIT.max }, () => gateway.call('member', { lane: 'user-read' })))
    expect(results).toHaveLength(LIMIT.max)
    expect(answers.map((a) => a.status)).toEqual(Array(LIMIT.max).fill(200))
    // All of them inside one window: nothing was held back.
    expect(
      busiestWindow(
        arrivals.map((a) => a.at),
        LIMIT.windowMs,
      ),
    ).toBe(LIMIT.max)
  })

  it('keeps the last connections for the user: a request of theirs goes at once while the sync fills its own', async () => {
    const { service, arrivals } = await watchedService({ seed: 'demo', faults: { latencyMs: 300 } })
    const gateway = gatewayFor(service, { concurrency: 4 })
    const sync = Array.from({ length: 6 }, () => gateway.call('member', { lane: 'sync' }))
    await new Promise((r) => setTimeout(r, 50))
    // Two of four connections are the sync's, and busy for 300 ms; four more sync requests wait.
    expect(gateway.waiting).toBe(4)
    const userSent = performance.now()
    await gateway.call('files.list', { lane: 'user-read' })
    await Promise.all(sync)
    expect(arrivals.find((a) => a.url === '/api/v3/files')!.at - userSent).toBeLessThan(100)
  })

  it("counts a sign-in's requests (its token check and the lists asked early) in the account's window: a burst after them meets no 429", async () => {
    const { service, answers, arrivals } = await watchedService({ seed: 'demo', rateLimit: LIMIT })
    const started = performance.now()
    // The sign-in's own gateway asks for the lists while the token is checked, as CurrentGateway.askEarly does.
    const signIn = gatewayFor(service, { rateLimit: LIMIT })
    const early = new EarlyAnswers()
    early.spent(signIn.call('whoami'))
    for (const name of EARLY_LISTS) early.add(earlyKey(name), signIn.call(name))
    const gateway = gatewayFor(service, { rateLimit: LIMIT, concurrency: 2 * LIMIT.max, early })
    await Promise.all(Array.from({ length: LIMIT.max }, () => gateway.call('member', { lane: 'sync' })))
    expect(answers.filter((a) => a.status === 429)).toEqual([])
    expect(arrivals).toHaveLength(LIMIT.max + 3)
    expect(
      busiestWindow(
        arrivals.map((a) => a.at),
        LIMIT.windowMs,
      ),
    ).toBeLessThanOrEqual(LIMIT.max)
    // The sync's burst took what the sign-in left of the first window, less the user's reserve.
    expect(arrivals.filter((a) => a.at < started + LIMIT.windowMs)).toHaveLength(LIMIT.max - 1)
  })

  it("keeps the last of the window for the user: a sync burst takes the limit less 5%, the user's request the rest", async () => {
    const { service, answers, arrivals } = await watchedService({ seed: 'demo', rateLimit: LIMIT })
    const gateway = gatewayFor(service, { rateLimit: LIMIT, concurrency: 2 * LIMIT.max })
    const started = performance.now()
    const sync = Array.from({ length: LIMIT.max }, () => gateway.call('member', { lane: 'sync' }))
    await new Promise((r) => setTimeout(r, 200))
    // The sync's share of the window is spent and one of its requests waits for the next: the user's goes now.
    expect(gateway.waiting).toBe(1)
    const userSent = performance.now()
    await gateway.call('files.list', { lane: 'user-read' })
    await Promise.all(sync)
    expect(arrivals.find((a) => a.url === '/api/v3/files')!.at - userSent).toBeLessThan(100)
    expect(answers.filter((a) => a.status === 429)).toEqual([])
    const firstWindow = arrivals.filter((a) => a.at < started + LIMIT.windowMs)
    expect(firstWindow.filter((a) => a.url === '/api/v3/member')).toHaveLength(LIMIT.max - 1)
    expect(firstWindow).toHaveLength(LIMIT.max)
  })

  it('leaves the user 5 of the window beside a sync that says it has 60 requests to make', async () => {
    const { service, answers, arrivals } = await watchedService({ seed: 'demo', rateLimit: LIMIT })
    const gateway = gatewayFor(service, { rateLimit: LIMIT, concurrency: 2 * LIMIT.max })
    const started = performance.now()
    let answered = 0
    // 19 of 20 a window for the background: 60 take three turns of the window, as 15 a window do.
    const sync = Array.from({ length: 60 }, (_, i) => gateway.call('member', { lane: 'sync', ahead: 59 - i }).then(() => answered++))
    while (answered < 15) await new Promise((r) => setTimeout(r, 10))
    expect(gateway.waiting).toBe(45)
    // Five of the user's reads, while the sync's share of the window is spent: they go now, not at its turn.
    const user = Array.from({ length: 5 }, () => gateway.call('files.list', { lane: 'user-read' }))
    await Promise.all(user)
    expect(gateway.waiting).toBe(45)
    await Promise.all(sync)
    expect(answers.filter((a) => a.status === 429)).toEqual([])
    const firstWindow = arrivals.filter((a) => a.at < started + LIMIT.windowMs)
    expect(firstWindow.filter((a) => a.url === '/api/v3/member')).toHaveLength(15)
    expect(firstWindow.filter((a) => a.url === '/api/v3/files')).toHaveLength(5)
  })

  it('sends a queued user write before queued user reads, and those before queued sync', async () => {
    const { service, arrivals } = await watchedService({ seed: 'demo', faults: { latencyMs: 150 } })
    const gateway = gatewayFor(service, { concurrency: 1 })
    const [a, b, c, d] = (await gateway.call<{ id: number }[]>('files.list')).map((f) => f.id)
    const names = new Map(
      [
        [a, 's1'],
        [b, 'r1'],
        [c, 's2'],
        [d, 'r2'],
      ].map(([id, name]) => [`/api/v3/files/${id}`, name as string]),
    )
    arrivals.length = 0
    // The first request holds the only slot while the others queue up behind it; each file names its request.
    const first = gateway.call('member', { lane: 'sync' })
    await new Promise((r) => setTimeout(r, 20))
    const queued = [
      gateway.call('files.get', { lane: 'sync', params: { id: a } }),
      gateway.call('files.get', { lane: 'user-read', params: { id: b } }),
      gateway.call('files.get', { lane: 'sync', params: { id: c } }),
      gateway.call('linkedFiles.create', { body: { name: 'Spec', type: 'url', url: 'https://example.com/spec' } }),
      gateway.call('files.get', { lane: 'user-read', params: { id: d } }),
    ]
    expect(gateway.waiting).toBe(5)
    await Promise.all([first, ...queued])
    const order = arrivals.map((x) => {
      const path = new URL(x.url, 'http://x').pathname
      return path === '/api/v3/member' ? 'first' : path === '/api/v3/linked-files' ? 'w1' : names.get(path)
    })
    expect(order).toEqual(['first', 'w1', 'r1', 'r2', 's1', 's2'])
  })

  it("honours the service's Retry-After when its limit is lower than the gateway's, and every call still succeeds", async () => {
    const serviceLimit = { max: 5, windowMs: 2000 }
    const { service, answers, arrivals } = await watchedService({ seed: 'demo', rateLimit: serviceLimit })
    const gateway = gatewayFor(service, { rateLimit: { max: 50, windowMs: 2000 }, concurrency: 4 })
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => gateway.call('member', { lane: i % 2 ? 'sync' : 'user-read' })))
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    const refused = answers.filter((a) => a.status === 429)
    expect(refused.length).toBeGreaterThan(0)
    expect(answers.filter((a) => a.status === 200)).toHaveLength(12)
    // After each 429 the whole account waits out Retry-After (1 s or more here):
    // no request reaches the service in that quiet time (a small grace either side
    // for the ones already on their way when the 429 was written).
    for (const r of refused) {
      const quiet = arrivals.filter((a) => a.at > r.at + 100 && a.at < r.at + 1000 - 100)
      expect(quiet).toEqual([])
    }
  })
})
