// Benchmark: the bootstrap. A workspace of 10,000 epics, 2,000
// docs (~5 KB of markdown each), 1,000 files and the reference data, under the
// service's 200-a-minute limit (scaled: see harness.ts). Outpost's sync engine
// (createSyncer over the real Gateway) fills a fresh cache; the baseline
// (./baseline/bootstrap.ts) makes the same copy with the official client.
// Figures: requests, bytes, wall time, 429s, the request floor.
//
// The baseline's per-epic requests (one GET a epic) would take ~5 minutes a
// round at the scaled limit (50 at the real one), so by default they run on an
// evenly spread slice of the epics and are extrapolated to all of them; the
// output says so. BENCH_BASELINE_EPICS=all runs them all (one round).
//
// Run: npm run bench bootstrap   (BENCH_SCALE=0.1 for a quick look)
import { createSyncer } from '../src-renderer/src/data/sync/index.ts'
import { fetchEpicDetails, fetchEpicPages, fetchLists } from './baseline/bootstrap.ts'
import { officialClient } from './baseline/official.ts'
import {
  describeLimit,
  describeRoutes,
  emptyWindow,
  floorOf,
  held,
  leastTimeFor,
  measured,
  medianRun,
  megabytes,
  outpostClient,
  PAGE,
  ratio,
  realMinutes,
  ROUNDS,
  startBenchService,
  timedTransport,
  workspaceSize,
  type BenchService,
  type Traffic,
} from './harness.ts'
import { median, report, type Figure } from './report.ts'

const SIZE = workspaceSize()

/** One side's run: what the service counted and how long it took. */
interface Run {
  requests: number
  bytes: number
  rateLimited: number
  ms: number
  routes: Map<string, number>
}

const runOf = (traffic: Traffic, ms: number): Run => ({ ...traffic, ms })

