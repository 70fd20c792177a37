// Benchmark: the first sync on a far, slow link. A shaped link (shaped-link.ts:
// a delay each way, one bottleneck per direction shared by every connection,
// byte counts) stands between Outpost and the local service, seeded as for the
// bootstrap (10,000 epics, 2,000 docs, 1,000 files). Per link profile
// (loopback, train: 150 ms RTT 10/2 Mbit/s, metered: 300 ms RTT 1/0.5 Mbit/s):
//
//   (a) the app: the built renderer in Chromium through the browser host (as the
//       interface benchmark runs it), the host's gateway reaching the service
//       through the link; sign-in to the first epic rows painted, to usable (the
//       epic list counts every epic, the cache holds every doc with its title, and
//       the search index has taken them in), to "Synced";
//   (b) the data layer alone in Node (createSyncer over the main side's Gateway
//       and fake-indexeddb), through the same link: to synced;
//
// each with the bytes down and up the link carried, the requests the service
// counted, the longest chain of round trips made one after another, and the
// floor of the same round (link-floor.ts: max(G/B, C x RTT) + RTT, G the gzip
// bytes of every answer needed, C = ceil(ceil(E/100)/2)) with the ratio. Then:
//
//   (c) a link that drops mid-bootstrap: the app on the train link, every
//       connection cut once the link has carried half the bytes of (a)'s clean
//       sign-in, back 10 s later; its bytes against the clean sign-in's;
//   (d) on the metered link, the data layer: a usual sync after 50 changes made
//       elsewhere (25 epics, 15 docs, 10 files), and a replay of 100 epic updates
//       and 10 creates queued offline, against the least requests and bytes;
//   (e) the app's sign-in again, a person using it while its walk runs (from
//       usable to "Synced"): an epic opened every 3 s, every other one
//       renamed; each timed to its requests' arrival at the service.
//
// With the real limit (BENCH_WINDOW_MS=60000), each sign-in to Synced stands
// beside the limit's floor: the least time the fewest requests take when no
// window may hold more than 200 of them.
//
// Run: npm run build && npm run bench link
// Knobs: BENCH_ROUNDS (3), BENCH_LINKS (loopback,train,metered), BENCH_LINK_PARTS
// (app,peer,drop,incremental,replay; user for (e)), BENCH_SCALE, BENCH_WINDOW_MS (harness.ts),
// E2E_RENDERER_DIR (another build).
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { gzipSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Gateway } from '../src-main/gateway/index.ts'
import { outboxActions } from '../src-renderer/src/data/actions.ts'
import { OutpostDb } from '../src-renderer/src/data/db.ts'
import { replay } from '../src-renderer/src/data/outbox/index.ts'
import { createSyncer, DEFAULT_SYNC_OPTIONS, type Syncer } from '../src-renderer/src/data/sync/index.ts'
import type { Transport } from '../src-renderer/src/data/transport.ts'
import { LAST_WORKSPACE_DB_KEY } from '../src-renderer/src/lib/stored.ts'
import type { BenchServiceView } from './harness.ts'
import type { HostCall } from '../src-web/host.ts'
import { MemorySecretStore } from '../src-web/memory-secrets.ts'
import { startWebApp } from '../src-web/web-app.ts'
import { RENDERER_DIR } from '../e2e/fixtures/global-setup.ts'
import { gatewayTransport } from '../testing/gateway-transport.ts'
import { v3, v4 } from '../testing/service.ts'
import { launch, probesOf } from './browser.ts'
import {
  describeLimit,
  describeRoutes,
  emptyWindow,
  held,
  leastTimeFor,
  measured,
  RATE_LIMIT,
  ROUNDS,
  sample,
  seededRandom,
  startBenchService,
  workspaceSize,
  type BenchService,
  type Traffic,
} from './harness.ts'
import { linkFloorData, linkFloorMs, longestChain, type LinkFloorData } from './link-floor.ts'
import { median, percentile, report, type Figure } from './report.ts'
import { describeProfile, LINK_PROFILES, startShapedLink, type LinkProfile, type ShapedLink } from './shaped-link.ts'

const SIZE = workspaceSize()
const PROFILES = (process.env.BENCH_LINKS ?? 'loopback,train,metered').split(',').map((name) => {
  const profile = LINK_PROFILES.find((p) => p.name === name.trim())
  if (!profile) throw new Error(`BENCH_LINKS: no link profile "${name}" (${LINK_PROFILES.map((p) => p.name).join(', ')})`)
  return profile
})
const PARTS = new Set((process.env.BENCH_LINK_PARTS ?? 'app,peer,drop,incremental,replay').split(',').map((p) => p.trim()))

