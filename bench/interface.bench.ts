// Benchmark: the interface, in Chromium, through the browser
// host (src-web: the built renderer and the real main side), against the
// local service seeded as for the bootstrap (10,000 epics, 2,000 docs of ~5 KB
// markdown, 1,000 files and the reference data) under the same scaled limit.
// Each round, on a fresh service, host and browser profile:
//
//   (a) bootstrap from empty: sign in as a person does and wait for "Synced"
//       and for the search index to catch up; every main-thread task is
//       traced (CDP), the first epic row's paint is timed, and the JS heap is
//       read after a full GC; then its floor: the rows it stored written again
//       into IndexedDB by the idle page (cache-floor.ts), and the calls its
//       sync made through the host made again, each answer decoded and stored
//       as it came by an idle page with no app code (pipeline-floor.ts), and
//       the same calls with nothing stored;
//   (b) cold opens: close the browser, launch a new one on the same profile
//       (the cache filled), open the app; from navigation start to the first
//       frame painting an epic list: the last screen's copy when the window
//       kept one (first-paint/screen-copy.ts; first contentful paint), and the live
//       app's (Element Timing on its first row's text, and the main thread's
//       own frame as a cross-check); median of BENCH_COLD_OPENS; and their
//       floor: the copy the window kept, as a static page of the build's HTML
//       and styles with no script, opened as many times the same way;
//   (c) search keystrokes, once the index is ready: typing into the epic
//       list's search and the command palette one key at a time, from the
//       keydown's timestamp to the task that rendered the results, and to the
//       next frame after it (the wait for the display's frame included); and
//       where the first goes: the key until the input event, the app's input
//       handlers, the browser's layout and frame after them;
//   (d) the floor of (c) in the epic list: the same phrases typed into a copy
//       of the list (page-floor.ts) whose every keystroke shows 16 other epics
//       with no app code (the rows' DOM rewritten from rows seen before), with
//       the rows as the app shows them and with only a state, an id and a name;
//   (e) the peer of (a): the data layer alone (createSyncer in Node over the
//       main side's Gateway and fake-indexeddb, as bench/bootstrap.bench.ts,
//       with the app's own options: files prefetched within the same budget)
//       bootstrapping the same workspace on the same service, its rate-limit
//       window emptied first.
//
// Goals: the bootstrap at most 1.5x its peer (e), first list under 300 ms,
// search and palette p95 at most 1.15x the floor (d), no task over 50 ms,
// heap under 200 MB. The app's gateway paces to the service's
// scaled limit, as in the bootstrap benchmark.
//
// Run: npm run build && npm run bench interface
// Knobs: BENCH_ROUNDS (3; figures are the medians of the rounds), BENCH_COLD_OPENS
// (5 a round), BENCH_SCALE (1; 0.1 for a quick look), BENCH_WINDOW_MS (see
// harness.ts), E2E_RENDERER_DIR (another build of the renderer).
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Page } from 'playwright-core'
import { MemorySecretStore } from '../src-web/memory-secrets.ts'
import { startWebApp, type WebApp } from '../src-web/web-app.ts'
import { RENDERER_DIR } from '../e2e/fixtures/global-setup.ts'
import { OPEN_MARKS } from '../src-renderer/src/first-paint/early-cache.ts'
import { LAST_WORKSPACE_DB_KEY, workspaceKey } from '../src-renderer/src/lib/stored.ts'
import { SEARCH_MARKS } from '../src-renderer/src/data/search/index.ts'
import { createSyncer, DEFAULT_SYNC_OPTIONS } from '../src-renderer/src/data/sync/index.ts'
import { browserCpu, cpuBetween, heapAfterGc, launch, probesOf, traceTasks, type BrowserWindow, type MainThreadTasks } from './browser.ts'
import {
  describeLimit,
  describeRoutes,
  emptyWindow,
  epicPhrases,
  floorOf,
  held,
  measured,
  outpostClient,
  processCpu,
  RATE_LIMIT,
  ratio,
  ROUNDS,
  seededRandom,
  startBenchService,
  workspaceSize,
  type BenchService,
} from './harness.ts'
import { installFloor, type Floor } from './page-floor.ts'
import { writeCacheAgain, type CacheFloor } from './cache-floor.ts'
import { describePhases, pipelineFloor, type PipelineFloor } from './pipeline-floor.ts'
import type { HostCall } from '../src-web/host.ts'
import { inPage, watchKeystrokes, type Keystroke, type LongFrame, type LongTask, type SlowEvent } from './page-probes.ts'
import { median, percentile, report, type Figure } from './report.ts'

const SIZE = workspaceSize()
const COLD_OPENS = Math.max(1, Number(process.env.BENCH_COLD_OPENS ?? 5))
/** A bootstrap of the whole workspace, in a browser, on a 2-core machine others share. */
const BOOTSTRAP_TIMEOUT_MS = 10 * 60_000

// ---- (a) bootstrap from empty ---------------------------------------------------------------

