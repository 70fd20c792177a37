// Shared setup of the data-layer benchmarks (bootstrap, incremental, replay): the
// local service under its rate limit (the window scaled so a run takes
// minutes, not hours), a meter on the service's side that counts what each
// token asks and is sent, and Outpost's real data layer in Node (the Gateway
// of src-main, gatewayTransport, Dexie over fake-indexeddb). The baseline
// (./baseline, the official client) runs on the same service with the same
// token, so both sides share one budget of the limit and one meter.
//
// Knobs (environment):
//   BENCH_SCALE      workspace size as a fraction of the full one (1: 10,000 epics, 2,000 docs, 1,000 files)
//   BENCH_WINDOW_MS  the rate limit's window for 200 requests (6000: ten times the real minute)
//   BENCH_ROUNDS     repetitions whose median is reported (3)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Gateway } from '../src-main/gateway/index.ts'
import { OutpostDb } from '../src-renderer/src/data/db.ts'
import { gatewayTransport } from '../testing/gateway-transport.ts'
import type { Transport } from '../src-renderer/src/data/transport.ts'
import { ServiceContext } from '../src-server/context.ts'
import { openDatabase } from '../src-server/db.ts'
import type { Faults, RunningService } from '../src-server/index.ts'
import type { ServiceThreadControl, ServiceThreadData, ServiceThreadEvent } from './service-thread.ts'

export const SCALE = Number(process.env.BENCH_SCALE ?? 1)
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
/** The service allows 200 requests a minute (spec part 2 §8); benchmarks run it 200 in this window. */
export const RATE_LIMIT = { max: 200, windowMs: Number(process.env.BENCH_WINDOW_MS ?? 6_000) }
export const REAL_RATE_LIMIT = { max: 200, windowMs: 60_000 }

/** The workspace, scaled. */
export function workspaceSize(scale = SCALE): { epics: number; docs: number; files: number } {
  return { epics: Math.round(10_000 * scale), docs: Math.round(2_000 * scale), files: Math.round(1_000 * scale) }
}

export const describeLimit = () =>
  RATE_LIMIT.windowMs === REAL_RATE_LIMIT.windowMs
    ? 'the real 200 requests a minute'
    : `200 requests every ${RATE_LIMIT.windowMs / 1000} s (the real 200 a minute, ${REAL_RATE_LIMIT.windowMs / RATE_LIMIT.windowMs}x faster)`

/**
 * What a run measured at the scaled limit would take at the real one. Only the
 * waits for the limit stretch with the window, not the work, so "wall time
 * times 10" would overstate a run the limit never held back. This takes the
 * longer of the measured time and the least the real limit allows for that
 * many requests (no 60-second window may hold more than 200).
 */
export function realMinutes(wallMs: number, requests: number): number {
  const scaled = RATE_LIMIT.windowMs < REAL_RATE_LIMIT.windowMs
  return (scaled ? Math.max(wallMs, leastTimeFor(requests, REAL_RATE_LIMIT)) : wallMs) / 60_000
}

/** The least time `requests` take under a limit: the (max + 1)th request waits for the first to leave the window, and so on. */
export function leastTimeFor(requests: number, limit: { max: number; windowMs: number } = RATE_LIMIT): number {
  return Math.floor(Math.max(0, requests - 1) / limit.max) * limit.windowMs
}

// ---- the service and its meter ------------------------------------------------------------

/** Starts counting this process's CPU (user and system); the function returns the seconds used since. */
export function processCpu(): () => number {
  const before = process.cpuUsage()
  return () => {
    const used = process.cpuUsage(before)
    return (used.user + used.system) / 1e6
  }
}

/** What one token asked of the service and was sent, as the service saw it. */
export interface Traffic {
  requests: number
  /** Answers 429 (refused by the rate limit, not processed). */
  rateLimited: number
  /** Bytes the service wrote for these answers: status line, headers and body. */
  bytes: number
  /** Requests by route ("GET /api/v4/demo/epics", ids as {id}). */
  routes: Map<string, number>
  /** Each request as it arrived: when (this process's performance.now()), its method and its path. */
  arrivals: { at: number; method: string; path: string }[]
}

export interface Recording {
  /** What is counted so far, as it is counted. */
  readonly traffic: Traffic
  /** Stops counting and returns what was counted, once every counted request's answer is told. */
  stop(): Promise<Traffic>
}

/** The service as the benchmarks see it: on a thread of its own (service-thread.ts); `ctx` reads its store. */
export type BenchServiceView = Pick<RunningService, 'baseUrl' | 'workspace' | 'tokens' | 'ctx' | 'close'> & {
  /** Faults from the next request the service reads. */
  setFaults(faults: Partial<Faults>): Promise<void>
}

export interface BenchService {
  service: BenchServiceView
  /** Counts the requests of one token (its secret) from now until stop(). */
  record(token: string): Recording
  close(): Promise<void>
}

/** How long stop() waits for answers still being sent (a client that went away closes its answers). */
const SETTLE_MS = 10_000

