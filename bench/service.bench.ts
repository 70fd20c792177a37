// Benchmark: the local service's v4 epics list (10,000 epics, pages of 100)
// under load at 1 and 8 connections, each figure beside its floor: the same
// page read from the same database and stringified with no framework
// (./service-floor.ts), measured in the same run. The floor's answer is checked
// to be the service's, byte for byte, before either is timed. Besides latency
// and throughput, the CPU time of one page: this process's CPU time over a run
// (the service, or the floor, is all it runs; the load comes from a child
// process), divided by the pages served. Unlike wall time it barely moves when
// other work shares the machine.
//
// A second floor serves the same page over HTTP with node:http alone (the
// same reads and JSON, no framework), under the same load from the same load
// generator: at 8 connections on a small machine the load generator and the
// server share the cores, and the time a request waits for them is in both.
//
// Knobs (environment): BENCH_SECONDS (8) per load run, BENCH_ROUNDS (3).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startService } from '../src-server/index.ts'
import { load, type LoadResult } from './load.ts'
import { median, percentile, report, type Figure } from './report.ts'
import { EpicPageFloor, type FloorPage } from './service-floor.ts'

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = [1, 8] as const
const LIMIT = 100

const service = await startService({ seed: { epics: 10_000, docs: 0, files: 0 }, rateLimit: 'off' })
const headers = { authorization: `Bearer ${service.tokens.admin}` }
const firstUrl = `${service.baseUrl}/api/v4/${service.workspace}/epics?limit=${LIMIT}`
const floor = new EpicPageFloor(service.ctx.db, service.baseUrl, service.workspace)

const get = async (url: string) => {
  const answer = await fetch(url, { headers })
  if (!answer.ok) throw new Error(`${url}: ${answer.status}`)
  return answer.text()
}
const cursorOf = (text: string) => new URL((JSON.parse(text) as { next_page_url: string }).next_page_url).searchParams.get('cursor')!

// A later page: what most requests of a client walking the list look like.
const firstText = await get(firstUrl)
const firstCursor = cursorOf(firstText)
const laterUrl = `${service.baseUrl}/api/v4/${service.workspace}/epics?cursor=${firstCursor}`
const laterText = await get(laterUrl)
const laterCursor = cursorOf(laterText)

interface Page {
  name: string
  url: string
  floor: () => FloorPage
}
const pages: Page[] = [
  { name: 'first page', url: firstUrl, floor: () => floor.first(LIMIT, firstCursor) },
  { name: 'later page (cursor)', url: laterUrl, floor: () => floor.later(firstCursor, laterCursor) },
]

// The floor must answer what the service answers, or it is the floor of something else.
for (const [page, text] of [
  [pages[0], firstText],
  [pages[1], laterText],
] as const) {
  if (page.floor().text !== text) throw new Error(`The floor's ${page.name} differs from the service's answer`)
}

