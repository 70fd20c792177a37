// The data layer (data-layer.ts): main says when, the data layer does it.
// 'replay-now' runs the outbox's replay, 'sync-now' runs sync (after a replay
// under way); the status row in `meta` is what the UI reads with liveQuery.
// Dexie's liveQuery stays silent unless the platform has a global indexedDB
// (as every browser does); the databases here still use their own factory.
import 'fake-indexeddb/auto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Dexie, { liveQuery } from 'dexie'
import type { EventChannel, EventOf } from '../../../src-shared/ipc.ts'
import { startDataLayer, syncStatus, type BridgeEvents, type SyncStatus } from './data-layer.ts'
import type { OutpostDb } from './db.ts'
import { isBootstrapped, readCheckpoints } from './sync/index.ts'
import { bootstrapFloor, countingTransport, startWorld, type World } from '../../../testing/sync-kit.ts'
import { v4 } from '../../../testing/service.ts'

let world: World
beforeAll(async () => {
  world = await startWorld({ seed: { epics: 250, docs: 30, files: 4 } })
})
afterAll(() => world.close())

/** The main side's events, as the preload's bridge delivers them. */
function mainSide(): BridgeEvents & { emit<E extends EventChannel>(event: E, payload: EventOf<E>): void; listeners(): number } {
  const listeners = new Map<string, Set<(payload: never) => void>>()
  return {
    on(event, listener) {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener as (payload: never) => void)
      return () => set.delete(listener as (payload: never) => void)
    },
    emit(event, payload) {
      for (const l of listeners.get(event) ?? []) l(payload as never)
    },
    listeners: () => [...listeners.values()].reduce((n, s) => n + s.size, 0),
  }
}

/** Every status the UI would see, and a way to wait for one. */
function watch(db: OutpostDb) {
  const seen: SyncStatus[] = []
  const waiters: { test: (s: SyncStatus) => boolean; resolve: (s: SyncStatus) => void }[] = []
  const subscription = liveQuery(() => syncStatus(db)).subscribe({
    next: (s) => {
      seen.push(s)
      for (const w of [...waiters]) {
        if (!w.test(s)) continue
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(s)
      }
    },
  })
  return {
    seen,
    until: (test: (s: SyncStatus) => boolean) =>
      new Promise<SyncStatus>((resolve) => {
        const last = seen.at(-1)
        if (last && test(last)) resolve(last)
        else waiters.push({ test, resolve })
      }),
    stop: () => subscription.unsubscribe(),
  }
}