interface Bootstrap {
  /** Sign-in click to "Synced" in the status bar. */
  syncedMs: number
  /** Sign-in click to the search index holding it all. */
  indexedMs: number
  /** Sign-in click to the epic list's first row painted (Element Timing; else its frame), while the bootstrap runs. */
  firstRowMs: number | undefined
  requests: number
  /** The fewest requests for the workspace's data (harness.ts floorOf), and the files' contents prefetched beside it. */
  floor: number
  downloads: number
  files: number
  rateLimited: number
  routes: Map<string, number>
  tasks: MainThreadTasks
  /** The Long Tasks API's view of the same time: tasks of 50 ms or more. */
  longTasks: LongTask[]
  /** The frame (Long Animation Frames API) that held the longest long task, and the scripts in it: what that task was. */
  longestTaskFrame: LongFrame | undefined
  heapBytes: number
  /** The browser's CPU seconds from sign-in to synced (all its processes, and by kind), where /proc tells. */
  cpu: ReturnType<typeof cpuBetween>
  /** This process's CPU seconds meanwhile: the service and the host (and the benchmark's tracing). */
  serviceCpu: number
  /** The rows the bootstrap stored, written again into IndexedDB by the page with nothing else running (cache-floor.ts). */
  cacheFloor: CacheFloor
  /** The sync's calls made again and their answers stored by a page with no app code (pipeline-floor.ts). */
  pipelineFloor: PipelineFloor
  /** The same calls with their answers decoded and nothing stored: the calls' part of that floor. */
  callsFloor: PipelineFloor
}

/** Rows to a transaction in the cache floor: a sync page's size. */
const CACHE_FLOOR_BATCH = 100

async function bootstrapFromEmpty(app: WebApp, calls: HostCall[], bench: BenchService, profile: string): Promise<Bootstrap> {
  const { service } = bench
  const { page, cdp, context } = await launch(profile)
  try {
    await page.goto(app.host.url)
    await page.getByLabel('Service address').fill(service.baseUrl)
    await page.getByLabel('API token').fill(service.tokens.admin)
    const trace = await traceTasks(cdp)
    const recording = bench.record(service.tokens.admin)
    const pageStart = await page.evaluate(() => performance.now())
    const started = performance.now()
    const cpuBefore = browserCpu(profile)
    const serviceCpuSince = processCpu()
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page
      .getByRole('contentinfo', { name: 'Status' })
      .getByText(/^Synced (just now|\d)/)
      .waitFor({ timeout: BOOTSTRAP_TIMEOUT_MS })
    const syncedMs = performance.now() - started
    const cpu = cpuBetween(cpuBefore, browserCpu(profile))
    const serviceCpu = serviceCpuSince()
    await searchCaughtUp(page)
    const indexedMs = performance.now() - started
    const traffic = await recording.stop()
    const tasks = await trace.stop()
    const probes = await probesOf(page)
    // After the probes are read: the forced collections and the floor's own reads and writes are the
    // benchmark's work, not the bootstrap's tasks.
    const heapBytes = await heapAfterGc(cdp)
    const cacheFloor = (await page.evaluate(inPage(writeCacheAgain, CACHE_FLOOR_BATCH))) as CacheFloor
    const pipeline = await pipelineFloor(app, context, profile, calls, started, started + syncedMs)
    const callsFloor = await pipelineFloor(app, context, profile, calls, started, started + syncedMs, false)
    const longTasks = probes.longTasks.filter((t) => t.start >= pageStart)
    const longestTask = [...longTasks].sort((a, b) => b.duration - a.duration)[0]
    const longestTaskFrame = longestTask && probes.longFrames.find((f) => f.start <= longestTask.start + 1 && longestTask.start < f.start + f.duration)
    const downloads = [...traffic.routes].filter(([route]) => route.startsWith('GET /media/files/')).reduce((n, [, count]) => n + count, 0)
    const floor = floorOf(service)
    const files = held(service).files
    const row = probes.firstRow
    const firstRowMs = row ? (row.paintAt ?? row.frameAt ?? row.domAt) - pageStart : undefined
    return {
      syncedMs,
      cpu,
      serviceCpu,
      cacheFloor,
      pipelineFloor: pipeline,
      callsFloor,
      indexedMs,
      firstRowMs,
      requests: traffic.requests,
      floor,
      downloads,
      files,
      rateLimited: traffic.rateLimited,
      routes: traffic.routes,
      tasks,
      longTasks,
      longestTaskFrame,
      heapBytes,
    }
  } finally {
    await context.close()
  }
}

/** Resolves once the page's search index has been built and has taken in every change (quiet for `quietMs`). */
async function searchCaughtUp(page: Page, quietMs = 1_000): Promise<void> {
  await page.waitForFunction(
    ({ marks, quiet }) => {
      const last = (name: string) => performance.getEntriesByName(name, 'mark').at(-1)?.startTime ?? -1
      const ready = last(marks.ready)
      const updating = last(marks.updating)
      const settled = last(marks.settled)
      const caughtUpAt = Math.max(ready, settled)
      return ready >= 0 && caughtUpAt >= updating && performance.now() - caughtUpAt >= quiet
    },
    { marks: SEARCH_MARKS, quiet: quietMs },
    { polling: 100, timeout: BOOTSTRAP_TIMEOUT_MS },
  )
}

// ---- (e) the data layer alone, the peer of (a) --------------------------------------------

