// The sync worker's conversation with its window, over a real MessageChannel:
// runs made in the "worker" (serveSync on one port) fill the cache the window
// reads, their progress, the epics handed before they are stored and their
// outcome reach the window, requests can be relayed through the window's
// bridge (long lists in parts), and a worker that never starts leaves the
// runs to the window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RequestChannel } from '../../../../src-shared/ipc.ts'
import { BridgeError, type Bridge } from '../../lib/bridge.ts'
import { bridgeTransport } from '../bridge-transport.ts'
import { startDataLayer, syncStatus } from '../data-layer.ts'
import { SyncError, type SyncProgress } from '../sync/index.ts'
import { TransportError, type Transport } from '../transport.ts'
import { countingTransport, serviceCounts, startWorld, type World } from '../../../../testing/sync-kit.ts'
import type { FromWorker, ToWorker } from './protocol.ts'
import { workerSyncer, type SyncWorkerPort } from './remote.ts'
import { serveSync } from './serve.ts'

let world: World
beforeAll(async () => {
  world = await startWorld({ seed: { epics: 250, docs: 30, files: 5 } })
})
afterAll(() => world.close())

const ports: MessagePort[] = []
afterAll(() => {
  for (const port of ports) port.close()
})

/** A window's port and a worker's port, the worker serving runs over `transport` (or the window's relay). */
function connected(workerTransport: Transport | 'relay'): { window: SyncWorkerPort; asked: ToWorker[] } {
  const channel = new MessageChannel()
  ports.push(channel.port1, channel.port2)
  const asked: ToWorker[] = []
  channel.port2.addEventListener('message', (event: MessageEvent<ToWorker>) => asked.push(event.data))
  serveSync(channel.port2 as never, {
    openDb: (name) => world.openDb(name),
    transport: (_host, relay) => (workerTransport === 'relay' ? bridgeTransport(relay) : workerTransport),
  })
  channel.port1.start()
  channel.port2.start()
  return { window: channel.port1 as unknown as SyncWorkerPort, asked }
}

/** The window's bridge, answering the sync's channels from the world's transport. */
function windowBridge(calls: RequestChannel[] = []): Pick<Bridge, 'call'> {
  return {
    call: (async (channel: RequestChannel, request: any) => {
      calls.push(channel)
      try {
        if (channel === 'outpost:api.call') {
          const { operation, ...rest } = request
          return await world.transport.call(operation, rest)
        }
        if (channel === 'outpost:files.discard') return await world.transport.discard(request.path)
      } catch (error) {
        if (error instanceof TransportError) throw new BridgeError({ source: 'gateway', ...error.failure })
        throw error
      }
      throw new BridgeError({ source: 'ipc', kind: 'invalid-request', message: `no ${channel} here` })
    }) as Bridge['call'],
  }
}

const noFiles = { fileBudgetBytes: 0 }

