// Not a benchmark: where a bootstrap from empty (sign-in to "Synced", as the
// interface benchmark signs in) spends the window's main thread. Prints a CPU
// profile summarised by self time per file and per function, the main
// thread's tasks, and what the profile sampled in the five longest (the trace
// and the profile share a clock), and the CPU of the browser and of this
// process (the service and the host). Run: npm run build && BENCH_SCALE=0.1 npx tsx bench/profile-bootstrap.ts
//   PROFILE_OUT=file.cpuprofile   keep the raw profile (DevTools opens it)
//   PROFILE_TRACE=1               the timeline's events on the main thread by name instead of its tasks
//                                 (layout, paint, IndexedDB, ...), inclusive times
//   PROFILE_FRAMES=1              the window's socket to the host, request by request (in the app the
//                                 sync worker has a socket of its own, which the page's session cannot see)
//   PROFILE_CONSOLE=1             the page's console; PROFILE_INIT=<script> runs before the page's own
//   PROFILE_WORKER_OUT=file.cpuprofile  the sync worker's own CPU profile (where the cache's writes spend their time)
//   PROFILE_AFTER_MS=<ms>         go on profiling that long after "Synced" (the window's idle work after a bootstrap)
//   PROFILE_THREADS=1             the browser's CPU, sign-in to synced, by thread (the sync worker, IndexedDB's backend, ...)
//   PROFILE_FLOOR=1               after "Synced", the cache floor (cache-floor.ts) and what it costs each thread
//   PROFILE_PIPELINE=1            after "Synced", the pipeline floor (pipeline-floor.ts): the sync's calls made again and
//                                 their answers stored by an idle page, and what it costs each thread (=calls: nothing stored)
//   PROFILE_COLD=<n>              after it all, n cold opens of the filled profile (a new browser each), their longest tasks
//   PROFILE_CALLS=1               the pages' calls to the host by phase (runs of one operation: how many, from
//                                 when to when after sign-in, the median time between two, the median answer)
// An unminified build profiles with names: E2E_RENDERER_DIR=<a build with minify off>.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import type { CDPSession } from 'playwright'
import { MemorySecretStore } from '../src-web/memory-secrets.ts'
import { startWebApp } from '../src-web/web-app.ts'
import type { HostCall } from '../src-web/host.ts'
import { RENDERER_DIR } from '../e2e/fixtures/global-setup.ts'
import { browserCpu, cpuBetween, launch, traceTasks, type MainThreadTasks } from './browser.ts'
import { writeCacheAgain, type CacheFloor } from './cache-floor.ts'
import { inPage } from './page-probes.ts'
import { describePhases, pipelineFloor } from './pipeline-floor.ts'
import { processCpu, RATE_LIMIT, startBenchService, workspaceSize } from './harness.ts'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  /** µs, on the trace's clock. */
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