/** One call as its caller saw it: when it was asked and answered (ms). */
interface Timed {
  start: number
  end: number
}

/** What one sign-in or run through the link measured. */
interface LinkRun {
  profile: string
  /** Sign-in (or the run's start) to "Synced": the lists stored. */
  syncedMs: number
  /** To the end of the run: files downloaded ahead of use too. */
  allMs?: number
  firstRowMs?: number
  usableMs?: number
  down: number
  up: number
  requests: number
  chain: number
  connections: number
  routes: Map<string, number>
  complete: boolean
}

/** A Transport that notes when each of its calls and downloads started and ended. */
function timingTransport(inner: Transport, calls: Timed[]): Transport {
  const timed = async <T>(run: () => Promise<T>): Promise<T> => {
    const call = { start: performance.now(), end: Number.NaN }
    try {
      return await run()
    } finally {
      call.end = performance.now()
      calls.push(call)
    }
  }
  return {
    ...inner,
    call: (operation, request) => timed(() => inner.call(operation, request)),
    download: (id, url, name, lane) => timed(() => inner.download(id, url, name, lane)),
  }
}

interface PeerClient {
  db: OutpostDb
  syncer: Syncer
  transport: Transport
  calls: Timed[]
  clock: { offset: number }
  close(): Promise<void>
}

