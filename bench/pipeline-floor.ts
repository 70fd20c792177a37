// The floor of a bootstrap in the app with its own requests (interface
// benchmark): the calls the sync made through the host, made again in the same
// order by an idle page of the host's origin over a socket of its own, each
// answer decoded and its items stored as they came in IndexedDB, with no app
// code at all: no conversion, no reads of the cache, no list, no search index,
// no status. What is left is what the app's design cannot do without: the
// service answering, the host relaying, the answers crossing into the page and
// decoded there, and IndexedDB storing them. The cache floor (cache-floor.ts)
// is its last part alone.
//
// The calls keep the order the sync gave them: a call starts once every call
// that had ended before it started in the app has ended here (so a page of a
// walk follows the one whose cursor it carries, and the prefetch keeps its four
// at a time); a cursor is the one the answer before it gave here.
//
// Like page-probes.ts, `replayCalls` runs in Chromium and is sent as source
// text (`inPage`): self-contained, no imports, no outer names.
import { rm } from 'node:fs/promises'
import type { BrowserContext } from 'playwright-core'
import { HOST_BRIDGE_PATH, HOST_BRIDGE_PROTOCOL, HOST_SECRET_PROTOCOL_PREFIX } from '../src-shared/ipc.ts'
import type { HostCall } from '../src-web/host.ts'
import type { WebApp } from '../src-web/web-app.ts'
import { browserCpu, cpuBetween } from './browser.ts'
import { emptyWindow, processCpu } from './harness.ts'
import { inPage } from './page-probes.ts'

/** A call to make again, and the calls (by index) that must have ended before it starts. */
export interface FloorCall {
  channel: string
  request: unknown
  after: number[]
}

export interface PipelineFloorInput {
  /** The host's bridge (`ws://…/bridge`) and the subprotocols a page offers it. */
  url: string
  protocols: string[]
  calls: FloorCall[]
  /** Operations whose answers the app keeps only in part, elsewhere (the v3 epic list: positions and progress): decoded, not stored. */
  notStored: string[]
  /** false: the answers are decoded and nothing is stored (the calls' part of the floor alone). */
  store: boolean
}

export interface PipelineFloor {
  /** ms from the first call to the last answer stored. */
  ms: number
  calls: number
  /** Items stored (or, when nothing is, that would have been), and their size as JSON. */
  rows: number
  bytes: number
  /** Runs of one operation in the order they began: how many calls, from the first's start to the last's answer (ms after the floor's start). */
  phases: { operation: string; calls: number; from: number; to: number }[]
  /** CPU seconds meanwhile: the browser's by thread (where /proc tells), and this process's (the service and the host). */
  cpu?: { browser: ReturnType<typeof cpuBetween>; node: number }
}

const API_CALL = 'outpost:api.call'
const DOWNLOAD = 'outpost:files.download'

/**
 * The sync's calls of a bootstrap from the host's record (`HostCall`s told
 * between `from` and `to`): its API calls and the files it prefetched, with
 * what each waited for. The window's own calls (accounts, journal, status)
 * are left out.
 */
export function syncCalls(recorded: HostCall[], from: number, to: number): FloorCall[] {
  const calls = recorded
    .filter((c) => c.at >= from && c.at <= to)
    .filter((c) => c.channel === DOWNLOAD || (c.channel === API_CALL && (c.request as { lane?: string }).lane === 'sync'))
    .sort((a, b) => a.at - b.at)
  const end = (c: HostCall) => c.at + c.answerMs + c.sendMs
  return calls.map((c, i) => ({
    channel: c.channel,
    request: c.request,
    after: calls.slice(0, i).flatMap((earlier, j) => (end(earlier) <= c.at ? [j] : [])),
  }))
}