const bench = await startBenchService(workspaceSize())
const folder = mkdtempSync(join(os.tmpdir(), 'outpost-profile-'))
const calls: HostCall[] = []
const app = await startWebApp({
  rendererDir: RENDERER_DIR,
  dataDir: join(folder, 'host'),
  secrets: new MemorySecretStore(),
  demo: false,
  rateLimit: RATE_LIMIT,
  onCall: process.env.PROFILE_CALLS || process.env.PROFILE_PIPELINE ? (call) => calls.push(call) : undefined,
})
const profileDir = join(folder, 'profile')
const { page, cdp, context } = await launch(profileDir)
try {
  if (process.env.PROFILE_INIT) await context.addInitScript({ content: process.env.PROFILE_INIT })
  await page.goto(app.host.url)
  await page.getByLabel('Service address').fill(bench.service.baseUrl)
  await page.getByLabel('API token').fill(bench.service.tokens.admin)
  const worker = process.env.PROFILE_WORKER_OUT ? await profileWorker(cdp) : undefined
  await startProfiler((method, params) => cdp.send(method as never, params as never))
  const trace = await traceTasks(cdp)
  const events: { ph: string; name: string; pid: number; tid: number; ts: number; dur?: number; args?: { name?: string } }[] = []
  if (process.env.PROFILE_TRACE) {
    // traceTasks started tracing already: restart with the timeline's categories.
    await trace.stop()
    cdp.on('Tracing.dataCollected', (d: { value: object[] }) => void events.push(...(d.value as never[])))
    await cdp.send('Tracing.start', {
      traceConfig: { includedCategories: ['toplevel', '__metadata', 'devtools.timeline', 'v8', 'blink', 'IndexedDB'], recordMode: 'recordContinuously' },
      transferMode: 'ReportEvents',
    })
  }
  await cdp.send('Network.enable')
  const frames: { t: number; dir: 'out' | 'in'; data: string }[] = []
  cdp.on('Network.webSocketFrameSent', (e) => frames.push({ t: e.timestamp * 1000, dir: 'out', data: e.response.payloadData }))
  cdp.on('Network.webSocketFrameReceived', (e) => frames.push({ t: e.timestamp * 1000, dir: 'in', data: e.response.payloadData }))
  // The page's and its workers' console (timings printed while investigating).
  if (process.env.PROFILE_CONSOLE) page.on('console', (m) => console.log(`console: ${m.text()}`))
  const cpuBefore = browserCpu(profileDir)
  const threadsBefore = process.env.PROFILE_THREADS ? browserCpu(profileDir, 'thread') : undefined
  const nodeCpuSince = processCpu()
  const started = performance.now()
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page
    .getByRole('contentinfo', { name: 'Status' })
    .getByText(/^Synced (just now|\d)/)
    .waitFor({ timeout: 600_000 })
  const syncedMs = performance.now() - started
  const nodeCpu = nodeCpuSince()
  const cpu = cpuBetween(cpuBefore, browserCpu(profileDir))
  const threads = threadsBefore && cpuBetween(threadsBefore, browserCpu(profileDir, 'thread'))
  // What follows "Synced" too (the search index's idle work): PROFILE_AFTER_MS more of the profile.
  if (process.env.PROFILE_AFTER_MS) await page.waitForTimeout(Number(process.env.PROFILE_AFTER_MS))
  if (process.env.PROFILE_CALLS) console.log(callPhases(calls, started, started + syncedMs))
  if (worker && process.env.PROFILE_WORKER_OUT) writeFileSync(process.env.PROFILE_WORKER_OUT, JSON.stringify(await worker.stop()))
  let tasks: MainThreadTasks = { busyMs: 0, tasks: 0, longestMs: 0, over50: 0, longest: [] }
  if (process.env.PROFILE_TRACE) {
    const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()))
    await cdp.send('Tracing.end')
    await complete
    const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`))
    const byName = new Map<string, number>()
    for (const e of events)
      if (e.ph === 'X' && e.dur !== undefined && main.has(`${e.pid}:${e.tid}`)) byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000)
    console.log(
      [...byName]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 40)
        .map(([k, v]) => `  ${v.toFixed(0).padStart(7)} ms (inclusive)  ${k}`)
        .join('\n'),
    )
  } else tasks = await trace.stop()
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile }
  if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile))
  if (process.env.PROFILE_FRAMES) {
    const t0 = frames[0]?.t ?? 0
    const sent = new Map<number, { t: number; what: string }>()
    for (const f of frames) {
      const head = f.data.slice(0, 300)
      const id = Number(/"id":(\d+)/.exec(head)?.[1])
      if (f.dir === 'out') {
        const what = /"operation":"([^"]+)"/.exec(head)?.[1] ?? /"channel":"([^"]+)"/.exec(head)?.[1] ?? head.slice(0, 60)
        sent.set(id, { t: f.t, what })
        console.log(`${(f.t - t0).toFixed(0).padStart(6)} -> ${id} ${what}`)
      } else if (/"type":"result"/.test(head)) {
        const s = sent.get(id)
        console.log(
          `${(f.t - t0).toFixed(0).padStart(6)} <- ${id} ${s?.what ?? ''} ${s ? (f.t - s.t).toFixed(0) : ''} ms, ${(f.data.length / 1024).toFixed(0)} KB`,
        )
      } else if (/"type":"event"/.test(head)) console.log(`${(f.t - t0).toFixed(0).padStart(6)} <- event ${/"event":"([^"]+)"/.exec(head)?.[1]}`)
    }
  }
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i] / 1000))
  const byFunction = new Map<string, number>()
  const byFile = new Map<string, number>()
  let total = 0
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    const file = url.replace(/^.*\//, '') || functionName
    if (functionName === '(idle)') continue
    total += ms
    byFunction.set(
      `${functionName || '(anonymous)'} ${file}:${lineNumber}`,
      (byFunction.get(`${functionName || '(anonymous)'} ${file}:${lineNumber}`) ?? 0) + ms,
    )
    byFile.set(file, (byFile.get(file) ?? 0) + ms)
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `  ${v.toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n')
  console.log(
    `sign-in to synced ${(syncedMs / 1000).toFixed(1)} s; main thread busy ${(tasks.busyMs / 1000).toFixed(1)} s in ${tasks.tasks} tasks, longest ${tasks.longestMs.toFixed(0)} ms, ${tasks.over50} of 50 ms or more; sampled (not idle) ${(total / 1000).toFixed(1)} s`,
  )
  if (cpu) {
    const kinds = [...cpu.byKind].map(([kind, seconds]) => `${kind} ${seconds.toFixed(2)} s`).join(', ')
    console.log(`CPU, sign-in to synced: the browser ${cpu.total.toFixed(2)} s (${kinds}); the service and the host ${nodeCpu.toFixed(2)} s`)
  }
  console.log(
    `the longest tasks, and what the profile sampled in each (self time; the build's functions they ran in):\n${longestTasks(profile, tasks.longest)}`,
  )
  /** CPU seconds by thread, the busiest first. */
  const byThread = (used: ReturnType<typeof cpuBetween>) =>
    [...(used?.byKind ?? [])]
      .filter(([, seconds]) => seconds >= 0.02)
      .sort((a, b) => b[1] - a[1])
      .map(([name, seconds]) => `  ${seconds.toFixed(2).padStart(6)} s  ${name}`)
      .join('\n')
  if (threads) console.log(`CPU by thread, sign-in to synced:\n${byThread(threads)}`)
  if (process.env.PROFILE_FLOOR) {
    // The cache floor (cache-floor.ts) on the same threads: what storing the rows alone costs each.
    const before = browserCpu(profileDir, 'thread')
    const floor = (await page.evaluate(inPage(writeCacheAgain, 100))) as CacheFloor
    const used = cpuBetween(before, browserCpu(profileDir, 'thread'))
    console.log(
      `the cache floor: ${floor.rows} rows in ${(floor.ms / 1000).toFixed(2)} s; CPU by thread (its read of the rows first included):\n${byThread(used)}`,
    )
  }
  if (process.env.PROFILE_PIPELINE) {
    // PROFILE_PIPELINE=calls: the answers decoded, nothing stored.
    const store = process.env.PROFILE_PIPELINE !== 'calls'
    const floor = await pipelineFloor(app, context, profileDir, calls, started, started + syncedMs, store)
    console.log(
      `the pipeline floor${store ? '' : ', nothing stored'}: ${floor.calls} calls, ${floor.rows} rows ${store ? 'stored' : 'decoded'} (${(floor.bytes / 1e6).toFixed(1)} MB as JSON) in ${(floor.ms / 1000).toFixed(2)} s; the service and the host ${floor.cpu?.node.toFixed(2)} s of CPU; its phases:\n${describePhases(floor)}\nthe browser by thread:\n${byThread(floor.cpu?.browser)}`,
    )
  }
  console.log(`by file:\n${top(byFile, 15)}\nby function:\n${top(byFunction, 40)}`)
  if (process.env.PROFILE_COLD) {
    // The last screen's copy is kept when the window has been still a moment.
    await page.waitForTimeout(10_000)
    await context.close()
    for (let open = 1; open <= Number(process.env.PROFILE_COLD); open++) await profileColdOpen(open)
  }
} finally {
  await context.close()
  await app.close()
  await bench.close()
  rmSync(folder, { recursive: true, force: true })
}

