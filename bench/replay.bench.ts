// Benchmark: replay after an offline spell. 1,000 epic updates
// (1,000 different epics: half renamed, half moved to another state), 100 epic
// creates and 50 file uploads (64 KB each) are queued with Outpost's outbox
// actions, which never touch the network (the app works this way offline);
// then replay sends them, under the service's rate limit (scaled: see
// harness.ts). Outpost checks the 1,000 updates for conflicts once, before the
// first bulk: one page of the epics changed since their oldest base when the
// cache says few changed, else every epic in one request. Which epics may
// matter to that, so it runs twice each round:
//   - recently updated epics: the 1,000 newest in the cache;
//   - random epics: 1,000 picked across the whole workspace.
// Then 10 bulk PATCHes, one bulk POST of the 100 creates, and 13 uploads of
// four files.
// The baseline (./baseline/replay.ts) sends the same kind and number of
// changes, to other epics, one call each with the official client. Afterwards
// the service is checked through its API: every update applied, every create
// and upload there exactly once.
//
// Outpost's cache is bootstrapped first and synced at the start of each round
// (not measured): updates are made to epics the user sees, as last synced.
//
// Run: npm run bench replay   (BENCH_SCALE=0.1 for a quick look)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { outboxActions } from '../src-renderer/src/data/actions.ts'
import { replay, type ReplayResult } from '../src-renderer/src/data/outbox/index.ts'
import { createSyncer } from '../src-renderer/src/data/sync/index.ts'
import type { BenchServiceView } from './harness.ts'
import { v3 } from '../testing/service.ts'
import { officialClient } from './baseline/official.ts'
import { sendOneByOne, type QueuedChanges } from './baseline/replay.ts'
import {
  describeLimit,
  describeRoutes,
  emptyWindow,
  measured,
  medianRun,
  outpostClient,
  ratio,
  realMinutes,
  ROUNDS,
  sample,
  seededRandom,
  SCALE,
  startBenchService,
  timedTransport,
  workspaceSize,
  type Traffic,
} from './harness.ts'
import { median, report, type Figure } from './report.ts'

const SIZE = workspaceSize()
/** The queue; a smaller workspace (BENCH_SCALE below 1) gets a queue as much smaller. */
const QUEUE_SCALE = Math.min(1, SCALE)
const QUEUE = { updates: Math.round(1_000 * QUEUE_SCALE), creates: Math.round(100 * QUEUE_SCALE), uploads: Math.round(50 * QUEUE_SCALE) }
const UPLOAD_BYTES = 64 * 1024

/** The same changes for either side: which epics, to what, and what to create and upload (written into `folder`). */
function planChanges(epicIds: number[], states: number[], currentState: (id: number) => number | undefined, tag: string, folder: string): QueuedChanges {
  const updates = epicIds.map((id, i) => {
    if (i % 2 === 0) return { id, fields: { name: `${tag}: renamed #${i}` } }
    const current = currentState(id)
    return { id, fields: { epic_state_id: states.find((s) => s !== current)! } }
  })
  const creates = Array.from({ length: QUEUE.creates }, (_, i) => ({ name: `${tag}: created #${i}`, externalId: `bench-${tag}-${i}`.replace(/\W+/g, '-') }))
  const uploads = Array.from({ length: QUEUE.uploads }, (_, i) => {
    const name = `${tag}-upload-${i}.bin`.replace(/[^\w.-]+/g, '-')
    const path = join(folder, name)
    writeFileSync(path, Buffer.alloc(UPLOAD_BYTES, i))
    return { path, name }
  })
  return { updates, creates, uploads }
}

interface Outcome {
  updatesApplied: number
  /** Creates and uploads found exactly once on the service. */
  exactlyOnce: number
  duplicates: number
  missing: number
}