export async function replayCalls(input: PipelineFloorInput): Promise<PipelineFloor> {
  type Answer = { ok: boolean; value?: unknown; error?: unknown }
  const socket = await new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(input.url, input.protocols)
    ws.onopen = () => resolve(ws)
    ws.onclose = () => reject(new Error('pipeline floor: the host refused the socket'))
  })
  const waiting = new Map<number, (answer: Answer) => void>()
  const parts = new Map<number, unknown[]>()
  socket.onmessage = (event: MessageEvent) => {
    const message = JSON.parse(String(event.data)) as { type: string; id: number; items?: unknown[]; result?: Answer; parts?: number }
    if (message.type === 'part') {
      const got = parts.get(message.id) ?? []
      for (const item of message.items ?? []) got.push(item)
      parts.set(message.id, got)
    }
    if (message.type !== 'result') return
    const result = message.parts === undefined ? message.result! : { ok: true, value: parts.get(message.id) }
    parts.delete(message.id)
    waiting.get(message.id)?.(result)
    waiting.delete(message.id)
  }
  let nextId = 1
  const invoke = (channel: string, request: unknown) =>
    new Promise<Answer>((resolve) => {
      const id = nextId++
      waiting.set(id, resolve)
      socket.send(JSON.stringify({ type: 'invoke', id, channel, request }))
    })

  const operationOf = (call: FloorCall) => (call.request as { operation?: string }).operation ?? call.channel
  const stores = [...new Set(input.calls.map(operationOf))]
  const name = `outpost-pipeline-floor-${Date.now()}`
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open(name, 1)
    r.onupgradeneeded = () => {
      for (const store of stores) r.result.createObjectStore(store, { autoIncrement: true })
    }
    r.onsuccess = () => resolve(r.result)
    r.onerror = () => reject(r.error)
  })
  const itemsOf = (value: unknown): unknown[] | undefined =>
    Array.isArray(value)
      ? value
      : value && typeof value === 'object' && Array.isArray((value as { entities?: unknown }).entities)
        ? (value as { entities: unknown[] }).entities
        : undefined
  const stored: unknown[][] = []
  const store = (operation: string, items: unknown[]) =>
    new Promise<void>((resolve, reject) => {
      const tx = db.transaction([operation], 'readwrite')
      const s = tx.objectStore(operation)
      for (const item of items) s.put(item)
      tx.oncomplete = () => resolve()
      tx.onerror = () => reject(tx.error)
      tx.onabort = () => reject(tx.error)
    })

  const times: { operation: string; from: number; to: number }[] = []
  const lastCursor = new Map<string, string | null>()
  const ended: Promise<void>[] = []
  const writes: Promise<void>[] = []
  const started = performance.now()
  for (const [i, call] of input.calls.entries()) {
    ended.push(
      (async () => {
        await Promise.all(call.after.map((j) => ended[j]))
        const operation = operationOf(call)
        let request = call.request as { query?: { cursor?: string } }
        if (request.query?.cursor !== undefined) request = { ...request, query: { ...request.query, cursor: lastCursor.get(operation) ?? '' } }
        const from = performance.now() - started
        const answer = await invoke(call.channel, request)
        times[i] = { operation, from, to: performance.now() - started }
        if (!answer.ok) throw new Error(`pipeline floor: call ${i} (${operation}) failed: ${JSON.stringify(answer.error)}`)
        const next = (answer.value as { next_page_url?: string } | undefined)?.next_page_url
        if (next !== undefined) lastCursor.set(operation, new URL(next).searchParams.get('cursor'))
        const items = itemsOf(answer.value)
        if (items && items.length > 0 && !input.notStored.includes(operation)) {
          stored.push(items)
          if (input.store) writes.push(store(operation, items))
        }
      })(),
    )
  }
  await Promise.all(ended)
  await Promise.all(writes)
  const ms = performance.now() - started
  socket.close()
  db.close()
  await new Promise((resolve) => {
    const r = indexedDB.deleteDatabase(name)
    r.onsuccess = r.onerror = resolve
  })
  const rows = stored.reduce((n, items) => n + items.length, 0)
  const bytes = stored.reduce((n, items) => n + JSON.stringify(items).length, 0)
  const phases: PipelineFloor['phases'] = []
  for (const t of times) {
    const last = phases.at(-1)
    if (last?.operation === t.operation) {
      last.calls++
      last.to = Math.max(last.to, t.to)
    } else phases.push({ operation: t.operation, calls: 1, from: t.from, to: t.to })
  }
  return { ms, calls: input.calls.length, rows, bytes, phases }
}

/**
 * The pipeline floor of a bootstrap the app made in `context` through
 * `app`'s host: its sync calls (recorded between `from` and `to`) made again
 * by a new page of the host's origin, in a window of the rate limit of their
 * own as the app's were (the gateway paces to it), once the files the app
 * prefetched are gone from the cache again (so they are downloaded again, not found); with
 * the CPU it took the browser of `profileDir` and this process. Without
 * `store`, the answers are decoded and not stored.
 */
export async function pipelineFloor(
  app: WebApp,
  context: BrowserContext,
  profileDir: string,
  recorded: HostCall[],
  from: number,
  to: number,
  store = true,
): Promise<PipelineFloor> {
  await emptyWindow()
  await rm(app.side.folders.cache, { recursive: true, force: true })
  const page = await context.newPage()
  try {
    // A file the host does not have: a page of its origin with nothing on it.
    await page.goto(`${app.host.origin}/pipeline-floor.txt`)
    const input: PipelineFloorInput = {
      url: `${app.host.origin.replace(/^http/, 'ws')}${HOST_BRIDGE_PATH}`,
      protocols: [HOST_BRIDGE_PROTOCOL, `${HOST_SECRET_PROTOCOL_PREFIX}${app.host.secret}`],
      calls: syncCalls(recorded, from, to),
      notStored: ['epics.v3List'],
      store,
    }
    const before = browserCpu(profileDir, 'thread')
    const nodeSince = processCpu()
    const floor = (await page.evaluate(inPage(replayCalls, input))) as PipelineFloor
    // Before the page closes: its renderer's threads go with it.
    return { ...floor, cpu: { browser: cpuBetween(before, browserCpu(profileDir, 'thread')), node: nodeSince() } }
  } finally {
    await page.close()
  }
}

/** The floor's phases, a line each: `     520 ms to   1719 ms    99 x epics.list`. */
export function describePhases(floor: PipelineFloor): string {
  return floor.phases
    .map(
      (p) =>
        `  ${p.from.toFixed(0).padStart(6)} ms to ${p.to.toFixed(0).padStart(6)} ms  ${String(p.calls).padStart(4)} x ${p.operation.replace(/^outpost:/, '')}`,
    )
    .join('\n')
}
