// The sync worker's side: the syncer (sync/) over the worker's own connection
// to the cache runs what its window asks, and says how it goes. Nothing here
// has to keep a thread free for a screen: the window's screens read the cache
// and learn of each commit from Dexie's change events, which reach them from
// here over the BroadcastChannel Dexie keeps between a database's windows and
// workers. The sync lock is the one every window takes (navigator.locks, which
// a worker shares with its windows).
import { BridgeError, type Bridge } from '../../lib/bridge.ts'
import type { OutpostDb } from '../db.ts'
import type { HandedRows } from '../handed-rows.ts'
import type { LockFn } from '../lock.ts'
import { createSyncer, type Syncer } from '../sync/index.ts'
import type { Transport } from '../transport.ts'
import { failureOfRun, isSyncChannel, RELAY_PART_ITEMS, type FromWorker, type HostAddress, type Port, type ToWorker } from './protocol.ts'

export interface ServeOptions {
  openDb(name: string): OutpostDb
  /**
   * The transport to the main side: `host` when the window gave the browser host's address (the worker's own
   * connection), else `relay`, the window's bridge reached through the window.
   */
  transport(host: HostAddress | undefined, relay: Bridge): Transport
  /** navigator.locks where the platform has it (the default), else the process's mutex. */
  lock?: LockFn
  clock?: () => number
}

/** Serves the window's runs arriving on `port` until the worker ends. */
export function serveSync(port: Port<ToWorker, FromWorker>, options: ServeOptions): void {
  let syncer: Syncer | undefined
  const runs = new Map<number, AbortController>()
  const asked = new Map<number, { resolve(value: unknown): void; reject(error: unknown): void; items: unknown[]; parts: number }>()
  let nextAsk = 1
  const post = (message: FromWorker) => port.postMessage(message)

  /** The window's bridge, as far as the sync needs it: requests relayed through the window. */
  const relay: Bridge = {
    shell: 'electron',
    call: ((channel: string, request?: unknown) => {
      if (!isSyncChannel(channel)) return Promise.reject(new BridgeError({ source: 'ipc', kind: 'refused', message: `The sync does not ask for ${channel}.` }))
      const id = nextAsk++
      return new Promise((resolve, reject) => {
        asked.set(id, { resolve, reject, items: [], parts: 0 })
        post({ type: 'ask', id, channel, request })
      })
    }) as Bridge['call'],
    // A run listens to no event of the main side and stages no file.
    on: () => () => undefined,
    pathForFile: () => Promise.reject(new Error('The sync worker stages no file.')),
  }

  const run = (id: number, force: boolean, prefetch: boolean, metered: boolean) => {
    const controller = new AbortController()
    runs.set(id, controller)
    const { signal } = controller
    void syncer!
      .sync({ force, prefetch, metered, signal, started: () => post({ type: 'started', id }), listed: () => post({ type: 'listed', id }) })
      .then(
        (report) => post({ type: 'done', id, report }),
        (error: unknown) => post({ type: 'failed', id, failure: failureOfRun(error, signal.aborted) }),
      )
      .finally(() => runs.delete(id))
  }

  port.addEventListener('message', ({ data: message }) => {
    switch (message.type) {
      case 'open': {
        syncer = createSyncer({
          db: options.openDb(message.dbName),
          transport: options.transport(message.host, relay),
          clock: options.clock ?? Date.now,
          lock: options.lock,
          options: message.options,
          onProgress: (progress) => post({ type: 'progress', progress }),
          // In parts: 10,000 epics in one message would be one long task of the window taking them in.
          onHandOver: ({ kind, rows }) => {
            for (let i = 0; i === 0 || i < rows.length; i += RELAY_PART_ITEMS) {
              const part = { kind, rows: rows.slice(i, i + RELAY_PART_ITEMS) } as HandedRows
              post({ type: 'handed', handed: part, last: i + RELAY_PART_ITEMS >= rows.length })
            }
          },
        })
        post({ type: 'ready' })
        return
      }
      case 'sync':
        if (syncer) run(message.id, message.force, message.prefetch !== false, message.metered === true)
        else post({ type: 'failed', id: message.id, failure: { kind: 'other', name: 'Error', message: 'The sync worker has no cache open.' } })
        return
      case 'abort':
        runs.get(message.id)?.abort(new DOMException(message.message, 'AbortError'))
        return
      case 'part': {
        const waiting = asked.get(message.id)
        if (!waiting) return
        for (const item of message.items) waiting.items.push(item)
        waiting.parts++
        return
      }
      case 'answer': {
        const waiting = asked.get(message.id)
        asked.delete(message.id)
        if (!waiting) return
        if (!message.result.ok) waiting.reject(new BridgeError(message.result.error))
        else if (message.parts === undefined) waiting.resolve(message.result.value)
        else if (message.parts === waiting.parts) waiting.resolve(waiting.items)
        else waiting.reject(new BridgeError({ source: 'ipc', kind: 'internal', message: 'The window’s answer came in part only; try again.' }))
        return
      }
    }
  })
}