// The bare HTTP floor: each page's floor, answered by node:http at the service's path (looked up, not parsed, per request).
const pathOf = (url: string) => {
  const { pathname, search } = new URL(url)
  return pathname + search
}
const pagesByPath = new Map(pages.map((page) => [pathOf(page.url), page]))
const bare = createServer((req, res) => {
  const page = pagesByPath.get(req.url ?? '')
  if (!page) return void res.writeHead(404).end()
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(page.floor().text)
})
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve))
const bareOrigin = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`
const bareUrl = (page: Page) => bareOrigin + pathOf(page.url)
// It answers the floor's text, which was checked against the service's above.
for (const page of pages) if ((await get(bareUrl(page))) !== page.floor().text) throw new Error(`node:http's ${page.name} differs from the floor's`)

/** CPU time of this process (user and system), ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

interface ServiceRun extends LoadResult {
  /** CPU time per answered request, ms. */
  cpuPerPage: number
}

async function measureService(url: string, connections: number): Promise<ServiceRun> {
  const cpu = cpuMs()
  const result = await load({ url, headers, connections, seconds: SECONDS })
  return { ...result, cpuPerPage: (cpuMs() - cpu) / Math.max(1, result.latencies.length) }
}

interface FloorRun {
  /** One page, ms. */
  times: number[]
  /** Eight pages back to back, ms: the least a request waits when eight are in flight on one thread. */
  eights: number[]
  pagesPerSecond: number
  cpuPerPage: number
}

function measureFloor(page: Page, seconds: number): FloorRun {
  const times: number[] = []
  const cpu = cpuMs()
  const started = performance.now()
  while (performance.now() - started < seconds * 1000) {
    const t = performance.now()
    page.floor()
    times.push(performance.now() - t)
  }
  const eights: number[] = []
  for (let i = 0; i + 8 <= times.length; i += 8) eights.push(times.slice(i, i + 8).reduce((a, b) => a + b, 0))
  return { times, eights, pagesPerSecond: times.length / ((performance.now() - started) / 1000), cpuPerPage: (cpuMs() - cpu) / times.length }
}

// Warm all up (JIT, SQLite's page cache) before anything counts.
for (const page of pages) {
  measureFloor(page, 1)
  await load({ url: page.url, headers, connections: 8, seconds: 2 })
  await load({ url: bareUrl(page), headers, connections: 8, seconds: 2 })
}

const floorRuns = new Map<string, FloorRun[]>()
const serviceRuns = new Map<string, ServiceRun[]>()
const bareRuns = new Map<string, ServiceRun[]>()
const add = <T>(map: Map<string, T[]>, key: string, value: T) => map.set(key, [...(map.get(key) ?? []), value])
for (let round = 0; round < ROUNDS; round++) {
  for (const page of pages) {
    add(floorRuns, page.name, measureFloor(page, Math.max(1, SECONDS / 2)))
    for (const connections of CONNECTIONS) {
      add(serviceRuns, `${page.name} ${connections}`, await measureService(page.url, connections))
      add(bareRuns, `${page.name} ${connections}`, await measureService(bareUrl(page), connections))
    }
  }
}
await service.close()
bare.close()

const ms = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)} ms`
const figures: Figure[] = []
for (const page of pages) {
  const floors = floorRuns.get(page.name)!
  for (const connections of CONNECTIONS) {
    const runs = serviceRuns.get(`${page.name} ${connections}`)!
    const floorLatency = (p: number) => median(floors.map((f) => percentile(connections === 1 ? f.times : f.eights, p)))
    const name = `${page.name}, ${connections} connection${connections > 1 ? 's' : ''}`
    for (const p of [50, 99]) {
      const value = median(runs.map((r) => percentile(r.latencies, p)))
      const bound = floorLatency(p)
      figures.push({ bench: 'service', figure: `${name}: p${p} latency`, value, unit: 'ms', note: `floor ${ms(bound)}, ${(value / bound).toFixed(2)}x` })
    }
    const bares = bareRuns.get(`${page.name} ${connections}`)!
    for (const p of [50, 99]) {
      const value = median(runs.map((r) => percentile(r.latencies, p)))
      const bound = median(bares.map((r) => percentile(r.latencies, p)))
      figures.push({
        bench: 'service',
        figure: `${name}: p${p} latency against node:http alone`,
        value: value / bound,
        unit: 'x',
        note: `the same page from node:http with no framework, same load: p${p} ${ms(bound)}`,
      })
    }
    const rps = median(runs.map((r) => r.requestsPerSecond))
    const floorRps = median(floors.map((f) => f.pagesPerSecond))
    figures.push({
      bench: 'service',
      figure: `${name}: throughput`,
      value: rps,
      unit: 'req/s',
      note: `floor ${floorRps.toFixed(0)} req/s, ${(floorRps / rps).toFixed(2)}x`,
    })
    const cpu = median(runs.map((r) => r.cpuPerPage))
    const floorCpu = median(floors.map((f) => f.cpuPerPage))
    const bareCpu = median(bares.map((r) => r.cpuPerPage))
    figures.push({
      bench: 'service',
      figure: `${name}: CPU per page`,
      value: cpu,
      unit: 'ms',
      note: `floor ${ms(floorCpu)}, ${(cpu / floorCpu).toFixed(2)}x; node:http alone ${ms(bareCpu)}`,
    })
    figures.push({ bench: 'service', figure: `${name}: failed requests`, value: runs.reduce((n, r) => n + r.failed, 0), unit: 'count' })
  }
}
report(
  `Service: v4 epics list of 10,000 epics, limit ${LIMIT}, ${ROUNDS} rounds of ${SECONDS} s per figure, median; ` +
    'floor: the same reads and JSON.stringify, no framework (8 connections: eight pages back to back); ' +
    'node:http alone: that floor served over HTTP under the same load; ' +
    'Nx: service time over floor time',
  figures,
)
