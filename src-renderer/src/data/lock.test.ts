// One syncer and one replayer per database: the lock itself, then the engines
// under it. Two syncers (two windows) on the same database never run at once;
// the second waits, then finds the bootstrap done. A second replay pass waits
// for the first, and finds nothing left to send.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { OperationName } from '../../../src-shared/api/operations.ts'
import { v4 } from '../../../testing/service.ts'
import { createProcessLock, platformLock, processLock, webLock } from './lock.ts'
import { replay } from './outbox/replay.ts'
import { actionsFor, counting, fillCache, gated, replayFast, startKit, type Kit } from '../../../testing/outbox-kit.ts'
import { createSyncer } from './sync/index.ts'
import { bootstrapFloor, countingTransport, startWorld, type World } from '../../../testing/sync-kit.ts'
import { TransportError } from './transport.ts'
import type { CachedEpic } from './types.ts'

describe('processLock', () => {
  it('runs tasks of one name one after another, and of different names side by side', async () => {
    const lock = createProcessLock()
    const log: string[] = []
    const task = (name: string, ms: number) => async () => {
      log.push(`start ${name}`)
      await new Promise((r) => setTimeout(r, ms))
      log.push(`end ${name}`)
      return name
    }
    const results = await Promise.all([lock('a', task('a1', 20)), lock('a', task('a2', 1)), lock('b', task('b1', 5))])
    expect(results).toEqual(['a1', 'a2', 'b1'])
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'))
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'))
  })

  it('lets go after a task fails', async () => {
    const lock = createProcessLock()
    await expect(lock('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await lock('x', async () => 'next')).toBe('next')
  })

  it('webLock hands the task to a Web Locks manager', async () => {
    const names: string[] = []
    const lock = webLock({ request: (name, task) => (names.push(name), task()) })
    expect(await lock('outpost-outbox:x', async () => 42)).toBe(42)
    expect(names).toEqual(['outpost-outbox:x'])
  })
})

describe('the sync engine and the outbox replay, on a service', () => {
  let world: World
  beforeAll(async () => {
    world = await startWorld({ seed: { epics: 250, docs: 30, files: 4 } })
  })
  afterAll(() => world.close())

  /** Two "windows": each its own connection to the database and its own transport, all calls in one log. */
  function twoWindows(name: string) {
    const log: { window: 'A' | 'B'; operation: OperationName }[] = []
    const window = (tag: 'A' | 'B') => {
      const db = world.openDb(name)
      const transport = countingTransport(world.transport, (operation) => {
        log.push({ window: tag, operation })
      })
      return { db, transport, syncer: createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 } }) }
    }
    return { log, a: window('A'), b: window('B') }
  }

  /** The windows of the log, with consecutive calls of one window merged: 'AB' means no interleaving. */
  const runs = (log: { window: string }[]) =>
    log
      .map((l) => l.window)
      .join('')
      .replace(/(.)\1+/g, '$1')

  describe('the sync lock', () => {
    it('keeps two syncers of one database from running at once (in-process mutex)', async () => {
      const { log, a, b } = twoWindows('two-windows')
      const [ra, rb] = await Promise.all([a.syncer.sync(), b.syncer.sync()])
      expect(runs(log)).toBe('AB')
      expect(ra.bootstrap).toBe(true)
      // B waited for A's bootstrap, then only checked for news.
      expect(rb.bootstrap).toBe(false)
      expect(a.transport.counted.total()).toBe(bootstrapFloor(world.service))
      expect(Object.fromEntries(b.transport.counted.calls)).toEqual({ 'epics.list': 1, 'documents.list': 1 })
    })

    it('lets syncers of different databases run side by side', async () => {
      const one = createSyncer({ db: world.openDb('db-1'), transport: world.transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
      const other = createSyncer({ db: world.openDb('db-2'), transport: world.transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
      let active = 0
      let most = 0
      const run = (s: typeof one) =>
        s
          .sync({
            started: () => {
              active++
              most = Math.max(most, active)
            },
          })
          .finally(() => active--)
      await Promise.all([run(one), run(other)])
      expect(most).toBe(2)
    })

    it('releases the lock when a run fails, so the next one goes ahead', async () => {
      const db = world.openDb('fails')
      const refusing = countingTransport(world.transport, () => {
        throw new TransportError({ kind: 'network', message: 'offline' })
      })
      await expect(createSyncer({ db, transport: refusing, clock: Date.now }).sync()).rejects.toThrow('offline')
      const report = await createSyncer({ db, transport: world.transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()
      expect(report.bootstrap).toBe(true)
    })
  })

  describe('navigator.locks', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'navigator')
    afterEach(() => {
      if (saved) Object.defineProperty(globalThis, 'navigator', saved)
      else delete (globalThis as { navigator?: unknown }).navigator
    })

    /** A navigator.locks that records the names asked for (and holds them with the in-process mutex). */
    function fakeLocks(): string[] {
      const asked: string[] = []
      const locks = {
        request: <T>(name: string, run: () => Promise<T>) => {
          asked.push(name)
          return processLock(name, run)
        },
      }
      Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true, writable: true })
      return asked
    }

    it('is used where the platform has it, with the database name in the lock name', async () => {
      const asked = fakeLocks()
      expect(platformLock()).not.toBe(processLock)
      const db = world.openDb('outpost:http://127.0.0.1:1:demo')
      const report = await createSyncer({ db, transport: world.transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()
      expect(report.bootstrap).toBe(true)
      expect(asked).toEqual(['outpost-sync:outpost:http://127.0.0.1:1:demo'])
    })

    it('holds the outbox replay under its own name', async () => {
      const asked = fakeLocks()
      const db = world.openDb('outpost:http://127.0.0.1:1:replay')
      const result = await replay({ db, transport: world.transport })
      expect(result.remaining).toBe(0)
      expect(asked).toEqual(['outpost-outbox:outpost:http://127.0.0.1:1:replay'])
    })

    it('falls back to the in-process mutex without it', () => {
      Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true })
      expect(platformLock()).toBe(processLock)
    })
  })
})

describe('one replayer per database', () => {
  let kit: Kit
  beforeEach(async () => {
    kit = await startKit()
    await fillCache(kit.db, kit.transport)
  })
  afterEach(async () => kit.close())

  it('a second window asking for a pass waits for the first, and finds nothing left to send', async () => {
    const { db } = kit
    const epic = (await db.epics.orderBy('id').first()) as CachedEpic
    const sent = counting(kit.transport)
    const t = gated(sent, 'epics.update')
    await actionsFor(db, t).updateEpic(epic.id, { name: 'Sent by one window only' })
    const lock = createProcessLock()
    // Two windows: two database objects on the same IndexedDB, one lock.
    const other = kit.openDb()
    const first = replayFast(db, t, { lock })
    await t.reached
    const second = replayFast(other, t, { lock })
    await new Promise((r) => setTimeout(r, 20))
    t.open()
    const [a, b] = await Promise.all([first, second])
    expect(a.confirmed).toBe(1)
    expect(b.confirmed).toBe(0)
    expect(sent.counts.get('epics.update')).toBe(1)
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.name).toBe('Sent by one window only')
    other.close()
  })
})
