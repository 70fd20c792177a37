// What the interface benchmark watches from inside the page: standard
// performance APIs only (PerformanceObserver, MutationObserver, Element
// Timing, requestAnimationFrame), installed before the app's own scripts run.
// Nothing here changes the app: it reads the DOM and the performance timeline.
//
// These functions run in Chromium, not in Node: they are sent as source text
// (`inPage`), so each must be self-contained (no imports, no outer names).

/** One main-thread task of 50 ms or more (Long Tasks API). */
export interface LongTask {
  start: number
  duration: number
}

/** A frame that took 50 ms or more (Long Animation Frames API), with the scripts that ran in it. */
export interface LongFrame {
  start: number
  duration: number
  blockingDuration: number
  scripts: { invoker: string; fn: string; url: string; duration: number }[]
}

/** When an epic row first reached the page, in ms since navigation start (performance.timeOrigin). */
export interface FirstRow {
  /** The row was inserted into the DOM. */
  domAt: number
  /** The main thread finished the first frame holding it (rAF, then the task after it). */
  frameAt?: number
  /** Element Timing: when its text was painted. */
  paintAt?: number
}

/** What the probes collected so far (window.__bench). */
export interface Probes {
  longTasks: LongTask[]
  longFrames: LongFrame[]
  /** The live app's first epic row. */
  firstRow: FirstRow | null
  /** The first row of the last screen's copy (first-paint/screen-copy.ts), painted before the app runs; null when none was. */
  lastScreenRow: FirstRow | null
  /** Paint Timing's first contentful paint: the last screen's, when there is one (Element Timing reports none for it). */
  firstContentfulPaint?: number
}

/**
 * Installed at document start in every page of the profile: long tasks and
 * long frames as they happen, and the first epic row's paint.
 */
export function installProbes(): void {
  const probes: Probes = { longTasks: [], longFrames: [], firstRow: null, lastScreenRow: null }
  ;(window as unknown as { __bench: Probes }).__bench = probes
  const observe = (type: string, take: (entry: any) => void, options: Record<string, unknown> = {}) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(take)).observe({ type, buffered: true, ...options })
    } catch {
      // An entry type this Chromium does not have: its figure stays empty.
    }
  }
  observe('longtask', (e) => probes.longTasks.push({ start: e.startTime, duration: e.duration }))
  observe('paint', (e) => {
    if (e.name === 'first-contentful-paint') probes.firstContentfulPaint = e.startTime
  })
  observe('long-animation-frame', (e) =>
    probes.longFrames.push({
      start: e.startTime,
      duration: e.duration,
      blockingDuration: e.blockingDuration,
      scripts: (e.scripts ?? []).map((s: any) => ({ invoker: s.invoker, fn: s.sourceFunctionName, url: s.sourceURL, duration: s.duration })),
    }),
  )

  // The first row matching `selector`: its text is marked for Element Timing before its first paint
  // (a MutationObserver callback runs before the frame), and the frame is timed from the main thread too.
  const watchFirst = (selector: string, identifier: string, found: (row: FirstRow) => void) => {
    const rows = new MutationObserver(() => {
      const row = document.querySelector(selector)
      if (!row) return
      rows.disconnect()
      const first: FirstRow = { domAt: performance.now() }
      found(first)
      const text = row.querySelector('.name') ?? row
      text.setAttribute('elementtiming', identifier)
      observe('element', (e) => {
        if (e.identifier === identifier && first.paintAt === undefined) first.paintAt = e.renderTime || e.startTime
      })
      requestAnimationFrame(() => {
        const channel = new MessageChannel()
        channel.port1.onmessage = () => (first.frameAt = performance.now())
        channel.port2.postMessage(null)
      })
    })
    rows.observe(document, { childList: true, subtree: true })
  }
  watchFirst('[id^="epic-row-"]', 'first-epic-row', (row) => (probes.firstRow = row))
  watchFirst('[id^="last-screen-epic-row-"]', 'last-screen-epic-row', (row) => (probes.lastScreenRow = row))
}