async function outpostBootstrap(bench: BenchService): Promise<Run & { complete: boolean; waitingMs: number }> {
  const { service } = bench
  const client = outpostClient(service)
  try {
    const transport = timedTransport(client.transport)
    // Prefetching file contents is off: the floor (and the baseline) are about the workspace's data, not file bytes.
    const syncer = createSyncer({ db: client.db, transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
    const { ms, traffic } = await measured(bench, service.tokens.admin, () => syncer.sync())
    const c = held(service)
    const complete = (await client.db.epics.count()) === c.epics && (await client.db.docs.count()) === c.docs && (await client.db.files.count()) === c.files
    return { ...runOf(traffic, ms), complete, waitingMs: transport.busyMs() }
  } finally {
    await client.close()
  }
}

/** `a` and `b` together, `b` counted `k` times over. */
function plus(a: Run, b: Run, k = 1): Run {
  const routes = new Map(a.routes)
  for (const [route, n] of b.routes) routes.set(route, (routes.get(route) ?? 0) + Math.round(n * k))
  return {
    requests: Math.round(a.requests + b.requests * k),
    bytes: a.bytes + b.bytes * k,
    rateLimited: Math.round(a.rateLimited + b.rateLimited * k),
    ms: a.ms + b.ms * k,
    routes,
  }
}

/** The baseline with per-epic details on `slice` epics (evenly spread), extrapolated to all of them. */
async function baselineWithDetails(bench: BenchService, slice: number): Promise<Run & { measured: Run }> {
  const { service } = bench
  const token = service.tokens.admin
  const official = officialClient(service.baseUrl, token, service.workspace)
  const lists = await measured(bench, token, () => fetchLists(official))
  const ids = [...lists.result.epics.keys()]
  const step = ids.length / Math.min(slice, ids.length)
  const chosen = Array.from({ length: Math.min(slice, ids.length) }, (_, i) => ids[Math.floor(i * step)])
  const details = await measured(bench, token, () => fetchEpicDetails(official, lists.result, chosen))
  const a = runOf(lists.traffic, lists.ms)
  const b = runOf(details.traffic, details.ms)
  const all = plus(a, b, ids.length / chosen.length)
  // A slice too small to meet the limit says nothing of the waits for it: never less than the limit allows.
  all.ms = Math.max(all.ms, leastTimeFor(all.requests - all.rateLimited))
  return { ...all, measured: plus(a, b) }
}

async function baselinePages(bench: BenchService): Promise<Run> {
  const { service } = bench
  const official = officialClient(service.baseUrl, service.tokens.admin, service.workspace)
  const { ms, traffic } = await measured(bench, service.tokens.admin, async () => {
    const mirror = await fetchLists(official)
    await fetchEpicPages(official, mirror)
  })
  return runOf(traffic, ms)
}

async function main(): Promise<void> {
  const bench = await startBenchService(SIZE)
  const floor = floorOf(bench.service)
  const all = process.env.BENCH_BASELINE_EPICS === 'all'
  const slice = all ? SIZE.epics : Math.min(SIZE.epics, Number(process.env.BENCH_BASELINE_EPICS ?? Math.ceil(SIZE.epics / 10)))
  const detailRounds = all ? 1 : ROUNDS

  const outpost: (Run & { complete: boolean; waitingMs: number })[] = []
  const pages: Run[] = []
  const details: (Run & { measured: Run })[] = []
  for (let round = 0; round < ROUNDS; round++) {
    outpost.push(await outpostBootstrap(bench))
    await emptyWindow()
    pages.push(await baselinePages(bench))
    await emptyWindow()
    if (round < detailRounds) {
      details.push(await baselineWithDetails(bench, slice))
      await emptyWindow()
    }
    console.error(`round ${round + 1}/${ROUNDS}: Outpost ${outpost[round].requests} requests in ${(outpost[round].ms / 1000).toFixed(1)} s`)
  }
  await bench.close()

  const med = (runs: Run[], pick: (r: Run) => number) => median(runs.map(pick))
  const figures: Figure[] = []
  const add = (figure: string, value: number, unit: string, note?: string) =>
    figures.push({ bench: 'bootstrap', figure, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) })
  const side = (name: string, runs: Run[], note: { requests?: string; time?: string } = {}) => {
    const requests = med(runs, (r) => r.requests)
    const ms = med(runs, (r) => r.ms)
    add(`${name}: requests`, requests, 'requests', note.requests ?? '429s included')
    add(`${name}: bytes received`, megabytes(med(runs, (r) => r.bytes)), 'MB', 'as the service sent them: status line, headers and body')
    add(`${name}: wall time`, ms / 1000, 's', note.time)
    add(
      `${name}: at the real limit`,
      realMinutes(ms, requests - med(runs, (r) => r.rateLimited)),
      'min',
      'estimate: the longer of the wall time and the least 200 a minute allows',
    )
    add(
      `${name}: 429s received`,
      med(runs, (r) => r.rateLimited),
      'answers',
    )
  }

  const outpostRequests = med(outpost, (r) => r.requests)
  add(
    'floor: fewest requests the API allows',
    floor,
    'requests',
    `8 v3 lists + epic states + v3 epic list + ${Math.ceil(SIZE.epics / PAGE)} epic pages + ${Math.ceil(SIZE.docs / PAGE)} doc pages`,
  )
  side('Outpost', outpost, { requests: describeRoutes(medianRun(outpost).routes) })
  add(
    'Outpost: of which waiting for the service',
    median(outpost.map((r) => r.waitingMs)) / 1000,
    's',
    'a request on its way; the rest is writing the cache (fake-indexeddb)',
  )
  add('Outpost: requests over the floor', (ratio(outpostRequests, floor) - 1) * 100, '%', 'goal: within 5%')
  add('Outpost: cache complete', outpost.every((r) => r.complete) ? 1 : 0, 'yes=1', 'every epic, doc and file of the service in the cache')

  const detailNote = all ? 'all epics' : `per-epic requests on ${slice} of ${SIZE.epics} epics (evenly spread), extrapolated`
  side('baseline (per-epic details)', details, {
    requests: detailNote,
    time: all ? undefined : "extrapolated; the slice starts with the budget the lists left, so this leans in the baseline's favour",
  })
  if (!all) {
    add(
      'baseline (per-epic details): measured slice, requests',
      med(
        details.map((d) => d.measured),
        (r) => r.requests,
      ),
      'requests',
      'as run, before extrapolation',
    )
    add(
      'baseline (per-epic details): measured slice, wall time',
      med(
        details.map((d) => d.measured),
        (r) => r.ms,
      ) / 1000,
      's',
      'as run, before extrapolation',
    )
  }
  side('baseline (v4 pages, same data as Outpost)', pages, { requests: describeRoutes(medianRun(pages).routes) })

  const detailRequests = med(details, (r) => r.requests)
  add('baseline (per-epic) / Outpost: requests', ratio(detailRequests, outpostRequests), 'x', 'goal: at least 10x')
  add(
    'baseline (per-epic) / Outpost: wall time',
    ratio(
      med(details, (r) => r.ms),
      med(outpost, (r) => r.ms),
    ),
    'x',
    'goal: above 1 (Outpost faster)',
  )
  add(
    'baseline (v4 pages) / Outpost: requests',
    ratio(
      med(pages, (r) => r.requests),
      outpostRequests,
    ),
    'x',
  )
  add(
    'baseline (v4 pages) / Outpost: wall time',
    ratio(
      med(pages, (r) => r.ms),
      med(outpost, (r) => r.ms),
    ),
    'x',
    "Outpost's time includes writing the cache (fake-indexeddb); the baseline keeps arrays in memory",
  )

  report(
    `Bootstrap: ${SIZE.epics} epics, ${SIZE.docs} docs, ${SIZE.files} files and the reference data; rate limit ${describeLimit()}; ` +
      `median of ${ROUNDS} rounds${detailRounds < ROUNDS ? ` (per-epic baseline: ${detailRounds})` : ''}`,
    figures,
  )
}

await main()