interface PeerBootstrap {
  ms: number
  requests: number
  complete: boolean
  /** CPU seconds of its one process: the service and the data layer. */
  cpu: number
}

/** The same workspace bootstrapped by the data layer alone into a fresh cache, with the app's sync options. */
async function dataLayerBootstrap(bench: BenchService): Promise<PeerBootstrap> {
  const { service } = bench
  const client = outpostClient(service)
  try {
    const syncer = createSyncer({ db: client.db, transport: client.transport, clock: Date.now })
    const cpuSince = processCpu()
    const { ms, traffic } = await measured(bench, service.tokens.admin, () => syncer.sync())
    const cpu = cpuSince()
    const c = held(service)
    const complete = (await client.db.epics.count()) === c.epics && (await client.db.docs.count()) === c.docs && (await client.db.files.count()) === c.files
    return { ms, requests: traffic.requests, complete, cpu }
  } finally {
    await client.close()
  }
}

// ---- (b) cold open ---------------------------------------------------------------------------

interface ColdOpen {
  /** ms from navigation start: the live app's first epic row inserted, its frame done on the main thread, its text painted. */
  domAt: number
  frameAt: number
  paintAt: number | undefined
  /**
   * ms from navigation start to the last screen's copy painted (first-paint/screen-copy.ts: the epic list
   * as the window last showed it, painted before the app runs; first contentful paint), if it was.
   */
  lastScreenAt: number | undefined
  /** Navigation start to the search index built from the cache. */
  searchReadyAt: number
  /** Navigation start to IndexedDB's answer: the database open, and the list's first screen read from it (-1: not opened early). */
  cacheOpenAt: number
  firstScreenReadAt: number
  tasks: MainThreadTasks
}

/** A new browser on the filled profile, the app opened, until the index is built. The window stays open. */
async function coldOpen(app: WebApp, profile: string): Promise<{ browser: BrowserWindow; open: ColdOpen }> {
  const browser = await launch(profile)
  const { page, cdp } = browser
  const trace = await traceTasks(cdp)
  await page.goto(app.host.url)
  await page.waitForFunction(() => (window as any).__bench.firstRow?.frameAt !== undefined, null, { polling: 50, timeout: 60_000 })
  // Element Timing entries are delivered a little after their frame.
  await page.waitForFunction(() => (window as any).__bench.firstRow?.paintAt !== undefined, null, { polling: 50, timeout: 2_000 }).catch(() => undefined)
  await searchCaughtUp(page, 250)
  const tasks = await trace.stop()
  const { firstRow, lastScreenRow, firstContentfulPaint } = await probesOf(page)
  const markAt = (name: string) => page.evaluate((n) => performance.getEntriesByName(n, 'mark')[0]?.startTime ?? -1, name)
  const [searchReadyAt, cacheOpenAt, firstScreenReadAt] = [
    await markAt(SEARCH_MARKS.ready),
    await markAt(OPEN_MARKS.opened),
    await markAt(OPEN_MARKS.firstScreen),
  ]
  // The copy is the page's first content: its first contentful paint is the copy's (Element Timing reports none for it).
  const lastScreenAt = lastScreenRow ? firstContentfulPaint : undefined
  return {
    browser,
    open: {
      domAt: firstRow!.domAt,
      frameAt: firstRow!.frameAt!,
      paintAt: firstRow!.paintAt,
      lastScreenAt,
      searchReadyAt,
      cacheOpenAt,
      firstScreenReadAt,
      tasks,
    },
  }
}

/**
 * The floor of a cold open: the screen the last cold open's copy showed, as a page of HTML and the
 * build's style sheet with no script at all, written next to the build the host serves
 * (`LAST_SCREEN_FLOOR_PAGE`). What painting that screen costs a newly started browser on this
 * machine before any of the app's work: a new renderer process, the HTML, the styles (cached), the
 * first layout with its fonts, paint and raster.
 */
const LAST_SCREEN_FLOOR_PAGE = 'last-screen-floor.html'

/** Writes the floor page from the copy `page` keeps (the app's own, from localStorage); false when it keeps none. */
async function writeLastScreenFloor(page: Page, rendererDir: string): Promise<boolean> {
  const kept = await page.evaluate(
    ({ dbKey, prefix }) => {
      const db = localStorage.getItem(dbKey)
      return db === null ? null : localStorage.getItem(prefix + db)
    },
    { dbKey: LAST_WORKSPACE_DB_KEY, prefix: workspaceKey('last-screen', '') },
  )
  const html = kept === null ? undefined : (JSON.parse(kept) as { html?: string }).html
  if (!html) return false
  // The build's own head without its scripts; the copy where the app's root is, as screen-copy.ts puts it.
  const index = readFileSync(join(rendererDir, 'index.html'), 'utf8')
  const staticPage = index
    .replace(/<script\b[^>]*>\s*<\/script>/g, '')
    .replace(/<link rel="modulepreload"[^>]*>/g, '')
    // A function, so that a `$` in the copy's text is not read as a pattern of the replacement.
    .replace('<div id="app"></div>', () => `<div id="app"><div class="last-screen" style="display: contents" inert aria-hidden="true">${html}</div></div>`)
  if (staticPage.includes('<script') || !staticPage.includes('class="last-screen"'))
    throw new Error("cold open floor: the build's index.html is not as expected")
  writeFileSync(join(rendererDir, LAST_SCREEN_FLOOR_PAGE), staticPage)
  return true
}

