// Benchmark: an incremental sync after 50 changes on the service
// (25 epics renamed, 15 docs retitled, 10 files described anew), made through
// the API by another member's token so they do not spend the client's budget.
// Outpost's cache is bootstrapped first (not measured); then each round makes
// 50 changes and runs one sync, in three situations of Outpost's schedule
// (the app syncs every 5 minutes; files are fetched again after 10, reference
// data after 60, the id sweeps that find deletions after 30):
//   - the next run, 5 minutes on: epics and docs only
//   - 10 minutes on: files due as well
//   - an hour on: everything due
// The syncer's clock is moved on by that much before each run (the service's
// clock is not: change times are real). The baseline (./baseline/incremental.ts)
// keeps its own copy up to date after the same changes, with the official client.
//
// Run: npm run bench incremental   (BENCH_SCALE=0.1 for a quick look)
import { setTimeout as sleep } from 'node:timers/promises'
import { createSyncer, DEFAULT_SYNC_OPTIONS } from '../src-renderer/src/data/sync/index.ts'
import type { BenchServiceView } from './harness.ts'
import { v3, v4 } from '../testing/service.ts'
import type { Mirror } from './baseline/bootstrap.ts'
import { currentMarks, syncChanges, type Marks } from './baseline/incremental.ts'
import { officialClient } from './baseline/official.ts'
import {
  describeLimit,
  describeRoutes,
  emptyWindow,
  measured,
  medianRun,
  outpostClient,
  ROUNDS,
  sample,
  seededRandom,
  shortRoute,
  startBenchService,
  workspaceSize,
  type OutpostClient,
} from './harness.ts'
import { median, report, type Figure } from './report.ts'

const SIZE = workspaceSize()
const CHANGES = { epics: 25, docs: 15, files: 10 }
const MINUTE = 60_000

interface Situation {
  name: string
  /** How far the syncer's clock moves on before the run. */
  laterMs: number
  filesDue: boolean
  referenceDue: boolean
}

const SITUATIONS: Situation[] = [
  { name: 'next run (5 min on)', laterMs: 5 * MINUTE, filesDue: false, referenceDue: false },
  { name: 'files due (10 min on)', laterMs: 10 * MINUTE, filesDue: true, referenceDue: false },
  { name: 'everything due (1 h on)', laterMs: 60 * MINUTE, filesDue: true, referenceDue: true },
]

/** The goal: one request per changed kind of data fetched, plus the reference data (7 lists) when due. */
const goalOf = (s: Situation) => 2 + (s.filesDue ? 1 : 0) + (s.referenceDue ? 7 : 0)

/** What each of Outpost's requests was for, in the words of the goal. */
const PURPOSE: Record<string, string> = {
  '/v4/epics': 'epics',
  '/v4/documents': 'docs',
  '/v3/files': 'files',
  '/v3/linked-files': 'linked files',
  '/v3/epics': 'id sweeps',
  '/v3/documents': 'id sweeps',
}

function describePurposes(routes: Map<string, number>): string {
  const counts = new Map<string, number>()
  for (const [route, n] of routes) {
    const purpose = PURPOSE[shortRoute(route)] ?? 'reference data'
    counts.set(purpose, (counts.get(purpose) ?? 0) + n)
  }
  return [...counts].map(([purpose, n]) => `${purpose} ${n}`).join(', ')
}

interface Changed {
  epics: Map<number, string>
  docs: Map<string, string>
  files: Map<number, string>
}

/** 50 changes through the API with the member's token (its own budget); returns the new values. */
async function makeChanges(service: BenchServiceView, round: string, random: () => number): Promise<Changed> {
  const token = service.tokens.member
  const api4 = v4(service, token)
  const api3 = v3(service, token)
  const ids = (kind: string) => service.ctx.col(kind as never).ids() as (number | string)[]
  const changed: Changed = { epics: new Map(), docs: new Map(), files: new Map() }
  for (const id of sample(ids('epic'), CHANGES.epics, random) as number[]) {
    const name = `Renamed in ${round} (${id})`
    await change(() => api4.patch(`/epics/${id}`, { name }))
    changed.epics.set(id, name)
  }
  for (const id of sample(ids('doc'), CHANGES.docs, random) as string[]) {
    const title = `Retitled in ${round} (${id.slice(0, 8)})`
    await change(() => api3.put(`/documents/${id}`, { title }))
    changed.docs.set(id, title)
  }
  for (const id of sample(ids('file'), CHANGES.files, random) as number[]) {
    const description = `Described in ${round}`
    await change(() => api3.put(`/files/${id}`, { description }))
    changed.files.set(id, description)
  }
  return changed
}

/** One change; the other member is held to the same limit, so a 429 waits its Retry-After. */
async function change(send: () => Promise<{ status: number; headers: Record<string, unknown>; body: unknown }>): Promise<void> {
  for (;;) {
    const answer = await send()
    if (answer.status === 429) {
      await sleep(Number(answer.headers['retry-after'] ?? 1) * 1000)
      continue
    }
    if (answer.status >= 300) throw new Error(`A change was refused: ${answer.status} ${JSON.stringify(answer.body)}`)
    return
  }
}