/**
 * The local service at the benchmarks' rate limit, on a thread of its own (service-thread.ts), with a meter
 * on its HTTP server: counting on the service's side sees the official client (axios and fetch) and Outpost
 * (undici) the same way, 429s and retries included. The benchmark's thread reads the service's SQLite file
 * (WAL) through a context of its own: what the service holds, never a write.
 */
export async function startBenchService(seed: { epics: number; docs: number; files: number }): Promise<BenchService> {
  const folder = mkdtempSync(join(tmpdir(), 'outpost-bench-service-'))
  const data: ServiceThreadData = { db: join(folder, 'service.db'), seed, rateLimit: RATE_LIMIT }
  // The thread loads TypeScript as the benchmark does (tsx).
  const entry = new URL('./service-thread.ts', import.meta.url).href
  const source = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(entry)})`
  const thread = new Worker(source, { eval: true, workerData: data })
  /** A recording's traffic, and its requests whose answers are not told yet (by number). */
  type Counting = { traffic: Traffic; open: Set<number> }
  const recordings = new Map<string, Counting>()
  const answering = new Map<number, Counting>()
  const done = new Map<number, () => void>()
  let controls = 0
  let up = false
  const ready = new Promise<Extract<ServiceThreadEvent, { type: 'ready' }>>((resolve, reject) => {
    // A service that fails once up stops the benchmark, as it would in the benchmark's own thread.
    thread.on('error', (error) => {
      if (up) throw error
      reject(error)
    })
    thread.on('message', (event: ServiceThreadEvent) => {
      if (event.type === 'ready') resolve(event)
      else if (event.type === 'arrived') {
        const counting = recordings.get(event.token ?? '')
        if (!counting) return
        const { traffic } = counting
        traffic.requests++
        traffic.arrivals.push({ at: event.at - performance.timeOrigin, method: event.method, path: event.url.split('?')[0] })
        const route = routeOf(event.method, event.url)
        traffic.routes.set(route, (traffic.routes.get(route) ?? 0) + 1)
        counting.open.add(event.n)
        answering.set(event.n, counting)
      } else if (event.type === 'answered') {
        const counting = answering.get(event.n)
        if (!counting) return
        answering.delete(event.n)
        counting.open.delete(event.n)
        counting.traffic.bytes += event.bytes
        if (event.status === 429) counting.traffic.rateLimited++
      } else if (event.type === 'done') done.get(event.id)?.()
    })
  })
  const control = (message: DistributiveOmit<ServiceThreadControl, 'id'>) => {
    const id = ++controls
    return new Promise<void>((resolve) => {
      done.set(id, () => {
        done.delete(id)
        resolve()
      })
      thread.postMessage({ ...message, id })
    })
  }
  const started = await ready
  up = true
  const db = openDatabase(data.db)
  const service: BenchServiceView = {
    baseUrl: started.baseUrl,
    workspace: started.workspace,
    tokens: started.tokens,
    ctx: new ServiceContext(db),
    setFaults: (faults) => control({ type: 'faults', faults }),
    close: async () => {
      await control({ type: 'close' })
      await thread.terminate()
      db.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
  return {
    service,
    record(token) {
      if (recordings.has(token)) throw new Error('This token is already being recorded')
      const counting: Counting = { traffic: { requests: 0, rateLimited: 0, bytes: 0, routes: new Map(), arrivals: [] }, open: new Set() }
      recordings.set(token, counting)
      return {
        traffic: counting.traffic,
        stop: async () => {
          recordings.delete(token)
          const giveUpAt = performance.now() + SETTLE_MS
          while (counting.open.size > 0 && performance.now() < giveUpAt) await sleep(5)
          return counting.traffic
        },
      }
    },
    close: () => service.close(),
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

function routeOf(method: string, url: string): string {
  const path = url.split('?')[0]
  const general = path.replace(/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=\/|$)/gi, '/{id}').replace(/\/\d+(?=\/|$)/g, '/{id}')
  return `${method} ${general}`
}

/**
 * Waits until the token's window holds none of the last run's requests, so the
 * next run starts with the whole budget, as after a pause in real use.
 */
export const emptyWindow = () => sleep(RATE_LIMIT.windowMs + 250)

/** Runs `run`, timing it and counting the token's traffic on the service. */
export async function measured<T>(bench: BenchService, token: string, run: () => Promise<T>): Promise<{ result: T; ms: number; traffic: Traffic }> {
  const recording = bench.record(token)
  const started = performance.now()
  try {
    const result = await run()
    return { result, ms: performance.now() - started, traffic: await recording.stop() }
  } catch (error) {
    await recording.stop()
    throw error
  }
}

// ---- Outpost's side -----------------------------------------------------------------------

export interface OutpostClient {
  db: OutpostDb
  transport: Transport
  gateway: Gateway
  close(): Promise<void>
}

/**
 * Outpost's data layer as the app has it, in Node: the main side's Gateway
 * (paced to the service's limit, honouring 429s), a Transport straight over it,
 * and a fresh IndexedDB (fake-indexeddb) for the cache.
 */
export function outpostClient(service: BenchServiceView, token = service.tokens.admin): OutpostClient {
  const gateway = new Gateway({
    baseUrl: service.baseUrl,
    workspaceSlug: service.workspace,
    token,
    tokenKind: 'v4',
    rateLimit: RATE_LIMIT,
  })
  const folder = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
  const transport = gatewayTransport(gateway, { staging: join(folder, 'staging'), cache: join(folder, 'cache') })
  const db = new OutpostDb(`outpost:bench:${service.workspace}`, { indexedDB: new IDBFactory(), IDBKeyRange })
  return {
    db,
    transport,
    gateway,
    async close() {
      db.close()
      await gateway.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/**
 * A Transport that notes how long at least one of its requests was on its way
 * (waits for the gateway's pacing included): the rest of a run's wall time is
 * the data layer's own work (reading and writing the cache).
 */
export function timedTransport(inner: Transport): Transport & { busyMs(): number } {
  let inFlight = 0
  let since = 0
  let busy = 0
  const timed = async <T>(run: () => Promise<T>): Promise<T> => {
    if (inFlight++ === 0) since = performance.now()
    try {
      return await run()
    } finally {
      if (--inFlight === 0) busy += performance.now() - since
    }
  }
  return {
    call: (operation, request) => timed(() => inner.call(operation, request)),
    upload: (files, options) => timed(() => inner.upload(files, options)),
    download: (fileId, url, name, lane) => timed(() => inner.download(fileId, url, name, lane)),
    stage: (file) => inner.stage(file),
    discard: (path) => inner.discard(path),
    sweepStaged: (keep) => inner.sweepStaged(keep),
    busyMs: () => busy + (inFlight > 0 ? performance.now() - since : 0),
  }
}

// ---- small things every benchmark uses ------------------------------------------------------

/**
 * Phrases typed letter by letter in the epic list's search, over epics the service seeded ("Epic N",
 * "Seeded epic N."): names, a misspelt word (the search index's part), ids. `sets` of four.
 */
export function epicPhrases(random: () => number, epics: number, sets: number): string[] {
  const n = () => 1 + Math.floor(random() * epics)
  return Array.from({ length: sets }, () => [`epic ${n()}`, `epik ${n()}`, `#${n()}`, `seeded epic ${n()}`]).flat()
}

