// Chromium for the interface benchmark: Debian's Chromium through
// playwright-core (never `npx playwright install`), headless, with the e2e
// suite's flags, on a profile folder that outlives the browser (so a second
// launch finds the cache the first one filled). The Chrome DevTools Protocol
// gives what the page cannot see of itself: every main-thread task (a trace)
// and the JS heap after a full garbage collection.
import { readdirSync, readFileSync } from 'node:fs'
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core'
import { inPage, installProbes, type Probes } from './page-probes.ts'

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** As e2e/playwright.config.ts launches it. */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

export interface BrowserWindow {
  context: BrowserContext
  page: Page
  cdp: CDPSession
}

/** A new Chromium on `profileDir` with the probes in every page, and its first tab. */
export async function launch(profileDir: string): Promise<BrowserWindow> {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
  })
  await context.addInitScript({ content: inPage(installProbes) })
  const page = context.pages()[0] ?? (await context.newPage())
  const cdp = await context.newCDPSession(page)
  return { context, page, cdp }
}

export const probesOf = (page: Page): Promise<Probes> => page.evaluate(() => (window as unknown as { __bench: Probes }).__bench)

interface TraceEvent {
  ph: string
  name: string
  pid: number
  tid: number
  ts: number
  dur?: number
  args?: { name?: string }
}

export interface MainThreadTasks {
  /** Tasks the page's main thread ran while traced. */
  tasks: number
  longestMs: number
  /** Tasks of 50 ms or more (a "long task"). */
  over50: number
  /** Time the main thread was running tasks, in ms. */
  busyMs: number
  /** The longest few: when each began (µs on the trace's clock, which CPU profiles share) and how long it ran. */
  longest: { startUs: number; ms: number }[]
}

/**
 * Records every task of the renderer's main thread (the trace's `toplevel`
 * category: one event per task with its duration) until `stop()`.
 */
export async function traceTasks(cdp: CDPSession): Promise<{ stop(): Promise<MainThreadTasks> }> {
  const events: TraceEvent[] = []
  // The protocol types trace events as string maps; they are the trace format's objects.
  const collect = (data: { value: object[] }) => void events.push(...(data.value as TraceEvent[]))
  cdp.on('Tracing.dataCollected', collect)
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['toplevel', '__metadata'], recordMode: 'recordContinuously' },
    transferMode: 'ReportEvents',
  })
  return {
    async stop() {
      const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()))
      await cdp.send('Tracing.end')
      await complete
      cdp.off('Tracing.dataCollected', collect)
      return mainThreadTasks(events)
    },
  }
}

/** The tasks of the busiest renderer main thread in a trace (the page's: a headless profile has no other busy renderer). */
function mainThreadTasks(events: TraceEvent[]): MainThreadTasks {
  const mainThreads = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  )
  const byThread = new Map<string, { startUs: number; ms: number }[]>()
  for (const e of events) {
    const thread = `${e.pid}:${e.tid}`
    // A task's top-level slice: ThreadControllerImpl::RunTask (or RunTask in older builds).
    if (e.ph !== 'X' || e.dur === undefined || !mainThreads.has(thread) || !/(^|::)RunTask$/.test(e.name)) continue
    const list = byThread.get(thread) ?? []
    list.push({ startUs: e.ts, ms: e.dur / 1000 })
    byThread.set(thread, list)
  }
  const sum = (list: { ms: number }[]) => list.reduce((a, b) => a + b.ms, 0)
  const tasks = [...byThread.values()].sort((a, b) => sum(b) - sum(a))[0] ?? []
  const longest = [...tasks].sort((a, b) => b.ms - a.ms).slice(0, 5)
  return {
    tasks: tasks.length,
    longestMs: longest[0]?.ms ?? 0,
    over50: tasks.filter((t) => t.ms >= 50).length,
    busyMs: sum(tasks),
    longest,
  }
}

/** The page's JS heap in use after a full garbage collection, in bytes. */
export async function heapAfterGc(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage')
  await cdp.send('HeapProfiler.collectGarbage')
  const { usedSize } = await cdp.send('Runtime.getHeapUsage')
  return usedSize
}

/** CPU seconds the browser's processes have used, by kind of process (from /proc; undefined where there is none). */
export type BrowserCpu = Map<string, number>

/** A process's or thread's /proc stat: its name (as /proc cuts it), its parent, and its CPU seconds (user and system). */
function statOf(path: string): { name: string; parent: number; seconds: number } {
  const stat = readFileSync(path, 'utf8')
  // The name is in parentheses and may hold spaces or parentheses itself: the fields follow the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticksPerSecond = 100
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    parent: Number(fields[1]),
    seconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond,
  }
}

/**
 * The CPU time so far of every process of the Chromium launched on `profileDir` (the browser
 * process, whose IndexedDB backend writes the cache, its renderers with their workers, its GPU
 * process), by kind. CPU time moves far less with the machine's load than wall time does.
 * By 'thread': by kind and thread name (`renderer/DedicatedWorker`, `browser/ThreadPoolForeg`: names
 * as /proc cuts them), where in a process the time went.
 */
export function browserCpu(profileDir: string, by: 'process' | 'thread' = 'process'): BrowserCpu | undefined {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d))
  } catch {
    return undefined
  }
  const procs = new Map<number, { parent: number; seconds: number; kind: string; ours: boolean }>()
  for (const pid of pids) {
    try {
      const { parent, seconds } = statOf(`/proc/${pid}/stat`)
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      const kind = /--type=([a-z-]+)/.exec(command)?.[1] ?? 'browser'
      procs.set(Number(pid), { parent, seconds, kind, ours: command.includes(profileDir) && kind === 'browser' })
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = new Set([...procs].filter(([, p]) => p.ours).map(([pid]) => pid))
  for (let grew = true; grew;) {
    grew = false
    for (const [pid, p] of procs) if (!tree.has(pid) && tree.has(p.parent)) grew = tree.add(pid).size > 0
  }
  const byKind: BrowserCpu = new Map()
  for (const pid of tree) {
    const p = procs.get(pid)!
    if (by === 'process') {
      byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + p.seconds)
      continue
    }
    let tids: string[] = []
    try {
      tids = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tids) {
      try {
        const { name, seconds } = statOf(`/proc/${pid}/task/${tid}/stat`)
        const key = `${p.kind}/${name.replace(/\d+$/, '')}`
        byKind.set(key, (byKind.get(key) ?? 0) + seconds)
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return byKind
}

/** What the browser's processes used between two readings, by kind, and in all. */
export function cpuBetween(before: BrowserCpu | undefined, after: BrowserCpu | undefined): { total: number; byKind: Map<string, number> } | undefined {
  if (!before || !after) return undefined
  const byKind = new Map([...after].map(([kind, seconds]) => [kind, seconds - (before.get(kind) ?? 0)]))
  return { total: [...byKind.values()].reduce((a, b) => a + b, 0), byKind }
}