/** A new browser on the filled profile, the floor page opened: navigation start to its first contentful paint. */
async function openLastScreenFloor(app: WebApp, profile: string): Promise<number> {
  const { page, context } = await launch(profile)
  try {
    await page.goto(new URL(`/${LAST_SCREEN_FLOOR_PAGE}`, app.host.url).href)
    await page.waitForFunction(() => (window as any).__bench.firstContentfulPaint !== undefined, null, { polling: 20, timeout: 60_000 })
    return (await probesOf(page)).firstContentfulPaint!
  } finally {
    await context.close()
  }
}

// ---- (c) search keystrokes -----------------------------------------------------------------

/** Typed letter by letter in the epic list's search. */
const epicQueries = (random: () => number): string[] => epicPhrases(random, SIZE.epics, 4)

/** Typed in the command palette, which searches everything: doc titles and bodies, epics, typos. */
const PALETTE_QUERIES = [
  'runbook 12',
  'design note 44',
  'retrospective',
  'meeting notes 1999',
  'proposal 7',
  'research summry',
  'onboarding',
  'scope risks',
  'section 7',
  'epic 4242',
  'task 5a',
  'wiki',
  'spec 300',
]

interface Typed {
  surface: string
  keystrokes: Keystroke[]
  slowEvents: SlowEvent[]
}

/** Types each phrase one key at a time into the focused field, clearing it between phrases. */
async function typePhrases(page: Page, field: string, phrases: string[], random: () => number): Promise<void> {
  const input = page.getByLabel(field, { exact: true })
  for (const phrase of phrases) {
    for (const char of phrase) {
      const n: number = await page.evaluate(() => (window as any).__keystrokes.length)
      await page.keyboard.type(char)
      await page.evaluate((k) => (window as any).__keystroke(k), n + 1)
      // People type 5 to 15 keys a second; a pause off the frame rhythm, so keys land anywhere in a frame.
      await sleep(60 + random() * 60)
    }
    await input.fill('')
    await sleep(200)
  }
}

/** The keystrokes (and Event Timing's slow events) of what `run` types. */
async function keystrokesOf(page: Page, surface: string, run: () => Promise<void>): Promise<Typed> {
  const from = await page.evaluate(() => [(window as any).__keystrokes.length, (window as any).__slowEvents.length])
  await run()
  const [keystrokes, slowEvents] = await page.evaluate(([k, s]) => [(window as any).__keystrokes.slice(k), (window as any).__slowEvents.slice(s)], from)
  return { surface, keystrokes, slowEvents }
}

async function typeSearches(page: Page, random: () => number): Promise<Typed[]> {
  await page.evaluate(inPage(watchKeystrokes))
  const epics = await keystrokesOf(page, 'epic list search', async () => {
    await page.getByLabel('Search epics', { exact: true }).click()
    await typePhrases(page, 'Search epics', epicQueries(random), random)
  })
  const palette = await keystrokesOf(page, 'command palette', async () => {
    await page.keyboard.press('Control+k')
    await page.getByLabel('Search or run a command', { exact: true }).waitFor()
    await typePhrases(page, 'Search or run a command', PALETTE_QUERIES, random)
    await page.keyboard.press('Escape')
  })
  return [epics, palette]
}

// ---- (d) the floor ---------------------------------------------------------------------------

/** The floor's two rows: as the app shows them, and with only the state, the id and the name (page-floor.ts). */
const FLOORS = [
  { surface: 'floor, every row another epic', leaveOut: null },
  { surface: 'floor, rows of state, id and name', leaveOut: '.meta' },
]

interface FloorTyped extends Typed {
  /** Rows the copy of the list rewrites a keystroke. */
  rows: number
}

/** The epic phrases typed again into the floor's copy of the list, each keystroke of which shows another epic in every row. */
async function typeFloors(page: Page, random: () => number): Promise<FloorTyped[]> {
  const floors: FloorTyped[] = []
  for (const { surface, leaveOut } of FLOORS) {
    const floor = (await page.evaluate(inPage(installFloor, leaveOut))) as Floor
    if (floor.rows === 0) throw new Error(`${surface}: the copy of the list has no rows`)
    const keystrokes = await keystrokesOf(page, surface, async () => {
      await page.getByLabel('Floor search', { exact: true }).click()
      await typePhrases(page, 'Floor search', epicQueries(random), random)
    })
    floors.push({ ...keystrokes, rows: floor.rows })
  }
  return floors
}

interface KeystrokeFigures {
  count: number
  renderP50: number
  renderP95: number
  renderMax: number
  paintP50: number
  paintP95: number
  /**
   * Where the time to "rendered" goes, p50 and p95 of each part (they do not add up: each is its
   * own percentile): the browser's handling of the key until the input event; the app's input
   * handlers and the updates they made; the browser's rendering after them (the layout it forces
   * to place the caret, and the frame it runs before the next task: style, layout, paint, commit).
   */
  parts: Record<'input' | 'handler' | 'rendering', { p50: number; p95: number }>
  /** Keystrokes whose DOM changed again after the measured task (the figure would undercount them). */
  late: number
  /** Keystrokes Event Timing reported at 16 ms or more (its durations run to the frame's presentation, in 8 ms steps). */
  slowInteractions: number
  slowestInteraction: number
}