/** One keystroke in a search field, in ms since navigation start. */
export interface Keystroke {
  key: string
  /** The field's value before the key. */
  before: string
  /** The keydown's own timestamp (when the browser received the key). */
  at: number
  /** The input event reached the page (its first listener: the browser has handled the key and inserted the character). */
  inputAt?: number
  /** The input event's last listener ran: the app's handlers and the updates they made (Svelte's, in their microtasks) were done. */
  handledAt?: number
  /** The task that handled the input (the app's handlers, the search, the DOM update) was over. */
  renderedAt?: number
  /** The main thread finished the next frame after it. */
  paintedAt?: number
  /** DOM changes the keystroke made by renderedAt, and by paintedAt (more at paintedAt: some came late). */
  mutationsRendered?: number
  mutationsPainted?: number
}

/** Event Timing entries of the keystrokes (only those of 16 ms or more are reported by the browser). */
export interface SlowEvent {
  name: string
  duration: number
  processing: number
  interactionId: number
}

/**
 * Times every printable keystroke (and Backspace) in a text field from now on:
 * window.__keystrokes, and window.__keystroke(n) resolves once the n-th is painted.
 */
export function watchKeystrokes(): void {
  const records: Keystroke[] = []
  const slow: SlowEvent[] = []
  const waiting = new Map<number, () => void>()
  const w = window as unknown as { __keystrokes: Keystroke[]; __slowEvents: SlowEvent[]; __keystroke: (n: number) => Promise<void> }
  w.__keystrokes = records
  w.__slowEvents = slow
  w.__keystroke = (n) =>
    new Promise<void>((resolve) => {
      if (records[n - 1]?.paintedAt !== undefined) return resolve()
      waiting.set(n, resolve)
      // A key that changed nothing (no input event) is not waited for forever.
      setTimeout(resolve, 5_000)
    })
  const afterThisTask = (run: (now: number) => void) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => run(performance.now())
    channel.port2.postMessage(null)
  }

  let mutations = 0
  new MutationObserver((list) => (mutations += list.length)).observe(document.body, { childList: true, subtree: true, characterData: true })
  new PerformanceObserver((list) => {
    for (const e of list.getEntries() as any[]) {
      if (e.interactionId) slow.push({ name: e.name, duration: e.duration, processing: e.processingEnd - e.processingStart, interactionId: e.interactionId })
    }
  }).observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit)

  let current: Keystroke | undefined
  addEventListener(
    'keydown',
    (event) => {
      const field = event.target
      const typed = event.key.length === 1 || event.key === 'Backspace'
      current =
        field instanceof HTMLInputElement && typed && !event.ctrlKey && !event.metaKey && !event.altKey
          ? { key: event.key, before: field.value, at: event.timeStamp }
          : undefined
    },
    true,
  )
  let handling: Keystroke | undefined
  addEventListener(
    'input',
    () => {
      const record = current
      current = undefined
      if (!record) return
      record.inputAt = performance.now()
      handling = record
      const start = mutations
      records.push(record)
      const n = records.length
      afterThisTask((renderedAt) => {
        record.renderedAt = renderedAt
        record.mutationsRendered = mutations - start
        requestAnimationFrame(() =>
          afterThisTask((paintedAt) => {
            record.paintedAt = paintedAt
            record.mutationsPainted = mutations - start
            waiting.get(n)?.()
            waiting.delete(n)
          }),
        )
      })
    },
    true,
  )
  // Bubbling on the window: the last listener of the input event, after the app's.
  addEventListener('input', () => {
    if (handling) handling.handledAt = performance.now()
    handling = undefined
  })
}

/**
 * A page function as script text, called with `arg` (sent as JSON); its value
 * is the script's. tsx compiles with esbuild's keepNames, which wraps named
 * functions in `__name(...)`: the page gets a stand-in for it.
 */
export function inPage(fn: () => unknown): string
export function inPage<A>(fn: (arg: A) => unknown, arg: A): string
export function inPage(fn: (arg?: unknown) => unknown, ...arg: unknown[]): string {
  return `globalThis.__name ??= (f) => f;\n(${fn.toString()})(${arg.map((a) => JSON.stringify(a)).join()});`
}
