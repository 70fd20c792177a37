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
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Gateway } from '../src-main/gateway/index.ts'
import { OutpostDb } from '../src-renderer/src/data/db.ts'
import { gatewayTransport } from '../testing/gateway-transport.ts'
import type { Transport } from '../src-renderer/src/data/transport.ts'
import { startService, type RunningService } from '../src-server/index.ts'

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
  /** Stops counting and returns what was counted. */
  stop(): Traffic
}

export interface BenchService {
  service: RunningService
  /** Counts the requests of one token (its secret) from now until stop(). */
  record(token: string): Recording
  close(): Promise<void>
}

/**
 * The local service at the benchmarks' rate limit, with a meter on its HTTP
 * server: counting on the service's side sees the official client (axios and
 * fetch) and Outpost (undici) the same way, 429s and retries included.
 */
export async function startBenchService(seed: { epics: number; docs: number; files: number }): Promise<BenchService> {
  const service = await startService({ seed, rateLimit: RATE_LIMIT })
  const recordings = new Map<string, Traffic>()
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const traffic = recordings.get(presentedToken(req) ?? '')
    if (!traffic) return
    traffic.requests++
    traffic.arrivals.push({ at: performance.now(), method: req.method ?? '', path: (req.url ?? '').split('?')[0] })
    const route = routeOf(req)
    traffic.routes.set(route, (traffic.routes.get(route) ?? 0) + 1)
    // One request at a time per connection (no pipelining): what the socket wrote meanwhile is this answer.
    const socket = req.socket
    const before = socket.bytesWritten
    res.once('finish', () => {
      traffic.bytes += socket.bytesWritten - before
      if (res.statusCode === 429) traffic.rateLimited++
    })
  }
  // Ahead of Fastify's own listener, so the meter's "before" precedes any byte of the answer.
  service.app.server.prependListener('request', onRequest)
  return {
    service,
    record(token) {
      if (recordings.has(token)) throw new Error('This token is already being recorded')
      const traffic: Traffic = { requests: 0, rateLimited: 0, bytes: 0, routes: new Map(), arrivals: [] }
      recordings.set(token, traffic)
      return {
        traffic,
        stop: () => {
          recordings.delete(token)
          return traffic
        },
      }
    },
    close: () => service.close(),
  }
}

function presentedToken(req: IncomingMessage): string | undefined {
  const header = (name: string) => {
    const v = req.headers[name]
    return Array.isArray(v) ? v[0] : v
  }
  const bearer = /^Bearer\s+(\S+)/i.exec(header('authorization') ?? '')?.[1]
  return bearer ?? header('service-token') ?? header('shortcut-token')
}

function routeOf(req: IncomingMessage): string {
  const path = (req.url ?? '').split('?')[0]
  const general = path.replace(/\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=\/|$)/gi, '/{id}').replace(/\/\d+(?=\/|$)/g, '/{id}')
  return `${req.method} ${general}`
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
    return { result, ms: performance.now() - started, traffic: recording.stop() }
  } catch (error) {
    recording.stop()
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
export function outpostClient(service: RunningService, token = service.tokens.admin): OutpostClient {
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
export function held(service: RunningService): Record<string, number> {
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
export function floorOf(service: RunningService): number {
  const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE))
  const c = held(service)
  return 8 + pages(c.epicStates) + 1 + pages(c.epics) + pages(c.docs)
}