function keystrokeFigures({ keystrokes: all, slowEvents }: Typed): KeystrokeFigures {
  const keystrokes = all.filter((k) => k.paintedAt !== undefined)
  const render = keystrokes.map((k) => k.renderedAt! - k.at)
  const paint = keystrokes.map((k) => k.paintedAt! - k.at)
  const interactions = new Map<number, number>()
  for (const e of slowEvents) interactions.set(e.interactionId, Math.max(interactions.get(e.interactionId) ?? 0, e.duration))
  const part = (of: (k: Keystroke) => number) => {
    const ms = keystrokes.filter((k) => k.inputAt !== undefined && k.handledAt !== undefined).map(of)
    return { p50: percentile(ms, 50), p95: percentile(ms, 95) }
  }
  return {
    count: keystrokes.length,
    renderP50: percentile(render, 50),
    renderP95: percentile(render, 95),
    renderMax: Math.max(...render),
    paintP50: percentile(paint, 50),
    paintP95: percentile(paint, 95),
    parts: {
      input: part((k) => k.inputAt! - k.at),
      handler: part((k) => k.handledAt! - k.inputAt!),
      rendering: part((k) => k.renderedAt! - k.handledAt!),
    },
    late: keystrokes.filter((k) => k.mutationsPainted! > k.mutationsRendered!).length,
    slowInteractions: interactions.size,
    slowestInteraction: Math.max(0, ...interactions.values()),
  }
}

// ---- a round --------------------------------------------------------------------------------

interface Round {
  bootstrap: Bootstrap
  opens: ColdOpen[]
  typed: Typed[]
  floors: FloorTyped[]
  peer: PeerBootstrap
  /** The cold opens' floor: the same screen as a static page, opened as many times (empty if no copy was kept). */
  staticOpens: number[]
}

async function round(index: number): Promise<Round> {
  const bench = await startBenchService(SIZE)
  const folder = mkdtempSync(join(os.tmpdir(), 'outpost-interface-'))
  const profile = join(folder, 'profile')
  // A copy of the build: the cold open's floor page is written next to it.
  const rendererDir = join(folder, 'renderer')
  cpSync(RENDERER_DIR, rendererDir, { recursive: true })
  // The app's gateway paces to the same scaled limit as the service, as in benchmark 1.
  const calls: HostCall[] = []
  const app = await startWebApp({
    rendererDir,
    dataDir: join(folder, 'host'),
    secrets: new MemorySecretStore(),
    demo: false,
    rateLimit: RATE_LIMIT,
    onCall: (call) => calls.push(call),
  })
  let browser: BrowserWindow | undefined
  try {
    const bootstrap = await bootstrapFromEmpty(app, calls, bench, profile)
    calls.length = 0
    console.error(
      `round ${index + 1}: bootstrap synced in ${(bootstrap.syncedMs / 1000).toFixed(1)} s, longest task ${bootstrap.tasks.longestMs.toFixed(0)} ms; ${describeLongestTask(bootstrap)}`,
    )
    console.error(
      `round ${index + 1}: the pipeline floor in ${(bootstrap.pipelineFloor.ms / 1000).toFixed(2)} s, by phase:\n${describePhases(bootstrap.pipelineFloor)}`,
    )
    await emptyWindow()
    const peer = await dataLayerBootstrap(bench)
    console.error(`round ${index + 1}: the data layer alone synced in ${(peer.ms / 1000).toFixed(1)} s (${peer.requests} requests)`)
    const opens: ColdOpen[] = []
    for (let i = 0; i < COLD_OPENS; i++) {
      await browser?.context.close()
      const opened = await coldOpen(app, profile)
      browser = opened.browser
      opens.push(opened.open)
      const { lastScreenAt, paintAt, frameAt } = opened.open
      console.error(
        `round ${index + 1}: cold open ${i + 1}: last screen painted at ${lastScreenAt?.toFixed(0) ?? '-'} ms, live list at ${(paintAt ?? frameAt).toFixed(0)} ms`,
      )
    }
    const typed = await typeSearches(browser!.page, seededRandom(42 + index))
    const floors = await typeFloors(browser!.page, seededRandom(42 + index))
    const hasFloorPage = await writeLastScreenFloor(browser!.page, rendererDir)
    await browser!.context.close()
    browser = undefined
    const staticOpens: number[] = []
    for (let i = 0; hasFloorPage && i < COLD_OPENS; i++) staticOpens.push(await openLastScreenFloor(app, profile))
    console.error(
      `round ${index + 1}: the same screen as a static page painted at ${staticOpens.map((ms) => ms.toFixed(0)).join(', ') || '- (no copy kept)'} ms`,
    )
    return { bootstrap, peer, opens, typed, floors, staticOpens }
  } finally {
    await browser?.context.close().catch(() => undefined)
    await app.close()
    await bench.close()
    rmSync(folder, { recursive: true, force: true })
  }
}