describe('the data layer', () => {
  it('replays on replay-now, syncs on sync-now (after the replay), and shows its status to liveQuery', async () => {
    const db = world.openDb('events')
    const bridge = mainSide()
    const order: string[] = []
    let releaseReplay!: () => void
    const replay = async () => {
      order.push('replay')
      await new Promise<void>((resolve) => (releaseReplay = resolve))
      order.push('replayed')
    }
    const transport = countingTransport(world.transport, (operation) => {
      if (order.at(-1) !== 'sync') order.push('sync')
      void operation
    })
    const engine = startDataLayer({ db, transport, bridgeEvents: bridge, replay, clock: () => 42_000, sync: { fileBudgetBytes: 0 } })
    const status = watch(db)

    bridge.emit('outpost:replay-now', { reason: 'reconnect' })
    bridge.emit('outpost:sync-now', { reason: 'reconnect' })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(order).toEqual(['replay'])
    releaseReplay()
    const done = await status.until((s) => s.state === 'idle' && s.lastSyncedAt !== null)
    expect(order).toEqual(['replay', 'replayed', 'sync'])
    expect(done).toMatchObject({ state: 'idle', lastSyncedAt: 42_000, bootstrapped: true, error: null, progress: null })
    expect(transport.counted.total()).toBe(bootstrapFloor(world.service))
    // The UI saw the run: syncing, with its progress (the latest, at a pace: see below).
    expect(status.seen.some((s) => s.state === 'syncing')).toBe(true)
    expect(status.seen.some((s) => s.progress?.phase === 'bootstrap')).toBe(true)
    status.stop()
    await engine.stop()
    expect(bridge.listeners()).toBe(0)
  })

  it("writes a run's progress at most every 250 ms, and none after the run has ended", async () => {
    const db = world.openDb('progress-pace')
    const writes: { at: number; value: Partial<SyncStatus> }[] = []
    const note = (row: { key: string; value: unknown }) => {
      if (row.key === 'sync.status') writes.push({ at: performance.now(), value: row.value as Partial<SyncStatus> })
    }
    db.meta.hook('creating', (_key, row) => note(row))
    db.meta.hook('updating', (changes, _key, row) => {
      // The changes are key paths ('value.progress') over the row as it was.
      const next = structuredClone(row)
      for (const [path, value] of Object.entries(changes as object)) Dexie.setByKeyPath(next, path, value)
      note(next)
    })
    let pages = 0
    const transport = countingTransport(world.transport, () => void pages++)
    const engine = startDataLayer({ db, transport, clock: () => 7_000, sync: { fileBudgetBytes: 0, pageSize: 25 } })
    const started = performance.now()
    expect(await engine.sync()).not.toBeNull()
    const took = performance.now() - started
    await engine.stop()
    const withProgress = writes.filter((w) => w.value.progress)
    // Each request of the run reported progress; one report was written a 250 ms at most (when written, a
    // write waits its turn behind the one before, so the gaps between them are not what is paced).
    expect(pages).toBeGreaterThan(15)
    expect(withProgress.length).toBeGreaterThan(0)
    expect(withProgress.length).toBeLessThanOrEqual(Math.ceil(took / 250) + 1)
    expect(writes.at(-1)!.value).toMatchObject({ state: 'idle', progress: null, lastSyncedAt: 7_000 })
  })

  it('two engines (two windows) on one database never sync at once', async () => {
    const log: string[] = []
    const window = (tag: string, clock: number) => {
      const db = world.openDb('two-engines')
      const bridge = mainSide()
      const transport = countingTransport(world.transport, () => void log.push(tag))
      return { db, bridge, transport, engine: startDataLayer({ db, transport, bridgeEvents: bridge, clock: () => clock, sync: { fileBudgetBytes: 0 } }) }
    }
    const a = window('A', 1)
    const b = window('B', 2)
    const status = watch(a.db)
    a.bridge.emit('outpost:sync-now', { reason: 'start' })
    b.bridge.emit('outpost:sync-now', { reason: 'start' })
    // The status row is shared: both windows' runs end in it (each window's clock tells which).
    await status.until(() => status.seen.some((s) => s.lastSyncedAt === 1) && status.seen.some((s) => s.lastSyncedAt === 2))
    // One window's calls, then the other's: never interleaved. The second only checked for news.
    expect(log.join('').replace(/(.)\1+/g, '$1')).toHaveLength(2)
    expect(Math.min(a.transport.counted.total(), b.transport.counted.total())).toBe(2)
    expect(status.seen.filter((s) => s.state === 'syncing' && s.progress?.phase === 'bootstrap').length).toBeGreaterThan(0)
    status.stop()
    await a.engine.stop()
    await b.engine.stop()
  })

  it('answers asks made during a bootstrap with it, and runs asks made during a later run as one more run', async () => {
    const db = world.openDb('coalesce')
    const transport = countingTransport(world.transport)
    const engine = startDataLayer({ db, transport, sync: { fileBudgetBytes: 0 } })
    // The workspace opened, the account added, the service seen back: all asked while the bootstrap runs.
    const runs = await Promise.all([engine.sync(), engine.sync(), engine.sync(), engine.sync()])
    expect(runs[0]?.bootstrap).toBe(true)
    expect(runs[1]).toBe(runs[0])
    expect(runs[3]).toBe(runs[0])
    expect(transport.counted.total()).toBe(bootstrapFloor(world.service))
    // Asked while an incremental run goes: one more run after it, for them all.
    const later = await Promise.all([engine.sync(), engine.sync(), engine.sync()])
    expect(later[0]?.bootstrap).toBe(false)
    expect(later[1]).toBe(later[2])
    expect(later[1]).not.toBe(later[0])
    await engine.stop()
  })

  it('runs an ask made once a bootstrap has stored its lists (Synced, files still coming) as one more run', async () => {
    const db = world.openDb('asked-after-listed')
    // The files downloaded ahead of use wait until the test lets them go.
    let releaseFiles!: () => void
    const filesHeld = new Promise<void>((resolve) => (releaseFiles = resolve))
    let downloading!: () => void
    const downloadStarted = new Promise<void>((resolve) => (downloading = resolve))
    const transport = {
      ...world.transport,
      download: async (...args: Parameters<typeof world.transport.download>) => {
        downloading()
        await filesHeld
        return world.transport.download(...args)
      },
    }
    const engine = startDataLayer({ db, transport })
    const status = watch(db)
    const first = engine.sync()
    await downloadStarted
    // The status bar says Synced: the user (or the window's focus) takes the workspace as up to date from here.
    expect((await status.until((s) => s.bootstrapped && s.state === 'idle')).bootstrapped).toBe(true)
    const [epicId] = world.service.ctx.col<any>('epic').ids().map(Number)
    await v4(world.service).patch('/epics/bulk', { epics: [{ id: epicId, name: 'Renamed while files came' }] })
    const asked = engine.sync()
    releaseFiles()
    expect((await first)?.bootstrap).toBe(true)
    const after = await asked
    expect(after).not.toBe(await first)
    expect(after?.bootstrap).toBe(false)
    expect(await db.epics.get(epicId)).toMatchObject({ name: 'Renamed while files came' })
    status.stop()
    await engine.stop()
  })

  it('runs a forced ask made during a bootstrap after it (the user asked)', async () => {
    const db = world.openDb('forced')
    const engine = startDataLayer({ db, transport: world.transport, sync: { fileBudgetBytes: 0 } })
    const [first, forced] = await Promise.all([engine.sync(), engine.sync({ force: true })])
    expect(first?.bootstrap).toBe(true)
    expect(forced).not.toBe(first)
    expect(forced?.bootstrap).toBe(false)
    await engine.stop()
  })

  it('on a metered link, syncs only when the user asks, and then only what changed; the schedule goes again once it is off', async () => {
    const db = world.openDb('metered')
    const bridge = mainSide()
    const transport = countingTransport(world.transport)
    let metered = true
    let clock = 1_000_000
    const engine = startDataLayer({ db, transport, bridgeEvents: bridge, clock: () => clock, metered: () => metered })
    // The workspace just added: its first download goes (the user asked for it by adding it).
    await engine.sync()
    expect(await isBootstrapped(db)).toBe(true)
    transport.counted.reset()
    // An hour on, everything would be due: the schedule's asks are not followed.
    clock += 3_600_000
    for (const reason of ['timer', 'focus', 'reconnect', 'resume'] as const) bridge.emit('outpost:sync-now', { reason })
    await new Promise((r) => setTimeout(r, 100))
    expect(transport.counted.total()).toBe(0)
    // Sync now: what changed (the two walks' one page each), no whole lists, sweeps or files ahead of use.
    const asked = await engine.sync({ force: true })
    expect([...transport.counted.calls.keys()].sort()).toEqual(['documents.list', 'epics.list'])
    expect(transport.counted.downloads).toBe(0)
    expect(asked?.prefetched).toBe(0)
    // Off again: the schedule is followed, and what was held back goes.
    metered = false
    transport.counted.reset()
    const status = watch(db)
    bridge.emit('outpost:sync-now', { reason: 'timer' })
    await status.until(() => transport.counted.total() > 0 && status.seen.at(-1)?.state === 'idle')
    await engine.sync()
    expect(transport.counted.calls.get('epics.v3List')).toBe(1)
    expect(transport.counted.calls.get('members.list')).toBe(1)
    status.stop()
    await engine.stop()
  })

  it('shows an error when a run fails, and clears it with the next good run', async () => {
    const db = world.openDb('errors')
    const engine = startDataLayer({ db, transport: world.transport, sync: { fileBudgetBytes: 0 } })
    world.service.setFaults({ failRate: 1 })
    try {
      await expect(engine.sync()).rejects.toThrow()
    } finally {
      world.service.setFaults({ failRate: 0 })
    }
    expect(await engine.status()).toMatchObject({ state: 'error', bootstrapped: false, error: { kind: 'http', status: 503 } })
    await engine.sync()
    expect(await engine.status()).toMatchObject({ state: 'idle', bootstrapped: true, error: null })
    await engine.stop()
  })

  it('goes on with the other kinds when the service refuses one (docs switched off), and says which', async () => {
    const db = world.openDb('docs-off')
    const engine = startDataLayer({ db, transport: world.transport, sync: { fileBudgetBytes: 0 } })
    world.service.setFeature('docs', false)
    try {
      await expect(engine.sync()).rejects.toThrow(/docs/)
      expect(await engine.status()).toMatchObject({ state: 'error', bootstrapped: false, error: { kinds: ['docs'] } })
      expect(await db.epics.count()).toBe(250)
      expect(await db.files.count()).toBe(4)
    } finally {
      world.service.setFeature('docs', true)
    }
    await engine.sync()
    expect(await engine.status()).toMatchObject({ state: 'idle', bootstrapped: true, error: null })
    expect(await db.docs.count()).toBe(30)
    await engine.stop()
  })

  it('stops a run under way on stop(); the next engine resumes it from its checkpoint', async () => {
    const db = world.openDb('stopped')
    const bridge = mainSide()
    const engines: ReturnType<typeof startDataLayer>[] = []
    let stopping: Promise<void> | undefined
    let listed = false
    const counting = countingTransport(world.transport, async (operation) => {
      // Stopped as it asks for an epic page once the epic list has come (and been stored, a moment later).
      if (operation === 'epics.list' && listed && !stopping) {
        await new Promise((r) => setTimeout(r, 50))
        stopping = engines[0].stop()
      }
    })
    const transport = {
      ...counting,
      call: async <T>(...args: Parameters<typeof counting.call>): Promise<T> => {
        const answer = await counting.call<T>(...args)
        if (args[0] === 'epics.v3List') listed = true
        return answer
      },
    }
    const engine = startDataLayer({ db, transport, bridgeEvents: bridge, sync: { fileBudgetBytes: 0 } })
    engines.push(engine)
    expect(await engine.sync()).toBeNull()
    await stopping
    expect(await engine.status()).toMatchObject({ state: 'idle', bootstrapped: false })
    const stopped = await readCheckpoints(db)
    expect(stopped.get('epics')).toMatchObject({ bootstrapped: false })
    // Stopped: events no longer reach it.
    const made = counting.counted.total()
    bridge.emit('outpost:sync-now', { reason: 'timer' })
    await new Promise((r) => setTimeout(r, 50))
    expect(counting.counted.total()).toBe(made)

    const resumed = countingTransport(world.transport)
    const next = startDataLayer({ db, transport: resumed, sync: { fileBudgetBytes: 0 } })
    await next.sync()
    // What was not stored: nothing a finished kind needs, nor an epic page stored, nor the epic list once stored.
    const finished = [...stopped.values()].filter((c) => c.bootstrapped).map((c) => c.kind)
    expect(finished).toContain('epicList')
    for (const l of resumed.counted.log) expect(l.operation).not.toBe('epics.v3List')
    const ends = stopped.get('epics')!.ends
    expect(resumed.counted.calls.get('epics.list')).toBe(3 - ((ends?.desc.pages ?? 0) + (ends?.asc.pages ?? 0)) + 1)
    expect(await isBootstrapped(db)).toBe(true)
    await next.stop()
  })
})