/** Deterministic random numbers (mulberry32), so every run changes the same things. */
export function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `count` distinct items of `items`, in a random order. */
export function sample<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items]
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[pool[i], pool[j]] = [pool[j], pool[i]]
  }
  return pool.slice(0, count)
}

/** "GET /api/v4/demo/epics" as "/v4/epics" (GET unsaid), "PATCH /api/v4/demo/epics/bulk" as "PATCH /v4/epics/bulk". */
export const shortRoute = (route: string) =>
  route
    .replace(/^GET /, '')
    .replace(/\/api\/v4\/[^/]+/, '/v4')
    .replace('/api/v3', '/v3')

/** "/v4/epics 3, PATCH /v4/epics/bulk 1": requests by route, most frequent first. */
export function describeRoutes(routes: Map<string, number>, top = 6): string {
  const sorted = [...routes].sort((a, b) => b[1] - a[1])
  const shown = sorted.slice(0, top).map(([route, n]) => `${shortRoute(route)} ${n}`)
  return sorted.length > top ? `${shown.join(', ')}, ...` : shown.join(', ')
}

/** The run with the median request count (the one whose breakdown a table shows). */
export function medianRun<T extends { requests: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.requests - b.requests)[Math.floor((runs.length - 1) / 2)]
}

export const ratio = (a: number, b: number) => (b === 0 ? Number.POSITIVE_INFINITY : a / b)
export const megabytes = (bytes: number) => bytes / 1e6

// ---- what the service holds, and the fewest requests for it -------------------------------

/** v4 page size the sync asks for. */
export const PAGE = 100

/** Counts the service holds, straight from its store (what the cache must end up with). */
export function held(service: BenchServiceView): Record<string, number> {
  const count = (kind: string) => service.ctx.col(kind as never).ids().length
  return { epics: count('epic'), docs: count('doc'), files: count('file'), epicStates: count('epic_state') }
}

/**
 * The fewest requests the API allows for this data (see sync.ts): the eight
 * v3 lists (members, groups, categories, objectives, labels, custom fields,
 * files, linked files), the epic states (one v4 page), the v3 epic list (the
 * only source of positions), v4 epic pages of 100 (the only pages carrying
 * comments and health) and v4 doc pages of 100 (the only pages carrying
 * content). An empty list is still one page.
 */
export function floorOf(service: BenchServiceView): number {
  const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE))
  const c = held(service)
  return 8 + pages(c.epicStates) + 1 + pages(c.epics) + pages(c.docs)
}