/** Starts a CPU profile sampling every 200 µs, through `send` (a page's session, or a message relayed to its worker). */
async function startProfiler(send: (method: string, params?: object) => Promise<unknown>): Promise<void> {
  await send('Profiler.enable')
  await send('Profiler.setSamplingInterval', { interval: 200 })
  await send('Profiler.start')
}

/** A new browser on the filled profile, the app opened and profiled for 4 s: its main thread's tasks and the longest ones' contents. */
async function profileColdOpen(open: number): Promise<void> {
  const { page, cdp, context } = await launch(profileDir)
  try {
    await startProfiler((method, params) => cdp.send(method as never, params as never))
    const trace = await traceTasks(cdp)
    await page.goto(app.host.url)
    await page.waitForTimeout(4_000)
    const tasks = await trace.stop()
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile }
    console.log(
      `cold open ${open}: main thread busy ${tasks.busyMs.toFixed(0)} ms in ${tasks.tasks} tasks in its first 4 s, longest ${tasks.longestMs.toFixed(0)} ms, ${tasks.over50} of 50 ms or more:`,
    )
    console.log(longestTasks(profile, tasks.longest))
  } finally {
    await context.close()
  }
}

/** For each task, the functions sampled in it by self time, and the build's own functions they were called from (inclusive). */
function longestTasks(profile: Profile, longest: MainThreadTasks['longest']): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const name = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame
    return `${functionName || '(anonymous)'} ${url.replace(/^.*\//, '')}:${lineNumber}`
  }
  // The build's own code (the app's, Dexie's and Svelte's), named: not the sync worker's, whose samples are not here.
  const ours = (id: number) => /\/assets\/(?!worker-)[^/]+\.js$/.test(byId.get(id)!.callFrame.url) && byId.get(id)!.callFrame.functionName !== ''
  const lines: string[] = []
  for (const task of longest) {
    const self = new Map<string, number>()
    const inclusive = new Map<string, number>()
    let at = profile.startTime
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i]
      if (at < task.startUs || at > task.startUs + task.ms * 1000) return
      const ms = profile.timeDeltas[i] / 1000
      self.set(name(id), (self.get(name(id)) ?? 0) + ms)
      const seen = new Set<string>()
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        if (!ours(n) || seen.has(name(n))) continue
        seen.add(name(n))
        inclusive.set(name(n), (inclusive.get(name(n)) ?? 0) + ms)
      }
    })
    const top = (map: Map<string, number>, n: number) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')
    lines.push(`  ${task.ms.toFixed(1)} ms: ${top(self, 6)}\n      in: ${top(inclusive, 12)}`)
  }
  return lines.join('\n')
}