describe('the sync worker', () => {
  it('makes the runs: what it writes is what the window reads, with progress and start told to the window', async () => {
    const here = countingTransport(world.transport)
    const worker = countingTransport(world.transport)
    const { window } = connected(worker)
    const db = world.openDb('worker-runs')
    const progress: SyncProgress[] = []
    const handed: number[][] = []
    const syncer = workerSyncer(window, windowBridge(), {
      db,
      transport: here,
      clock: Date.now,
      options: noFiles,
      onProgress: (p) => progress.push(p),
      onHandOver: ({ kind, rows }) => {
        if (kind === 'epic') handed.push(rows.map((e) => e.id as number))
      },
    })
    let started = 0
    const report = await syncer.sync({ started: () => void started++ })
    expect(report.bootstrap).toBe(true)
    expect(started).toBe(1)
    expect(here.counted.total()).toBe(0)
    expect(worker.counted.total()).toBeGreaterThan(0)
    const c = serviceCounts(world.service)
    expect(await db.epics.count()).toBe(c.epics)
    expect(await db.docs.count()).toBe(c.docs)
    expect(progress.some((p) => p.kind === 'epics' && p.done === c.epics)).toBe(true)
    // The bootstrap's list of every epic reached the window once, whole.
    expect(handed).toHaveLength(1)
    expect(handed[0].sort((a, b) => a - b)).toEqual((await db.epics.toCollection().primaryKeys()) as number[])
    // What the user opens is fetched here, not in the worker.
    await syncer.refreshEpic((await db.epics.toCollection().first())!.id as number)
    expect(here.counted.total()).toBeGreaterThan(0)
  })

  it('relays its requests through the window when it has no connection of its own, a long list in parts', async () => {
    const { window, asked } = connected('relay')
    const calls: RequestChannel[] = []
    const db = world.openDb('worker-relay')
    const syncer = workerSyncer(window, windowBridge(calls), { db, transport: world.transport, clock: Date.now, options: noFiles }, { partItems: 100 })
    await syncer.sync()
    expect(await db.epics.count()).toBe(serviceCounts(world.service).epics)
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.every((c) => c === 'outpost:api.call')).toBe(true)
    // The v3 list of 250 epics came in three parts.
    expect(asked.filter((m) => m.type === 'part').length).toBeGreaterThanOrEqual(3)
  })

  it('refuses to relay what a sync does not ask for', async () => {
    const channel = new MessageChannel()
    ports.push(channel.port1, channel.port2)
    const calls: RequestChannel[] = []
    workerSyncer(channel.port1 as unknown as SyncWorkerPort, windowBridge(calls), {
      db: world.openDb('worker-refuse'),
      transport: world.transport,
      clock: Date.now,
    })
    const answers: ToWorker[] = []
    channel.port2.addEventListener('message', (event: MessageEvent<ToWorker>) => answers.push(event.data))
    channel.port1.start()
    channel.port2.start()
    channel.port2.postMessage({ type: 'ask', id: 1, channel: 'outpost:accounts.remove' as never, request: {} } satisfies FromWorker)
    await expect.poll(() => answers.find((m) => m.type === 'answer')).toMatchObject({ result: { ok: false, error: { kind: 'refused' } } })
    expect(calls).toEqual([])
  })

  it('hands a failed run back as the same failure', async () => {
    const refusing: Transport = {
      ...world.transport,
      call: async () => Promise.reject(new TransportError({ kind: 'network', message: 'The service could not be reached.' })),
    }
    const { window } = connected(refusing)
    const syncer = workerSyncer(window, windowBridge(), { db: world.openDb('worker-fails'), transport: world.transport, clock: Date.now, options: noFiles })
    const error = await syncer.sync().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransportError)
    expect((error as TransportError).failure).toMatchObject({ kind: 'network' })

    // A kind the service refuses (4xx) fails alone: a SyncError with its report.
    const forbidden: Transport = {
      ...world.transport,
      call: (operation, request) =>
        operation === 'labels.list'
          ? Promise.reject(new TransportError({ kind: 'http', status: 403, message: 'No labels for you.' }))
          : world.transport.call(operation, request),
    }
    const second = connected(forbidden)
    const partly = workerSyncer(second.window, windowBridge(), {
      db: world.openDb('worker-partly'),
      transport: world.transport,
      clock: Date.now,
      options: noFiles,
    })
    const failed = await partly.sync().catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(SyncError)
    expect((failed as SyncError).report.failures.map((f) => f.kind)).toEqual(['labels'])
  })

  it('stops a run when the window stops it', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const slow: Transport = { ...world.transport, call: async (operation, request) => (await held, world.transport.call(operation, request)) }
    const { window } = connected(slow)
    const syncer = workerSyncer(window, windowBridge(), { db: world.openDb('worker-stop'), transport: world.transport, clock: Date.now, options: noFiles })
    const controller = new AbortController()
    const run = syncer.sync({ signal: controller.signal })
    controller.abort(new DOMException('The data layer was stopped.', 'AbortError'))
    await expect(run).rejects.toMatchObject({ name: 'AbortError' })
    release()
  })

  it('keeps the status row the screens read, as a run in the window does', async () => {
    const { window } = connected(world.transport)
    const db = world.openDb('worker-status')
    const layer = startDataLayer({ db, transport: world.transport, sync: noFiles, syncer: (config) => workerSyncer(window, windowBridge(), config) })
    await layer.sync()
    expect(await syncStatus(db)).toMatchObject({ state: 'idle', bootstrapped: true, error: null })
    expect((await syncStatus(db)).lastSyncedAt).toBeGreaterThan(0)
    await layer.stop()
  })
})

describe('a worker that does not start', () => {
  /** A port that never answers, and can say its script failed. */
  function silentWorker() {
    const target = new EventTarget()
    const posted: ToWorker[] = []
    return {
      port: Object.assign(target, { postMessage: (message: ToWorker) => void posted.push(message) }) as unknown as SyncWorkerPort,
      fail: () => target.dispatchEvent(Object.assign(new Event('error'), { message: 'Failed to fetch the script' })),
      posted,
    }
  }

  it('leaves the runs to the window when its script fails', async () => {
    const worker = silentWorker()
    const db = world.openDb('no-worker')
    const reasons: string[] = []
    const syncer = workerSyncer(
      worker.port,
      windowBridge(),
      { db, transport: world.transport, clock: Date.now, options: noFiles },
      { onFallback: (reason) => reasons.push(reason) },
    )
    worker.fail()
    await syncer.sync()
    expect(await db.epics.count()).toBe(serviceCounts(world.service).epics)
    expect(reasons).toEqual(['Failed to fetch the script'])
    expect(worker.posted.map((m) => m.type)).toEqual(['open'])
  })

  it('leaves the runs to the window when it does not answer in time', async () => {
    const worker = silentWorker()
    const db = world.openDb('mute-worker')
    const reasons: string[] = []
    const syncer = workerSyncer(
      worker.port,
      windowBridge(),
      { db, transport: world.transport, clock: Date.now, options: noFiles },
      { readyTimeoutMs: 20, onFallback: (reason) => reasons.push(reason) },
    )
    await syncer.sync()
    expect(await db.docs.count()).toBe(serviceCounts(world.service).docs)
    expect(reasons).toEqual(['it did not answer'])
  })
})