/** How many of the changes the cache shows after the run. */
async function seenByOutpost(client: OutpostClient, changed: Changed): Promise<number> {
  const { db } = client
  let seen = 0
  for (const [id, name] of changed.epics) if ((await db.epics.get(id))?.name === name) seen++
  for (const [id, title] of changed.docs) if ((await db.docs.get(id))?.title === title) seen++
  for (const [id, description] of changed.files) if ((await db.files.get(id))?.description === description) seen++
  return seen
}

function seenByBaseline(mirror: Mirror, changed: Changed): number {
  let seen = 0
  for (const [id, name] of changed.epics) if (mirror.epics.get(id)?.name === name) seen++
  for (const [id, title] of changed.docs) if (mirror.docs.get(id)?.title === title) seen++
  const files = new Map((mirror.reference.files as { id: number; description: string }[]).map((f) => [f.id, f.description]))
  for (const [id, description] of changed.files) if (files.get(id) === description) seen++
  return seen
}

interface Measure {
  requests: number
  rateLimited: number
  ms: number
  seen: number
  routes: Map<string, number>
}

async function main(): Promise<void> {
  const bench = await startBenchService(SIZE)
  const { service } = bench
  const token = service.tokens.admin
  const random = seededRandom(2)

  // Outpost: a bootstrapped cache, and a clock the benchmark moves on between runs.
  let offset = 0
  const client = outpostClient(service)
  const syncer = createSyncer({ db: client.db, transport: client.transport, clock: () => Date.now() + offset, options: { fileBudgetBytes: 0 } })
  console.error("bootstrapping Outpost's cache (not measured)...")
  await syncer.sync()
  // The baseline: its copy starts where the service stands now (what its own bootstrap would have left).
  const official = officialClient(service.baseUrl, token, service.workspace)
  const mirror: Mirror = { reference: {}, epics: new Map(), epicPages: new Map(), docs: new Map() }
  let marks: Marks = await currentMarks(official)
  await emptyWindow()

  const results = new Map(SITUATIONS.map((s) => [s.name, { outpost: [] as Measure[], baseline: [] as Measure[] }]))
  for (let round = 1; round <= ROUNDS; round++) {
    for (const situation of SITUATIONS) {
      // Runs are minutes apart in the app: the last run's changes are older than the overlap a walk reads again.
      await sleep(DEFAULT_SYNC_OPTIONS.overlapMs + 500)
      const changed = await makeChanges(service, `round ${round}, ${situation.name}`, random)
      offset += situation.laterMs
      const ours = await measured(bench, token, () => syncer.sync())
      const theirs = await measured(bench, token, () => syncChanges(official, mirror, marks))
      marks = theirs.result.marks
      const r = results.get(situation.name)!
      r.outpost.push({ ...ours.traffic, ms: ours.ms, seen: await seenByOutpost(client, changed) })
      r.baseline.push({ ...theirs.traffic, ms: theirs.ms, seen: seenByBaseline(mirror, changed) })
    }
    console.error(`round ${round}/${ROUNDS} done`)
  }
  await client.close()
  await bench.close()

  const figures: Figure[] = []
  const add = (figure: string, value: number, unit: string, note?: string) =>
    figures.push({ bench: 'incremental', figure, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) })
  const total = CHANGES.epics + CHANGES.docs + CHANGES.files
  for (const situation of SITUATIONS) {
    const { outpost, baseline } = results.get(situation.name)!
    const med = (runs: Measure[], pick: (m: Measure) => number) => median(runs.map(pick))
    const name = situation.name
    add(
      `${name}: Outpost requests`,
      med(outpost, (m) => m.requests),
      'requests',
      `goal ${goalOf(situation)}; ${describePurposes(medianRun(outpost).routes)}`,
    )
    add(
      `${name}: Outpost time`,
      med(outpost, (m) => m.ms),
      'ms',
    )
    add(
      `${name}: Outpost changes seen`,
      med(outpost, (m) => m.seen),
      `of ${total}`,
      situation.filesDue ? undefined : 'file changes wait until files are due',
    )
    add(
      `${name}: baseline requests`,
      med(baseline, (m) => m.requests),
      'requests',
      describeRoutes(medianRun(baseline).routes, 4),
    )
    add(
      `${name}: baseline time`,
      med(baseline, (m) => m.ms),
      'ms',
    )
    add(
      `${name}: baseline changes seen`,
      med(baseline, (m) => m.seen),
      `of ${total}`,
    )
    add(`${name}: 429s (Outpost, baseline)`, med(outpost, (m) => m.rateLimited) + med(baseline, (m) => m.rateLimited), 'answers')
  }
  const o = DEFAULT_SYNC_OPTIONS
  report(
    `Incremental sync after ${total} changes (${CHANGES.epics} epics, ${CHANGES.docs} docs, ${CHANGES.files} files) in a workspace of ${SIZE.epics} epics, ` +
      `${SIZE.docs} docs, ${SIZE.files} files; rate limit ${describeLimit()}; Outpost's intervals: files ${o.filesIntervalMs / MINUTE} min, ` +
      `reference data ${o.referenceIntervalMs / MINUTE} min, id sweeps ${o.sweepIntervalMs / MINUTE} min; median of ${ROUNDS} rounds`,
    figures,
  )
}

await main()
