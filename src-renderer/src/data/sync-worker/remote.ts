// The window's side of its sync worker: a Syncer whose runs (the bootstrap,
// incremental syncs) happen in the worker, so that fetching, converting and
// writing thousands of rows never holds the window's main thread. What the
// user asks for one entity (an epic's details, a doc, a file's content) runs
// here as before: one small request and write each.
//
// The worker makes its requests over its own connection to the browser host,
// or, in the desktop app, asks this window to make them with its bridge
// (only the sync's channels). A worker that cannot start (no Worker, its
// script refused or failing, no word from it) leaves the runs to the window.
import { BridgeError, type Bridge } from '../../lib/bridge.ts'
import { messageOf } from '../../lib/errors.ts'
import { yieldToEventLoop } from '../../lib/yield.ts'
import { createSyncer, type Syncer, type SyncerOptions, type SyncReport } from '../sync/index.ts'
import type { HandedRows } from '../handed-rows.ts'
import { errorOfRun, isSyncChannel, RELAY_PART_ITEMS, type FromWorker, type HostAddress, type Port, type ToWorker } from './protocol.ts'

/** The worker as the window holds it: its port, and the errors that say it failed. */
export interface SyncWorkerPort extends Port<FromWorker, ToWorker> {
  addEventListener(type: 'message', listener: (event: MessageEvent<FromWorker>) => void): void
  addEventListener(type: 'error', listener: (event: Event) => void): void
}

export interface WorkerSyncerOptions {
  /** The browser host's address: the worker's own connection. Without it the worker's requests come through `bridge`. */
  host?: HostAddress
  /** How long a worker may take to say it is ready before the window syncs itself (ms). */
  readyTimeoutMs?: number
  /** Told when the worker could not start and the window syncs instead. */
  onFallback?: (reason: string) => void
  /** Items of a relayed list per message (RELAY_PART_ITEMS). */
  partItems?: number
}

interface Run {
  resolve(report: SyncReport): void
  reject(error: unknown): void
  started?: () => void | Promise<void>
  listed?: () => void | Promise<void>
}

/**
 * A Syncer for `config.db` whose runs go to the worker on `port`. The worker
 * takes the sync lock itself; `config.lock` and `config.clock` serve what runs
 * here (details on open, and every run if the worker could not start).
 */
export function workerSyncer(port: SyncWorkerPort, bridge: Pick<Bridge, 'call'>, config: SyncerOptions, options: WorkerSyncerOptions = {}): Syncer {
  const here = createSyncer(config)
  const runs = new Map<number, Run>()
  let nextRun = 1
  let state: 'starting' | 'ready' | 'failed' = 'starting'
  let settle!: (ready: boolean) => void
  const ready = new Promise<boolean>((resolve) => (settle = resolve))
  const post = (message: ToWorker) => port.postMessage(message)

  /** The worker did not start: every run is made here. */
  const fail = (reason: string) => {
    if (state !== 'starting') return
    state = 'failed'
    clearTimeout(timer)
    settle(false)
    options.onFallback?.(reason)
  }
  const timer = setTimeout(() => fail('it did not answer'), options.readyTimeoutMs ?? 10_000)

  /** Makes a request the worker asked for, and sends the answer back (a long list in parts). */
  const answer = async (id: number, channel: unknown, request: unknown) => {
    if (!isSyncChannel(channel)) {
      post({
        type: 'answer',
        id,
        result: { ok: false, error: { source: 'ipc', kind: 'refused', message: `The sync worker may not ask for ${String(channel)}.` } },
      })
      return
    }
    let value: unknown
    try {
      value = await bridge.call(channel, request as never)
    } catch (error) {
      post({
        type: 'answer',
        id,
        result: { ok: false, error: error instanceof BridgeError ? error.error : { source: 'ipc', kind: 'internal', message: messageOf(error) } },
      })
      return
    }
    const partItems = options.partItems ?? RELAY_PART_ITEMS
    if (!Array.isArray(value) || value.length <= partItems) {
      post({ type: 'answer', id, result: { ok: true, value } })
      return
    }
    // Copying 10,000 epics to the worker in one message would be one long task of this window.
    let parts = 0
    for (let i = 0; i < value.length; i += partItems) {
      if (i > 0) await yieldToEventLoop()
      post({ type: 'part', id, items: value.slice(i, i + partItems) })
      parts++
    }
    post({ type: 'answer', id, result: { ok: true, value: [] }, parts })
  }

  /** The rows a bootstrap hands over, as their parts come. */
  let handed: unknown[] = []

  port.addEventListener('message', ({ data: message }) => {
    switch (message.type) {
      case 'ready':
        if (state !== 'starting') return
        state = 'ready'
        clearTimeout(timer)
        settle(true)
        return
      case 'ask':
        void answer(message.id, message.channel, message.request)
        return
      case 'progress':
        config.onProgress?.(message.progress)
        return
      case 'handed':
        for (const row of message.handed.rows) handed.push(row)
        if (!message.last) return
        config.onHandOver?.({ kind: message.handed.kind, rows: handed } as HandedRows)
        handed = []
        return
      case 'started':
        void runs.get(message.id)?.started?.()
        return
      case 'listed':
        void runs.get(message.id)?.listed?.()
        return
      case 'done':
      case 'failed': {
        const run = runs.get(message.id)
        runs.delete(message.id)
        if (message.type === 'done') run?.resolve(message.report)
        else run?.reject(errorOfRun(message.failure))
        return
      }
    }
  })
  port.addEventListener('error', (event) => {
    // Before 'ready' its script could not load or run; after, an error of one run, which that run reports.
    const what = (event as ErrorEvent).message || 'its script could not be loaded'
    console.error('Outpost: the sync worker:', what)
    fail(what)
  })
  post({ type: 'open', dbName: config.db.name, options: here.options, ...(options.host && { host: options.host }) })

  return {
    ...here,
    async sync(run = {}) {
      if (!(await ready)) return here.sync(run)
      run.signal?.throwIfAborted()
      const id = nextRun++
      const { signal } = run
      return new Promise<SyncReport>((resolve, reject) => {
        // Stopped: the worker ends its run at its next step; this window does not wait for it.
        const abort = () => {
          post({ type: 'abort', id, message: messageOf(signal?.reason) })
          runs.delete(id)
          reject(signal?.reason)
        }
        signal?.addEventListener('abort', abort, { once: true })
        const done = () => signal?.removeEventListener('abort', abort)
        runs.set(id, {
          resolve: (report) => {
            done()
            resolve(report)
          },
          reject: (error) => {
            done()
            reject(error)
          },
          started: run.started,
          listed: run.listed,
        })
        post({
          type: 'sync',
          id,
          force: run.force === true,
          ...(run.prefetch === false && { prefetch: false }),
          ...(run.metered === true && { metered: true }),
        })
      })
    },
  }
}
