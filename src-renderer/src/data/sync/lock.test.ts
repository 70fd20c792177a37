// One syncer per database: two syncers (two windows) on the same database
// never run at once; the second waits, then finds the bootstrap done.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { OperationName } from '../../../../src-shared/api/operations.ts'
import { TransportError } from '../transport.ts'
import { createSyncer, platformLock, processLock } from './index.ts'
import { bootstrapFloor, countingTransport, startWorld, type World } from './testing.ts'

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
const runs = (log: { window: string }[]) => log.map((l) => l.window).join('').replace(/(.)\1+/g, '$1')

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

  it('is used where the platform has it, with the database name in the lock name', async () => {
    const asked: string[] = []
    const locks = {
      request: <T>(name: string, run: () => Promise<T>) => {
        asked.push(name)
        return processLock(name, run)
      },
    }
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true, writable: true })
    expect(platformLock()).not.toBe(processLock)
    const db = world.openDb('outpost:http://127.0.0.1:1:demo')
    const report = await createSyncer({ db, transport: world.transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()
    expect(report.bootstrap).toBe(true)
    expect(asked).toEqual(['outpost-sync:outpost:http://127.0.0.1:1:demo'])
  })

  it('falls back to the in-process mutex without it', () => {
    Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true })
    expect(platformLock()).toBe(processLock)
  })
})