/** What the service holds now (read with another member's token, so the client's budget is untouched). */
async function checkService(service: BenchServiceView, changes: QueuedChanges): Promise<Outcome> {
  const api = v3(service, service.tokens.member)
  const epics = (await api.get('/epics')).body as { id: number; name: string; epic_state_id: number }[]
  const files = (await api.get('/files')).body as { name: string }[]
  const byId = new Map(epics.map((e) => [e.id, e]))
  const count = (names: string[], all: string[]) => names.map((n) => all.filter((a) => a === n).length)
  const counts = [
    ...count(
      changes.creates.map((c) => c.name),
      epics.map((e) => e.name),
    ),
    ...count(
      changes.uploads.map((u) => u.name),
      files.map((f) => f.name),
    ),
  ]
  const applied = changes.updates.filter((u) => {
    const e = byId.get(u.id)
    return (
      e && (u.fields.name === undefined || e.name === u.fields.name) && (u.fields.epic_state_id === undefined || e.epic_state_id === u.fields.epic_state_id)
    )
  }).length
  return {
    updatesApplied: applied,
    exactlyOnce: counts.filter((n) => n === 1).length,
    duplicates: counts.reduce((sum, n) => sum + Math.max(0, n - 1), 0),
    missing: counts.filter((n) => n === 0).length,
  }
}

interface Run extends Traffic, Outcome {
  ms: number
  /** Outpost only: time to queue the changes offline, and what replay reported. */
  queueMs?: number
  waitingMs?: number
  result?: ReplayResult
  passes?: number
}