// ---- figures --------------------------------------------------------------------------------

/** What the bootstrap's longest long task was: the frame that held it and the longest scripts in that frame. */
function describeLongestTask({ longTasks, longestTaskFrame: frame }: Bootstrap): string {
  if (longTasks.length === 0) return 'no long task (50 ms or more)'
  if (!frame) return 'the longest long task: its frame not reported'
  const scripts = [...frame.scripts].sort((a, b) => b.duration - a.duration).slice(0, 3)
  const what = scripts.map((s) => `${s.invoker || s.fn || 'script'} ${s.duration.toFixed(0)} ms`).join('; ')
  return `the longest long task was in a frame of ${frame.duration.toFixed(0)} ms${what ? `: ${what}` : ''}`
}

async function main(): Promise<void> {
  if (!existsSync(join(RENDERER_DIR, 'index.html'))) {
    console.error(`interface bench: ${RENDERER_DIR} is not built; run \`npm run build\` first.`)
    process.exit(1)
  }
  const rounds: Round[] = []
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(i))

  const figures: Figure[] = []
  const add = (figure: string, value: number, unit: string, note?: string) =>
    figures.push({ bench: 'interface', figure, value: Math.round(value * 100) / 100, unit, ...(note ? { note } : {}) })
  const med = (pick: (r: Round) => number) => median(rounds.map(pick))
  const boot = (pick: (b: Bootstrap) => number) => med((r) => pick(r.bootstrap))

  // (a)
  const longest = [...rounds].sort((a, b) => b.bootstrap.tasks.longestMs - a.bootstrap.tasks.longestMs)[0].bootstrap
  add(
    'bootstrap: sign-in to synced',
    boot((b) => b.syncedMs) / 1000,
    's',
    `${boot((b) => b.requests)} requests (${describeRoutes(rounds[0].bootstrap.routes, 4)}), ${boot((b) => b.rateLimited)} answered 429`,
  )
  add(
    'bootstrap: the data layer alone (Node), to synced',
    med((r) => r.peer.ms) / 1000,
    's',
    `the peer: the same workspace and service, the app's sync options; ${med((r) => r.peer.requests)} requests; complete in ${rounds.filter((r) => r.peer.complete).length} of ${rounds.length} rounds`,
  )
  add(
    'bootstrap: the app against the data layer alone',
    med((r) => ratio(r.bootstrap.syncedMs, r.peer.ms)),
    'x',
    'sign-in to synced over the peer of the same round; goal: at most 1.5x',
  )
  const cpuOf = (kind?: string) => boot((b) => (b.cpu ? (kind ? (b.cpu.byKind.get(kind) ?? 0) : b.cpu.total) : Number.NaN))
  add(
    "bootstrap: the browser's CPU, sign-in to synced",
    cpuOf(),
    's',
    `all its processes (from /proc): the browser process (IndexedDB's writes) ${cpuOf('browser').toFixed(1)} s, the renderer (the window and its sync worker) ${cpuOf('renderer').toFixed(1)} s, the GPU process ${cpuOf('gpu-process').toFixed(1)} s; moves less with the machine's load than the times`,
  )
  const appCpu = (b: Bootstrap) => (b.cpu ? b.cpu.total + b.serviceCpu : Number.NaN)
  add(
    'bootstrap: CPU in all, sign-in to synced',
    boot(appCpu),
    's',
    `the browser's and this process's (the service and the host, and the benchmark's tracing of the page, about 0.15 s of it: ${boot((b) => b.serviceCpu).toFixed(1)} s), on ${os.availableParallelism()} cores`,
  )
  add(
    'bootstrap: the data layer alone, its CPU',
    med((r) => r.peer.cpu),
    's',
    'the peer: its one process (the service and the data layer)',
  )
  add(
    "bootstrap: the app's CPU against the peer's",
    med((r) => ratio(appCpu(r.bootstrap), r.peer.cpu)),
    'x',
    'same round',
  )
  const cacheFloor = (pick: (f: CacheFloor) => number) => boot((b) => pick(b.cacheFloor))
  const biggest = rounds[0].bootstrap.cacheFloor.tables
    .slice(0, 4)
    .map((t) => `${t.name} ${t.rows} rows ${(t.ms / 1000).toFixed(2)} s`)
    .join(', ')
  add(
    'bootstrap: its rows written alone into IndexedDB',
    cacheFloor((f) => f.ms) / 1000,
    's',
    `the floor while the cache is IndexedDB (cache-floor.ts): the ${cacheFloor((f) => f.rows)} rows the bootstrap stored (${(cacheFloor((f) => f.bytes) / 1e6).toFixed(1)} MB as JSON) written again by the idle page, ${CACHE_FLOOR_BATCH} to a transaction, a table at a time; ${biggest}`,
  )
  add(
    'bootstrap: that floor against the data layer alone',
    med((r) => ratio(r.bootstrap.cacheFloor.ms, r.peer.ms)),
    'x',
    "the floor's writes alone over the peer's whole bootstrap, same round",
  )
  add(
    'bootstrap: the app against that floor',
    med((r) => ratio(r.bootstrap.syncedMs, r.bootstrap.cacheFloor.ms)),
    'x',
    'sign-in to synced over the floor of the same round',
  )
  const pipeline = (pick: (f: PipelineFloor) => number) => boot((b) => pick(b.pipelineFloor))
  add(
    'bootstrap: the pipeline floor: its calls made again and stored, no app code',
    pipeline((f) => f.ms) / 1000,
    's',
    `the floor of the app's design (pipeline-floor.ts): the ${pipeline((f) => f.calls)} calls its sync made through the host, in the same order, made again by an idle page, each answer decoded and its items stored as it came (${pipeline((f) => f.rows)} rows, ${(pipeline((f) => f.bytes) / 1e6).toFixed(1)} MB as JSON)`,
  )
  add(
    "bootstrap: the pipeline floor's calls alone, nothing stored",
    boot((b) => b.callsFloor.ms) / 1000,
    's',
    `the same calls made again the same way, each answer decoded and dropped: the calls' part of the floor; against the peer ${med((r) => ratio(r.bootstrap.callsFloor.ms, r.peer.ms)).toFixed(2)}x`,
  )
  add(
    'bootstrap: the pipeline floor against the data layer alone',
    med((r) => ratio(r.bootstrap.pipelineFloor.ms, r.peer.ms)),
    'x',
    "the calls and their storing alone over the peer's whole bootstrap, same round; the app's goal: at most 1.5x the peer",
  )
  add(
    'bootstrap: the app against the pipeline floor',
    med((r) => ratio(r.bootstrap.syncedMs, r.bootstrap.pipelineFloor.ms)),
    'x',
    'sign-in to synced over the floor of the same round: what the app adds to the calls and the writes',
  )
  const pipelineCpu = (b: Bootstrap) => (b.pipelineFloor.cpu?.browser ? b.pipelineFloor.cpu.browser.total + b.pipelineFloor.cpu.node : Number.NaN)
  add(
    "bootstrap: the pipeline floor's CPU in all",
    boot(pipelineCpu),
    's',
    `the browser's and this process's (the service and the host: ${boot((b) => b.pipelineFloor.cpu?.node ?? Number.NaN).toFixed(1)} s)`,
  )
  add(
    "bootstrap: the app's CPU against the pipeline floor's",
    boot((b) => ratio(appCpu(b), pipelineCpu(b))),
    'x',
    'same round',
  )
  add('bootstrap: sign-in to search index complete', boot((b) => b.indexedMs) / 1000, 's')
  add(
    'bootstrap: sign-in to the first epic rows painted',
    boot((b) => b.firstRowMs ?? Number.NaN) / 1000,
    's',
    'while the bootstrap runs (Element Timing on the first row); goal: within 2 s',
  )
  add(
    'bootstrap: requests',
    boot((b) => b.requests),
    'requests',
    `goal: the floor, the sign-in's whoami and one per prefetched file: ${boot((b) => b.floor)} + 1 + ${boot((b) => b.downloads)} = ${boot((b) => b.floor + 1 + b.downloads)}; all: ${describeRoutes(rounds[0].bootstrap.routes, 20)}`,
  )
  add(
    'bootstrap: files the prefetch budget covered',
    boot((b) => b.downloads),
    'files',
    `of ${boot((b) => b.files)} files: the most recently updated that fit the budget (${DEFAULT_SYNC_OPTIONS.fileBudgetBytes / 2 ** 20} MB)`,
  )
  add(
    'bootstrap: longest main-thread task',
    boot((b) => b.tasks.longestMs),
    'ms',
    `goal: none over 50 ms; worst round: ${describeLongestTask(longest)}`,
  )
  add(
    'bootstrap: tasks of 50 ms or more',
    boot((b) => b.tasks.over50),
    'tasks',
    `of ${boot((b) => b.tasks.tasks)} tasks; main thread busy ${(boot((b) => b.tasks.busyMs) / 1000).toFixed(1)} s`,
  )
  add(
    'bootstrap: long tasks (Long Tasks API)',
    boot((b) => b.longTasks.length),
    'tasks',
    `longest ${boot((b) => Math.max(0, ...b.longTasks.map((t) => t.duration))).toFixed(0)} ms`,
  )
  add('bootstrap: JS heap after it', boot((b) => b.heapBytes) / 2 ** 20, 'MB', 'after a full GC; goal: under 200 MB')

  // (b): the median of each round's cold opens, then of the rounds.
  const opens = (pick: (o: ColdOpen) => number) => med((r) => median(r.opens.map(pick)))
  const live = (o: ColdOpen) => o.paintAt ?? o.frameAt
  const painted = (o: ColdOpen) => o.lastScreenAt ?? live(o)
  const copies = rounds.reduce((n, r) => n + r.opens.filter((o) => o.lastScreenAt !== undefined).length, 0)
  add(
    'cold open: first epic list painted',
    opens(painted),
    'ms',
    `from navigation start; median of ${COLD_OPENS} opens; goal: under 300 ms; the last screen's copy in ${copies} of ${rounds.length * COLD_OPENS} opens`,
  )
  const staticRounds = rounds.filter((r) => r.staticOpens.length > 0)
  const staticMedian = median(staticRounds.map((r) => median(r.staticOpens)))
  add(
    'cold open: the same screen as a static page',
    staticMedian,
    'ms',
    `the floor of the first list (no script: the last screen's copy in the build's HTML with its style sheet); median of ${COLD_OPENS} opens in ${staticRounds.length} of ${rounds.length} rounds; slowest ${median(staticRounds.map((r) => Math.max(...r.staticOpens))).toFixed(0)} ms`,
  )
  add(
    'cold open: first epic list against the static page',
    median(staticRounds.map((r) => ratio(median(r.opens.map(painted)), median(r.staticOpens)))),
    'x',
    'the median of each round over its floor',
  )
  add('cold open: live epic list painted', opens(live), 'ms', 'the app running (Element Timing on its first row)')
  add(
    'cold open: first live epic row in the DOM',
    opens((o) => o.domAt),
    'ms',
  )
  add(
    'cold open: its frame done on the main thread',
    opens((o) => o.frameAt),
    'ms',
    'rAF, then the task after it',
  )
  add(
    'cold open: slowest of the opens (first list)',
    med((r) => Math.max(...r.opens.map(painted))),
    'ms',
  )
  add(
    'cold open: cache open (IndexedDB answered)',
    opens((o) => o.cacheOpenAt),
    'ms',
    'from navigation start; the first screen painted before it comes from the last run (first-paint/saved-rows.ts)',
  )
  add(
    'cold open: first screen read from the cache',
    opens((o) => o.firstScreenReadAt),
    'ms',
    'the 100 most recent epics, then all of them',
  )
  add(
    'cold open: search index built',
    opens((o) => o.searchReadyAt),
    'ms',
    'from navigation start',
  )
  add(
    'cold open: longest main-thread task',
    opens((o) => o.tasks.longestMs),
    'ms',
    `to the index built; tasks of 50 ms or more: ${opens((o) => o.tasks.over50)}`,
  )

  // (c)
  const surfaces = rounds[0].typed.map((t) => t.surface)
  for (const [i, surface] of surfaces.entries()) {
    const per = rounds.map((r) => keystrokeFigures(r.typed[i]))
    const k = (pick: (f: KeystrokeFigures) => number) => median(per.map(pick))
    add(
      `${surface}: keystroke to results rendered, p50`,
      k((f) => f.renderP50),
      'ms',
      `${k((f) => f.count)} keystrokes a round`,
    )
    add(
      `${surface}: keystroke to results rendered, p95`,
      k((f) => f.renderP95),
      'ms',
    )
    add(
      `${surface}: p95 against the floor`,
      median(rounds.map((r) => ratio(keystrokeFigures(r.typed[i]).renderP95, keystrokeFigures(r.floors[0]).renderP95))),
      'x',
      `over the p95 of "${FLOORS[0].surface}" (d) in the same round; goal: at most 1.15x`,
    )
    add(
      `${surface}: keystroke to results rendered, max`,
      k((f) => f.renderMax),
      'ms',
    )
    const parts = (name: keyof KeystrokeFigures['parts'], what: string) =>
      add(
        `${surface}: ${what}, p95`,
        k((f) => f.parts[name].p95),
        'ms',
        `p50 ${k((f) => f.parts[name].p50).toFixed(1)} ms`,
      )
    parts('input', 'of which the key until the input event')
    parts('handler', "of which the app's input handlers")
    parts('rendering', "of which the browser's layout and frame after them")
    add(
      `${surface}: keystroke to next frame, p50`,
      k((f) => f.paintP50),
      'ms',
      "includes the wait for the display's next frame (16.7 ms apart)",
    )
    add(
      `${surface}: keystroke to next frame, p95`,
      k((f) => f.paintP95),
      'ms',
    )
    add(
      `${surface}: keystrokes Event Timing found slow`,
      k((f) => f.slowInteractions),
      'keystrokes',
      `16 ms or more to presentation; slowest ${k((f) => f.slowestInteraction)} ms; DOM changed after the frame: ${k((f) => f.late)}`,
    )
  }

  // (d): what the browser alone takes when a keystroke shows 16 other epics, to read (c) against.
  for (const [i, { surface }] of FLOORS.entries()) {
    const per = rounds.map((r) => keystrokeFigures(r.floors[i]))
    const k = (pick: (f: KeystrokeFigures) => number) => median(per.map(pick))
    add(
      `${surface}: keystroke to rows rendered, p50`,
      k((f) => f.renderP50),
      'ms',
      `no app code: the epic phrases typed into a copy of the list that rewrites its ${rounds[0].floors[i].rows} rows from rows seen before`,
    )
    add(
      `${surface}: keystroke to rows rendered, p95`,
      k((f) => f.renderP95),
      'ms',
      `of which the browser's layout and frame p95 ${k((f) => f.parts.rendering.p95).toFixed(1)} ms, the copying p95 ${k((f) => f.parts.handler.p95).toFixed(1)} ms`,
    )
  }

  report(
    `Interface: ${SIZE.epics} epics, ${SIZE.docs} docs, ${SIZE.files} files in headless Chromium through the browser host; ` +
      `rate limit ${describeLimit()}; median of ${ROUNDS} rounds (load average ${os.loadavg()[0].toFixed(2)} on ${os.availableParallelism()} cores)`,
    figures,
  )
}

await main()