/**
 * Profiles the page's dedicated worker (the sync's) from its start: the page's session attaches to it
 * unflattened, since Playwright's session speaks to one target, and relays the Profiler's messages.
 */
async function profileWorker(cdp: CDPSession): Promise<{ stop: () => Promise<Profile | undefined> }> {
  type Attached = { sessionId: string; targetInfo: { type: string } }
  const waiting = new Map<number, (result: unknown) => void>()
  let session: string | undefined
  let seq = 1
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = seq++
      waiting.set(id, resolve)
      void cdp.send('Target.sendMessageToTarget', { sessionId: session, message: JSON.stringify({ id, method, params }) })
    })
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const message = JSON.parse(e.message) as { id?: number; result?: unknown }
    if (message.id === undefined) return
    waiting.get(message.id)?.(message.result)
    waiting.delete(message.id)
  })
  cdp.on('Target.attachedToTarget', (e: Attached) => {
    if (e.targetInfo.type !== 'worker' || session) return
    session = e.sessionId
    void (async () => {
      await startProfiler(send)
      await send('Runtime.runIfWaitingForDebugger')
    })()
  })
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false })
  return { stop: async () => (session ? ((await send('Profiler.stop')) as { profile: Profile }).profile : undefined) }
}

/** The calls from sign-in to synced as phases: runs of one channel and operation, in the order they began. */
function callPhases(calls: HostCall[], from: number, to: number): string {
  const nameOf = (c: HostCall) => {
    const operation = (c.request as { operation?: unknown } | undefined)?.operation
    return typeof operation === 'string' ? `${c.channel.replace(/^outpost:/, '')} ${operation}` : c.channel.replace(/^outpost:/, '')
  }
  const median = (xs: number[]) => (xs.length === 0 ? 0 : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)])
  const runs: { name: string; calls: HostCall[] }[] = []
  for (const c of calls.filter((c) => c.at >= from && c.at <= to).sort((a, b) => a.at - b.at)) {
    const name = nameOf(c)
    if (runs.at(-1)?.name === name) runs.at(-1)!.calls.push(c)
    else runs.push({ name, calls: [c] })
  }
  const ms = (t: number) => `${(t - from).toFixed(0).padStart(6)} ms`
  const lines = runs.map(({ name, calls }) => {
    const first = calls[0]
    const last = calls.at(-1)!
    const gaps = calls.slice(1).map((c, i) => c.at - calls[i].at)
    const end = last.at + last.answerMs + last.sendMs
    return `  ${ms(first.at)} to ${ms(end)}  ${String(calls.length).padStart(4)} x ${name}; between two ${median(gaps).toFixed(0)} ms, answered in ${median(calls.map((c) => c.answerMs)).toFixed(1)} ms, on the socket ${median(calls.map((c) => c.sendMs)).toFixed(1)} ms later (medians)`
  })
  return [`calls from sign-in to synced (${(to - from).toFixed(0)} ms), by phase:`, ...lines].join('\n')
}