async function main(): Promise<void> {
  const bench = await startBenchService(SIZE)
  const { service } = bench
  const token = service.tokens.admin
  const folder = mkdtempSync(join(tmpdir(), 'outpost-bench-uploads-'))
  const random = seededRandom(3)

  const client = outpostClient(service)
  const syncer = createSyncer({ db: client.db, transport: client.transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
  console.error("bootstrapping Outpost's cache (not measured)...")
  await syncer.sync()
  const states = (await client.db.epicStates.toArray()).map((s) => Number(s.id))
  const stateOf = async (id: number) => (await client.db.epics.get(id))?.epic_state_id ?? undefined
  const official = officialClient(service.baseUrl, token, service.workspace)

  /** Outpost: queue while offline (the actions only write the cache), then replay online until the queue is empty. */
  const outpostRun = async (changes: QueuedChanges): Promise<Run> => {
    const actions = outboxActions({ db: client.db, transport: client.transport })
    const queueStarted = performance.now()
    for (const u of changes.updates) await actions.updateEpic(u.id, u.fields)
    for (const c of changes.creates) await actions.createEpic({ name: c.name })
    for (const u of changes.uploads) await actions.uploadFile(u)
    const queueMs = performance.now() - queueStarted
    const transport = timedTransport(client.transport)
    let passes = 0
    const sent = await measured(bench, token, async () => {
      let result: ReplayResult
      do {
        passes++
        result = await replay({ db: client.db, transport })
      } while (result.remaining > result.failed + result.conflicts && !result.stopped && passes < 5)
      return result
    })
    return { ...sent.traffic, ms: sent.ms, queueMs, waitingMs: transport.busyMs(), result: sent.result, passes, ...(await checkService(service, changes)) }
  }

  /**
   * Outpost, a bulk create whose answer is lost (the service commits it, the connection drops): the next pass
   * finds the epics by walking the most recently updated ones (no list filters by external_id) and sends nothing
   * again. Only that finding pass is measured.
   */
  const lostRun = async (tag: string): Promise<Run> => {
    const actions = outboxActions({ db: client.db, transport: client.transport })
    const names = Array.from({ length: QUEUE.creates }, (_, i) => `${tag}: created #${i}`)
    for (const name of names) await actions.createEpic({ name })
    await service.setFaults({ dropAfterCommitRate: 1 })
    try {
      await replay({ db: client.db, transport: client.transport, backoff: { attempts: 1 } })
    } finally {
      await service.setFaults({ dropAfterCommitRate: 0 })
    }
    const sent = await measured(bench, token, () => replay({ db: client.db, transport: client.transport }))
    const outcome = await checkService(service, { updates: [], creates: names.map((name) => ({ name, externalId: '' })), uploads: [] })
    return { ...sent.traffic, ms: sent.ms, result: sent.result, passes: 1, ...outcome }
  }

  const runs: Record<'random' | 'recent' | 'baseline' | 'lost', Run[]> = { random: [], recent: [], baseline: [], lost: [] }
  for (let round = 1; round <= ROUNDS; round++) {
    // The cache as it was when the network went (what the other side changed last round included).
    await syncer.sync()
    await emptyWindow()
    const ids = (await client.db.epics.toCollection().primaryKeys()) as number[]
    // Different epics for each run, so none meets another's changes.
    const [randomIds, baselineIds] = ((picked) => [picked.slice(0, QUEUE.updates), picked.slice(QUEUE.updates)])(sample(ids, 2 * QUEUE.updates, random))
    const taken = new Set([...randomIds, ...baselineIds])
    const newestFirst = (await client.db.epics.orderBy('updated_at').reverse().primaryKeys()) as number[]
    const recentIds = newestFirst.filter((id) => !taken.has(id)).slice(0, QUEUE.updates)

    const plan = async (tag: string, epicIds: number[]) => {
      const current = new Map(await Promise.all(epicIds.map(async (id) => [id, await stateOf(id)] as const)))
      return planChanges(epicIds, states, (id) => current.get(id), `${tag} round ${round}`, folder)
    }
    // The recently updated ones first: after the random run, its 1,000 epics would be the newest.
    runs.recent.push(await outpostRun(await plan('outpost recent', recentIds)))
    await emptyWindow()
    runs.random.push(await outpostRun(await plan('outpost random', randomIds)))
    await emptyWindow()
    const changes = await plan('baseline', baselineIds)
    const one = await measured(bench, token, () => sendOneByOne(official, changes))
    runs.baseline.push({ ...one.traffic, ms: one.ms, ...(await checkService(service, changes)) })
    await emptyWindow()
    runs.lost.push(await lostRun(`outpost lost answer round ${round}`))
    await emptyWindow()
    const said = (r: Run) => `${r.requests} requests in ${(r.ms / 1000).toFixed(1)} s`
    console.error(
      `round ${round}/${ROUNDS}: Outpost ${said(runs.random.at(-1)!)} (random epics), ${said(runs.recent.at(-1)!)} (recent); baseline ${said(runs.baseline.at(-1)!)}`,
    )
  }
  await client.close()
  await bench.close()
  rmSync(folder, { recursive: true, force: true })

  const figures: Figure[] = []
  const add = (figure: string, value: number, unit: string, note?: string) =>
    figures.push({ bench: 'replay', figure, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) })
  const med = (list: Run[], pick: (r: Run) => number) => median(list.map(pick))
  const side = (name: string, list: Run[], routesNote: string) => {
    const requests = med(list, (r) => r.requests)
    const ms = med(list, (r) => r.ms)
    add(`${name}: requests`, requests, 'requests', routesNote)
    add(`${name}: wall time`, ms / 1000, 's')
    add(
      `${name}: at the real limit`,
      realMinutes(ms, requests - med(list, (r) => r.rateLimited)),
      'min',
      'estimate: the longer of the wall time and the least 200 a minute allows',
    )
    add(
      `${name}: 429s received`,
      med(list, (r) => r.rateLimited),
      'answers',
      'goal: 0',
    )
    add(
      `${name}: updates applied`,
      med(list, (r) => r.updatesApplied),
      `of ${QUEUE.updates}`,
    )
    add(
      `${name}: creates and uploads there exactly once`,
      med(list, (r) => r.exactlyOnce),
      `of ${QUEUE.creates + QUEUE.uploads}`,
    )
    add(
      `${name}: duplicates`,
      list.reduce((n, r) => n + r.duplicates, 0),
      'items',
      `over all ${list.length} rounds; goal: 0`,
    )
    add(
      `${name}: missing`,
      list.reduce((n, r) => n + r.missing, 0),
      'items',
      `over all ${list.length} rounds`,
    )
  }

  const floor = Math.ceil(QUEUE.updates / 100) + Math.ceil(QUEUE.creates / 100) + Math.ceil(QUEUE.uploads / 4)
  add(
    'floor: fewest requests the API allows',
    floor,
    'requests',
    'bulk PATCH /epics/bulk of 100, bulk POST /epics/bulk of 100, POST /files of 4 files; no conflict checks',
  )
  const outpostSide = (name: string, list: Run[]) => {
    side(name, list, describeRoutes(medianRun(list).routes, 5))
    add(
      `${name}: of which waiting for the service`,
      med(list, (r) => r.waitingMs!) / 1000,
      's',
      "a request on its way; the rest is the outbox's own work in the cache",
    )
    add(`${name}: queueing offline`, med(list, (r) => r.queueMs!) / 1000, 's', `${QUEUE.updates + QUEUE.creates + QUEUE.uploads} actions, no network`)
    const r = list.at(-1)!.result!
    add(
      `${name}: replay result (last round)`,
      r.confirmed,
      'confirmed',
      `failed ${r.failed}, conflicts ${r.conflicts}, left ${r.remaining}, passes ${list.at(-1)!.passes}`,
    )
  }
  outpostSide('Outpost, random epics', runs.random)
  outpostSide('Outpost, recently updated epics', runs.recent)
  side('baseline (one call per change)', runs.baseline, describeRoutes(medianRun(runs.baseline).routes, 3))
  const lostFloor = Math.ceil(QUEUE.creates / 100)
  add(
    `Outpost, ${QUEUE.creates} creates whose bulk answer was lost: requests to find them`,
    med(runs.lost, (r) => r.requests),
    'requests',
    describeRoutes(medianRun(runs.lost).routes, 3),
  )
  add(
    'floor of finding them',
    lostFloor,
    'requests',
    'one page of the 100 most recently updated epics per 100 creates (GET /epics?order_by=updated_at&order_dir=desc)',
  )
  add(
    'finding them / floor',
    ratio(
      med(runs.lost, (r) => r.requests),
      lostFloor,
    ),
    'x',
    'goal: at most 1.05',
  )
  add(
    `Outpost, lost bulk answer: creates there exactly once`,
    med(runs.lost, (r) => r.exactlyOnce),
    `of ${QUEUE.creates}`,
  )
  add(
    `Outpost, lost bulk answer: duplicates`,
    runs.lost.reduce((n, r) => n + r.duplicates, 0),
    'items',
    `over all ${runs.lost.length} rounds; goal: 0`,
  )
  for (const [name, list] of [
    ['random epics', runs.random],
    ['recently updated epics', runs.recent],
  ] as const) {
    add(
      `baseline / Outpost (${name}): requests`,
      ratio(
        med(runs.baseline, (r) => r.requests),
        med(list, (r) => r.requests),
      ),
      'x',
      'goal: at least 20x',
    )
    add(
      `baseline / Outpost (${name}): wall time`,
      ratio(
        med(runs.baseline, (r) => r.ms),
        med(list, (r) => r.ms),
      ),
      'x',
    )
  }

  report(
    `Replay after an offline spell: ${QUEUE.updates} epic updates, ${QUEUE.creates} epic creates, ${QUEUE.uploads} uploads of ${UPLOAD_BYTES / 1024} KB; ` +
      `workspace of ${SIZE.epics} epics; rate limit ${describeLimit()}; median of ${ROUNDS} rounds`,
    figures,
  )
}

await main()