/** The data layer alone, its gateway reaching the service at `baseUrl` (the link). */
function peerClient(service: BenchServiceView, baseUrl: string): PeerClient {
  const gateway = new Gateway({ baseUrl, workspaceSlug: service.workspace, token: service.tokens.admin, tokenKind: 'v4', rateLimit: RATE_LIMIT })
  const folder = mkdtempSync(join(os.tmpdir(), 'outpost-link-peer-'))
  const calls: Timed[] = []
  const transport = timingTransport(gatewayTransport(gateway, { staging: join(folder, 'staging'), cache: join(folder, 'cache') }), calls)
  const db = new OutpostDb(`outpost:link:${service.workspace}`, { indexedDB: new IDBFactory(), IDBKeyRange })
  const clock = { offset: 0 }
  const syncer = createSyncer({ db, transport, clock: () => Date.now() + clock.offset })
  return {
    db,
    syncer,
    transport,
    calls,
    clock,
    async close() {
      db.close()
      await gateway.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/** Whether the cache holds every epic, doc and file the service does. */
async function isComplete(db: OutpostDb, service: BenchServiceView): Promise<boolean> {
  const c = held(service)
  return (await db.epics.count()) === c.epics && (await db.docs.count()) === c.docs && (await db.files.count()) === c.files
}

// ---- (a) the app, and (c) the same with the link dropped mid-bootstrap ----------------------------

/** A bootstrap in the app longer than this is not waited for (the metered link's takes about a minute). */
const SIGN_IN_TIMEOUT_MS = 10 * 60_000

/** The calls the page's sync made through the host, as the host served them. */
const timedCalls = (calls: HostCall[], upTo: number): Timed[] =>
  calls
    .filter((c) => (c.channel === 'outpost:api.call' || c.channel === 'outpost:files.download') && c.at + c.answerMs <= upTo)
    .map((c) => ({ start: c.at, end: c.at + c.answerMs }))

/** The titles of the epic and the doc the walks bring last: the middle of each list by last update. */
function lastWalked(service: BenchServiceView): string[] {
  const middle = <T>(kind: 'epic' | 'doc', title: (record: T) => string) => {
    const col = service.ctx.col(kind as never)
    const ids = col.ids({ orderBy: 'updated_at', archived: false })
    return title(col.get(ids[Math.floor(ids.length / 2)]) as T)
  }
  return [middle<{ name: string }>('epic', (e) => e.name), middle<{ title: string }>('doc', (d) => d.title)]
}

/**
 * In the page: usable once the epic list counts every epic, the cache holds every doc with its title, and the
 * palette finds `titles` (an epic's and a doc's). Resolves with the page's time of it.
 */
async function usableAt(page: Page, epics: number, docs: number, titles: string[]): Promise<number> {
  // A poller in the page notes when the list and the cache are complete; the wait reads what it noted.
  await page.evaluate(
    ({ epics, docs, dbKey }) => {
      const state: { listed?: number; docs?: number; complete?: number } = {}
      ;(window as unknown as { __usable: typeof state }).__usable = state
      let db: IDBDatabase | undefined
      const titledDocs = () =>
        new Promise<number>((resolve, reject) => {
          let n = 0
          const cursor = db!.transaction('docs').objectStore('docs').openCursor()
          cursor.onsuccess = () => {
            const c = cursor.result
            if (!c) return resolve(n)
            if (typeof c.value.title === 'string' && c.value.title.length > 0) n++
            c.continue()
          }
          cursor.onerror = () => reject(cursor.error)
        })
      // Each noted when first seen, apart: a read of every doc takes time the list's count does not wait for.
      const pollList = () => {
        // "10,000 epics": the number, then its noun for screen readers.
        const count = document.querySelector('.epics .op-count')?.textContent?.trim().split(/\s+/)[0] ?? ''
        if (count === epics.toLocaleString()) {
          state.listed = performance.now()
          if (state.docs !== undefined) state.complete = state.listed
        } else setTimeout(pollList, 50)
      }
      const pollDocs = async () => {
        const name = localStorage.getItem(dbKey)
        if (name) {
          db ??= await new Promise<IDBDatabase>((resolve, reject) => {
            const open = indexedDB.open(name)
            open.onsuccess = () => resolve(open.result)
            open.onerror = () => reject(open.error)
          })
          if ((await titledDocs()) === docs) {
            state.docs = performance.now()
            if (state.listed !== undefined) state.complete = state.docs
            db.close()
            return
          }
        }
        setTimeout(() => void pollDocs().catch(() => setTimeout(pollDocs, 100)), 100)
      }
      pollList()
      void pollDocs()
    },
    { epics, docs, dbKey: LAST_WORKSPACE_DB_KEY },
  )
  await page.waitForFunction(() => (window as unknown as { __usable: { complete?: number } }).__usable.complete !== undefined, undefined, {
    polling: 50,
    timeout: SIGN_IN_TIMEOUT_MS,
  })
  // Then found by their titles, as a person looks for them: the palette, asked for an epic and a doc the walks
  // bring last (the middle of the list by last update), lists each by its title.
  const palette = page.getByRole('dialog', { name: 'Command palette' })
  await page.keyboard.press('Control+k')
  let found = 0
  for (const title of titles) {
    await palette.getByLabel('Search or run a command').fill(title)
    const handle = await page.waitForFunction(
      (title) => ([...document.querySelectorAll('[role="option"] .title')].some((t) => t.textContent?.trim() === title) ? performance.now() : false),
      title,
      { polling: 50, timeout: SIGN_IN_TIMEOUT_MS },
    )
    found = Math.max(found, (await handle.jsonValue()) as number)
  }
  await page.keyboard.press('Escape')
  return found
}

interface AppRun extends LinkRun {
  /** (c): the link's bytes down when it was cut, and the requests the service saw (once each). */
  cutAt?: number
  /** Requests the service answered 429. */
  rateLimited: number
  /** (e): how long the person's own requests waited while the walk ran (ms). */
  waits?: UserWaits
}

// ---- (e) the person using the app while the walk runs -----------------------------------------

/** How often the person opens an epic while the walk runs (ms); every other one is renamed too. */
const USER_EVERY_MS = 3_000
/** A request the person's action makes that has not reached the service in this long is counted as this long. */
const USER_WAIT_CAP_MS = 60_000

interface UserWaits {
  /** From going to an epic to the service receiving the last of the 4 requests its detail makes (refresh.ts). */
  opened: number[]
  /** From pressing Enter on a new name to the service receiving the write. */
  renamed: number[]
}

/**
 * The person, from usable until Synced: every USER_EVERY_MS an epic not opened before is opened (its
 * detail asks for the epic, its health, its docs and its stories: the user's read lane), and every other
 * one renamed (the outbox's write: the user's write lane). Each is timed to its requests' arrival at
 * the service, which the meter notes.
 */
async function useWhileWalking(
  page: Page,
  service: BenchServiceView,
  traffic: Traffic,
  walking: () => boolean,
  random: () => number,
  /** The sign-in's click (performance.now()), for the timeline. */
  started: number,
): Promise<UserWaits> {
  const waits: UserWaits = { opened: [], renamed: [] }
  // Each epic once: one opened again may be answered from what its first opening fetched.
  const ids = sample(service.ctx.col('epic' as never).ids({ orderBy: 'updated_at', archived: false }) as number[], 1_000, random)
  const arrivedAfter = async (from: number, count: number, matches: (arrival: Traffic['arrivals'][number]) => boolean): Promise<number> => {
    for (;;) {
      const seen = traffic.arrivals.filter((a) => a.at >= from && matches(a))
      if (seen.length >= count) return Math.max(...seen.slice(0, count).map((a) => a.at)) - from
      if (performance.now() - from > USER_WAIT_CAP_MS) return USER_WAIT_CAP_MS
      await sleep(10)
    }
  }
  for (let n = 0; walking() && n < ids.length; n++) {
    const id = ids[n]
    const opened = performance.now()
    await page.evaluate((id) => (location.hash = `#/epics/${id}`), id)
    waits.opened.push(await arrivedAfter(opened, 4, (a) => a.method === 'GET' && new RegExp(`/epics/${id}(/|$)`).test(a.path)))
    if (n % 2 === 1) {
      const name = page.getByRole('textbox', { name: 'Epic name' })
      await name.waitFor()
      await name.fill(`${await name.inputValue()} ·`)
      const renamed = performance.now()
      await name.press('Enter')
      waits.renamed.push(await arrivedAfter(renamed, 1, (a) => a.method !== 'GET'))
      if (process.env.BENCH_LINK_TIMELINE)
        console.error(`  renamed at ${((renamed - started) / 1000).toFixed(1)} s: at the service ${waits.renamed.at(-1)!.toFixed(0)} ms later`)
    }
    await sleep(Math.max(0, USER_EVERY_MS - (performance.now() - opened)))
  }
  return waits
}

/** A person signs in to the workspace through a fresh link, in a fresh browser and host; until "Synced". */
async function appSignIn(
  bench: BenchService,
  profile: LinkProfile,
  rendererDir: string,
  { drop, user }: { drop?: { atDown: number; forMs: number }; user?: () => number } = {},
): Promise<AppRun> {
  const { service } = bench
  const link = await startShapedLink(service.baseUrl, profile)
  const folder = mkdtempSync(join(os.tmpdir(), 'outpost-link-app-'))
  const calls: HostCall[] = []
  const app = await startWebApp({
    rendererDir,
    dataDir: join(folder, 'host'),
    secrets: new MemorySecretStore(),
    demo: false,
    rateLimit: RATE_LIMIT,
    onCall: (call) => calls.push(call),
  })
  const { page, context } = await launch(join(folder, 'profile'))
  let watch: ReturnType<typeof setInterval> | undefined
  try {
    await page.goto(app.host.url)
    await page.getByLabel('Service address').fill(link.url)
    await page.getByLabel('API token').fill(service.tokens.admin)
    const c = held(service)
    const recording = bench.record(service.tokens.admin)
    const pageStart = await page.evaluate(() => performance.now())
    const started = performance.now()
    let cutAt: number | undefined
    if (drop) {
      watch = setInterval(() => {
        if (cutAt !== undefined || link.bytes().down < drop.atDown) return
        cutAt = link.bytes().down
        link.cut()
        setTimeout(() => link.restore(), drop.forMs)
      }, 5)
    }
    await page.getByRole('button', { name: 'Sign in' }).click()
    const usable = usableAt(page, c.epics, c.docs, lastWalked(service))
    usable.catch(() => undefined)
    const synced = page
      .getByRole('contentinfo', { name: 'Status' })
      .getByText(/^Synced (just now|\d)/)
      .waitFor({ timeout: SIGN_IN_TIMEOUT_MS })
    let walking = true
    // (e) The person starts once the app is usable: every epic is listed then.
    const using = user ? usable.then(() => useWhileWalking(page, service, recording.traffic, () => walking, user, started)) : undefined
    using?.catch(() => undefined)
    await synced
    walking = false
    const syncedMs = performance.now() - started
    const bytes = link.bytes()
    const waits = await using
    const traffic = await recording.stop()
    const usableMs = (await usable) - pageStart
    if (process.env.BENCH_LINK_TIMELINE) {
      const at = await page.evaluate(() => (window as unknown as { __usable: { listed: number; docs: number } }).__usable)
      console.error(
        `  every epic listed at ${(at.listed - pageStart).toFixed(0)} ms, every doc at ${(at.docs - pageStart).toFixed(0)} ms, both found by their titles at ${usableMs.toFixed(0)} ms`,
      )
    }
    const row = (await probesOf(page)).firstRow
    if (process.env.BENCH_LINK_TIMELINE) {
      for (const call of calls.filter((x) => x.at <= started + syncedMs)) {
        const r = (call.request ?? {}) as { operation?: string; query?: { order_dir?: string; cursor?: string } }
        console.error(
          `  ${(call.at - started).toFixed(0).padStart(6)} +${call.answerMs.toFixed(0).padStart(5)} ms ${r.operation ?? call.channel} ${r.query?.order_dir ?? (r.query?.cursor ? 'cursor' : '')}`,
        )
      }
    }
    return {
      profile: profile.name,
      syncedMs,
      firstRowMs: row ? (row.paintAt ?? row.frameAt ?? row.domAt) - pageStart : undefined,
      usableMs,
      down: bytes.down,
      up: bytes.up,
      requests: traffic.requests,
      chain: longestChain(timedCalls(calls, started + syncedMs)),
      connections: link.connections(),
      routes: traffic.routes,
      complete: true,
      cutAt,
      rateLimited: traffic.rateLimited,
      ...(waits ? { waits } : {}),
    }
  } finally {
    clearInterval(watch)
    await context.close()
    await app.close()
    await link.close()
    rmSync(folder, { recursive: true, force: true })
  }
}

// ---- (b) the data layer alone, and (d) its usual sync and its replay on the metered link -------

/** (b) The data layer alone bootstraps through a fresh link; the client is kept for (d). */
async function peerBootstrap(bench: BenchService, profile: LinkProfile): Promise<{ run: LinkRun; client: PeerClient; link: ShapedLink }> {
  const { service } = bench
  const link = await startShapedLink(service.baseUrl, profile)
  const client = peerClient(service, link.url)
  const started = performance.now()
  let listedMs = Number.NaN
  let listedChain = 0
  const { ms, traffic } = await measured(bench, service.tokens.admin, () =>
    client.syncer.sync({
      // Synced, as the app says it: the lists stored (files are downloaded ahead of use after).
      listed: () => {
        listedMs = performance.now() - started
        listedChain = longestChain(client.calls)
      },
    }),
  )
  const bytes = link.bytes()
  const run: LinkRun = {
    profile: profile.name,
    syncedMs: listedMs,
    allMs: ms,
    down: bytes.down,
    up: bytes.up,
    requests: traffic.requests,
    chain: listedChain,
    connections: link.connections(),
    routes: traffic.routes,
    complete: await isComplete(client.db, service),
  }
  return { run, client, link }
}

/** What one measured exchange on the metered link cost, against the least it could. */
interface Exchange {
  ms: number
  requests: number
  down: number
  up: number
  chain: number
  routes: Map<string, number>
  /** How many of the changes the cache (or the service) shows afterwards, of how many. */
  seen: number
  of: number
  least?: { requests: number; bytes: number }
}

async function measuredOnLink(bench: BenchService, client: PeerClient, link: ShapedLink, run: () => Promise<unknown>) {
  const before = link.bytes()
  client.calls.length = 0
  const { ms, traffic } = await measured(bench, bench.service.tokens.admin, run)
  const after = link.bytes()
  return { ms, requests: traffic.requests, routes: traffic.routes, down: after.down - before.down, up: after.up - before.up, chain: longestChain(client.calls) }
}

const CHANGES = { epics: 25, docs: 15, files: 10 }

/** (d) 50 changes made elsewhere (another member's token, straight to the service), then the usual sync, 5 minutes on. */
async function usualSync(bench: BenchService, client: PeerClient, link: ShapedLink, random: () => number): Promise<Exchange> {
  const { service } = bench
  // Runs are minutes apart in the app: the last run's changes are older than the overlap a walk reads again.
  await sleep(DEFAULT_SYNC_OPTIONS.overlapMs + 500)
  const api4 = v4(service, service.tokens.member)
  const api3 = v3(service, service.tokens.member)
  const ids = (kind: string) => service.ctx.col(kind as never).ids() as (number | string)[]
  const names = new Map<number, string>()
  const titles = new Map<string, string>()
  for (const id of sample(ids('epic'), CHANGES.epics, random) as number[]) {
    names.set(id, `Renamed elsewhere ${id} ${Math.round(random() * 1e6)}`)
    await api4.patch(`/epics/${id}`, { name: names.get(id) })
  }
  for (const id of sample(ids('doc'), CHANGES.docs, random) as string[]) {
    titles.set(id, `Retitled elsewhere ${Math.round(random() * 1e6)}`)
    await api3.put(`/documents/${id}`, { title: titles.get(id) })
  }
  for (const id of sample(ids('file'), CHANGES.files, random) as number[])
    await api3.put(`/files/${id}`, { description: `Described elsewhere ${Math.round(random() * 1e6)}` })
  client.clock.offset += 5 * 60_000
  const measure = await measuredOnLink(bench, client, link, () => client.syncer.sync())
  let seen = 0
  for (const [id, name] of names) if ((await client.db.epics.get(id))?.name === name) seen++
  for (const [id, title] of titles) if ((await client.db.docs.get(id))?.title === title) seen++
  return { ...measure, seen, of: names.size + titles.size }
}

const QUEUE = { updates: 100, creates: 10 }

/** (d) 100 epic updates and 10 creates queued offline, replayed through the link; the least is two bulk requests. */
async function replayQueued(bench: BenchService, client: PeerClient, link: ShapedLink, random: () => number, tag: string): Promise<Exchange> {
  const { service } = bench
  const actions = outboxActions({ db: client.db, transport: client.transport })
  const picked = sample((await client.db.epics.toCollection().primaryKeys()) as number[], QUEUE.updates, random)
  for (const [i, id] of picked.entries()) await actions.updateEpic(id, { name: `${tag}: renamed #${i}` })
  for (let i = 0; i < QUEUE.creates; i++) await actions.createEpic({ name: `${tag}: created #${i}` })
  const measure = await measuredOnLink(bench, client, link, async () => {
    for (let pass = 0; pass < 5; pass++) {
      const result = await replay({ db: client.db, transport: client.transport })
      if (result.remaining <= result.failed + result.conflicts || result.stopped) break
    }
  })
  const served = (await v3(service, service.tokens.member).get('/epics')).body as { id: number; name: string }[]
  const byId = new Map(served.map((e) => [e.id, e.name]))
  const seen = picked.filter((id, i) => byId.get(id) === `${tag}: renamed #${i}`).length + served.filter((e) => e.name.startsWith(`${tag}: created #`)).length
  // The least: one bulk update of the 100 and one bulk create of the 10, their bodies up and answers down (gzipped).
  const updateBody = JSON.stringify({ epic_ids: picked, epics: picked.map((id, i) => ({ id, name: `${tag}: renamed #${i}` })) })
  const createBody = JSON.stringify({
    epics: Array.from({ length: QUEUE.creates }, (_, i) => ({ name: `${tag}: created #${i}`, external_id: `outpost-${i}`.padEnd(44, '0') })),
  })
  const answer = (ids: number[]) => {
    const epics = (service.ctx.col('epic' as never) as unknown as { getMany(ids: string[]): Map<string, unknown> }).getMany(ids.map(String))
    return gzipSync(JSON.stringify({ entities: [...epics.values()] })).length
  }
  const created = served.filter((e) => e.name.startsWith(`${tag}: created #`)).map((e) => e.id)
  const least = { requests: 2, bytes: updateBody.length + createBody.length + answer(picked) + answer(created) }
  return { ...measure, seen, of: QUEUE.updates + QUEUE.creates, least }
}

// ---- a round ----------------------------------------------------------------------------------

interface Round {
  floor: LinkFloorData
  app: AppRun[]
  /** (e): the app's sign-in with a person using it while the walk runs. */
  user: AppRun[]
  peer: LinkRun[]
  drop?: AppRun
  clean?: AppRun
  usual?: Exchange
  replayed?: Exchange
}

async function round(index: number, rendererDir: string): Promise<Round> {
  const bench = await startBenchService(SIZE)
  const random = seededRandom(7 + index)
  const said = (what: string, run: LinkRun) =>
    console.error(
      `round ${index + 1}: ${what} on the ${run.profile} link: synced in ${(run.syncedMs / 1000).toFixed(1)} s${run.usableMs !== undefined ? ` (first rows ${((run.firstRowMs ?? Number.NaN) / 1000).toFixed(1)} s, usable ${(run.usableMs / 1000).toFixed(1)} s)` : ''}, ` +
        `${(run.down / 1e6).toFixed(2)} MB down, ${run.requests} requests, chain ${run.chain}`,
    )
  try {
    const floor = await linkFloorData(bench.service)
    const result: Round = { floor, app: [], user: [], peer: [] }
    for (const profile of PROFILES) {
      if (PARTS.has('app')) {
        await emptyWindow()
        const run = await appSignIn(bench, profile, rendererDir)
        said('the app', run)
        result.app.push(run)
      }
      if (PARTS.has('user')) {
        await emptyWindow()
        const run = await appSignIn(bench, profile, rendererDir, { user: random })
        said('the app, a person using it meanwhile,', run)
        result.user.push(run)
      }
      const wantsPeer = PARTS.has('peer') || (profile.name === 'metered' && (PARTS.has('incremental') || PARTS.has('replay')))
      if (!wantsPeer) continue
      await emptyWindow()
      const { run, client, link } = await peerBootstrap(bench, profile)
      said('the data layer', run)
      result.peer.push(run)
      try {
        if (profile.name === 'metered' && PARTS.has('incremental')) {
          await emptyWindow()
          result.usual = await usualSync(bench, client, link, random)
          console.error(
            `round ${index + 1}: the usual sync on the metered link: ${result.usual.requests} requests, ${(result.usual.down / 1e3).toFixed(1)} KB down, chain ${result.usual.chain}`,
          )
        }
        if (profile.name === 'metered' && PARTS.has('replay')) {
          await emptyWindow()
          result.replayed = await replayQueued(bench, client, link, random, `link round ${index + 1}`)
          console.error(
            `round ${index + 1}: the replay on the metered link: ${result.replayed.requests} requests (${describeRoutes(result.replayed.routes)}), ${(result.replayed.down / 1e3).toFixed(1)} KB down`,
          )
        }
      } finally {
        await client.close()
        await link.close()
      }
    }
    if (PARTS.has('drop')) {
      const train = LINK_PROFILES.find((p) => p.name === 'train')!
      await emptyWindow()
      const clean = result.app.find((r) => r.profile === 'train') ?? (await appSignIn(bench, train, rendererDir))
      await emptyWindow()
      result.clean = clean
      result.drop = await appSignIn(bench, train, rendererDir, { drop: { atDown: clean.down / 2, forMs: DROP_MS } })
      said('the app, the link cut at half its bytes', result.drop)
    }
    return result
  } finally {
    await bench.close()
  }
}

/** How long the link stays cut (ms). */
const DROP_MS = 10_000

async function main(): Promise<void> {
  const rendererDir = process.env.E2E_RENDERER_DIR ?? RENDERER_DIR
  if ((PARTS.has('app') || PARTS.has('drop')) && !existsSync(join(rendererDir, 'index.html'))) {
    console.error(`link bench: ${rendererDir} is not built; run \`npm run build\` first.`)
    process.exit(1)
  }
  const rounds: Round[] = []
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(i, rendererDir))

  const figures: Figure[] = []
  const add = (figure: string, value: number, unit: string, note?: string) =>
    figures.push({ bench: 'link', figure, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) })
  const med = (pick: (r: Round) => number) => median(rounds.map(pick))
  const floor = rounds[0].floor
  const G = med((r) => r.floor.gzipBytes)
  add(
    'G: every answer needed, gzipped',
    G / 1e6,
    'MB',
    floor.byAnswer.map((a) => `${a.what}: ${a.answers} x, ${(a.gzipBytes / 1e6).toFixed(2)} MB gzipped of ${(a.bytes / 1e6).toFixed(1)} MB`).join('; '),
  )
  add('C: the fewest round trips one after another', floor.chain, 'round trips', `${floor.requests} requests at the least`)
  const describe = (runs: (r: Round) => LinkRun | undefined, profile: LinkProfile, who: string) => {
    const of = (r: Round) => runs(r)
    const pick = (f: (run: LinkRun) => number) => med((r) => f(of(r)!))
    const floorMs = med((r) => linkFloorMs(r.floor, profile))
    const named = `${profile.name}, ${who}`
    const against = (ms: number) => (profile.rttMs > 0 ? `${(ms / floorMs).toFixed(2)}x the floor` : undefined)
    add(`${named}: sign-in to Synced`, pick((x) => x.syncedMs) / 1000, 's', against(pick((x) => x.syncedMs)))
    // The rate limit's floor: no window may hold more than `max` of the fewest requests the data needs.
    const limitMs = leastTimeFor(floor.requests)
    if (limitMs > 0)
      add(
        `${named}: sign-in to Synced against the rate limit's floor`,
        pick((x) => x.syncedMs) / limitMs,
        'x',
        `the floor ${(limitMs / 1000).toFixed(0)} s: the ${floor.requests} fewest requests, no ${RATE_LIMIT.windowMs / 1000} s holding more than ${RATE_LIMIT.max}; ` +
          `${(leastTimeFor(pick((x) => x.requests)) / 1000).toFixed(0)} s for the ${pick((x) => x.requests)} made; ${pick((x) => (x as Partial<AppRun>).rateLimited ?? 0)} answered 429; goal: at most 1.15x`,
      )

    if (of(rounds[0])?.usableMs !== undefined) {
      add(`${named}: sign-in to the first epic rows`, pick((x) => x.firstRowMs ?? Number.NaN) / 1000, 's')
      add(
        `${named}: sign-in to usable`,
        pick((x) => x.usableMs ?? Number.NaN) / 1000,
        's',
        'every epic in its list, every doc with its title in the cache, an epic and a doc the walks bring last found by their titles',
      )
    }
    add(`${named}: bytes down`, pick((x) => x.down) / 1e6, 'MB', `${(pick((x) => x.down) / G).toFixed(2)}x G; up ${(pick((x) => x.up) / 1e6).toFixed(2)} MB`)
    add(
      `${named}: requests`,
      pick((x) => x.requests),
      'requests',
      `the longest chain of round trips one after another ${pick((x) => x.chain)} (C = ${floor.chain}); ${pick((x) => x.connections)} connections; ${describeRoutes(of(rounds[0])!.routes, 8)}`,
    )
  }
  for (const profile of PROFILES) {
    if (profile.rttMs > 0)
      add(`${profile.name} (${describeProfile(profile)}): the floor`, med((r) => linkFloorMs(r.floor, profile)) / 1000, 's', 'max(G/B, C x RTT) + RTT')
    if (PARTS.has('app')) describe((r) => r.app.find((a) => a.profile === profile.name), profile, 'the app')
    if (PARTS.has('peer')) describe((r) => r.peer.find((a) => a.profile === profile.name), profile, 'the data layer alone')
    if (PARTS.has('user')) {
      const runs = rounds.map((r) => r.user.find((a) => a.profile === profile.name)!)
      const named = `${profile.name}, the app with a person using it`
      add(
        `${named}: sign-in to Synced`,
        median(runs.map((run) => run.syncedMs)) / 1000,
        's',
        `${median(runs.map((run) => run.requests))} requests (${describeRoutes(runs[0].routes, 8)}); ${median(runs.map((run) => run.rateLimited))} answered 429`,
      )
      for (const [kind, what] of [
        ['opened', 'an epic opened: to its 4 requests at the service'],
        ['renamed', 'an epic renamed: to its write at the service'],
      ] as const) {
        const all = runs.flatMap((run) => run.waits?.[kind] ?? [])
        // A small workspace is synced before the person's first step.
        if (all.length === 0) continue
        add(
          `${named}: ${what}, p95`,
          percentile(all, 95),
          'ms',
          `${all.length} of them, one every ${USER_EVERY_MS / 1000} s from usable to Synced; median ${percentile(all, 50).toFixed(0)} ms, slowest ${Math.max(...all).toFixed(0)} ms; goal: at most 1 s`,
        )
      }
    }
  }
  if (rounds[0].drop) {
    const d = (pick: (r: Round) => number) => med(pick)
    add(
      'train, the link cut at half the bytes for 10 s: sign-in to Synced',
      d((r) => r.drop!.syncedMs) / 1000,
      's',
      `a clean sign-in ${(d((r) => r.clean!.syncedMs) / 1000).toFixed(1)} s`,
    )
    add(
      'train, the link cut: bytes down against a clean sign-in',
      d((r) => r.drop!.down / r.clean!.down),
      'x',
      `${(d((r) => r.drop!.down) / 1e6).toFixed(2)} MB against ${(d((r) => r.clean!.down) / 1e6).toFixed(2)} MB; cut at ${(d((r) => r.drop!.cutAt ?? Number.NaN) / 1e6).toFixed(2)} MB; goal: at most 1.1x`,
    )
    add(
      'train, the link cut: requests against a clean sign-in',
      d((r) => r.drop!.requests - r.clean!.requests),
      'more',
      `${d((r) => r.drop!.requests)} against ${d((r) => r.clean!.requests)}`,
    )
  }
  if (rounds[0].usual) {
    const u = (pick: (x: Exchange) => number) => med((r) => pick(r.usual!))
    add(
      'metered: a usual sync after 50 changes made elsewhere',
      u((x) => x.down + x.up) / 1e3,
      'KB',
      `down ${(u((x) => x.down) / 1e3).toFixed(1)} KB, up ${(u((x) => x.up) / 1e3).toFixed(1)} KB; goal: at most 100 KB; ${u((x) => x.seen)} of ${u((x) => x.of)} epic and doc changes in the cache after it`,
    )
    add(
      'metered: its round trips one after another',
      u((x) => x.chain),
      'round trips',
      `${u((x) => x.requests)} requests (${describeRoutes(rounds[0].usual!.routes)}), ${(u((x) => x.ms) / 1000).toFixed(1)} s; goal: at most 3`,
    )
  }
  if (rounds[0].replayed) {
    const x = (pick: (e: Exchange) => number) => med((r) => pick(r.replayed!))
    add(
      'metered: replaying 100 updates and 10 creates, requests',
      x((e) => e.requests),
      'requests',
      `${(x((e) => e.requests) / 2).toFixed(2)}x the least (2 bulk requests); ${describeRoutes(rounds[0].replayed!.routes)}; goal: at most 1.2x`,
    )
    add(
      'metered: replaying them, bytes',
      x((e) => e.down + e.up) / 1e3,
      'KB',
      `${x((e) => (e.down + e.up) / e.least!.bytes).toFixed(2)}x the least (${(x((e) => e.least!.bytes) / 1e3).toFixed(1)} KB: the two bulk bodies, and their answers gzipped); ${x((e) => e.seen)} of ${QUEUE.updates + QUEUE.creates} on the service; ${(x((e) => e.ms) / 1000).toFixed(1)} s`,
    )
  }
  report(
    `The first sync on a shaped link: ${SIZE.epics} epics, ${SIZE.docs} docs, ${SIZE.files} files; rate limit ${describeLimit()}; median of ${ROUNDS} rounds (load average ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} cores)`,
    figures,
  )
}

await main()
