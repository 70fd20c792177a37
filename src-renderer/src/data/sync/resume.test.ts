// A bootstrap killed part way (an abort, the database closed, a request
// refused) resumes from its checkpoint: finished kinds and stored pages are
// not fetched again, but for the v3 epic list while the epic pages are not all
// stored (one request: the positions of the epics still to come, which v4 pages
// lack). A cursor the service forgot restarts that kind only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TransportError } from '../transport.ts'
import { createSyncer, readCheckpoints } from './index.ts'
import { bootstrapFloor, countingTransport, serviceCounts, startWorld, type World } from '../../../../testing/sync-kit.ts'
import type { OperationName } from '../../../../src-shared/api/operations.ts'

let world: World
let floor: number
/** Epics the service holds with no description (the cache must hold the same number). */
let emptyDescriptions: number
beforeAll(async () => {
  world = await startWorld({ seed: { epics: 600, docs: 150, files: 30 } })
  floor = bootstrapFloor(world.service)
  emptyDescriptions = world.service.ctx
    .col<any>('epic')
    .all()
    .filter((e) => e.description === '').length
})
afterAll(() => world.close())

/**
 * Calls in the order a bootstrap makes them: 7 reference lists, the first epic
 * page, the v3 epic list, 5 more epic pages (calls 9-13), 2 doc pages (14-15),
 * files, linked files. A walk asks for its next page while it writes the one
 * before (but the first epic page, stored before the list).
 */
const ORDER: OperationName[] = [
  'members.list',
  'groups.list',
  'epicWorkflow.states',
  'categories.v3List',
  'objectives.list',
  'labels.list',
  'customFields.list',
  'epics.list',
  'epics.v3List',
  ...Array<OperationName>(5).fill('epics.list'),
  ...Array<OperationName>(2).fill('documents.list'),
  'files.list',
  'linkedFiles.list',
]

const syncerOf = (db: ReturnType<World['openDb']>, transport: ReturnType<typeof countingTransport>) =>
  createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 } })

async function expectComplete(db: ReturnType<World['openDb']>) {
  const c = serviceCounts(world.service)
  expect(await db.epics.count()).toBe(c.epics)
  expect(await db.docs.count()).toBe(c.docs)
  expect(await db.files.count()).toBe(c.files)
  expect(await db.epicComments.count()).toBe(c.comments)
  // Every epic has its description (from the v4 pages), not only the v3 list's fields.
  expect(await db.epics.filter((e) => e.description === '').count()).toBe(emptyDescriptions)
}

describe('resume after an interrupted bootstrap', () => {
  it('the floor is the ORDER above', () => {
    expect(floor).toBe(ORDER.length)
  })

  it('resumes after an abort without fetching stored pages or finished kinds again', async () => {
    const db = world.openDb('abort')
    const controller = new AbortController()
    const K = 11 // the 12th call (epic page 4) is sent, and its answer dropped
    const first = countingTransport(world.transport, (_op, _req, made) => {
      if (made === K) controller.abort()
    })
    await expect(syncerOf(db, first).sync({ signal: controller.signal })).rejects.toThrow()
    expect(first.counted.total()).toBe(K + 1)
    const cp = (await readCheckpoints(db)).get('epics')!
    expect(cp).toMatchObject({ bootstrapped: false, done: 300, total: 600 })
    expect(cp.cursor).toBeTruthy()
    // The pages stored so far: each epic is stored whole, from its page.
    expect(await db.epics.count()).toBe(300)
    expect(await db.epics.filter((e) => typeof e.description !== 'string').count()).toBe(0)

    const second = countingTransport(world.transport)
    await syncerOf(db, second).sync()
    // The epic list's positions again, then only epic pages 4-6, the docs and the files: the request made
    // but not stored is made again.
    expect(second.counted.log.map((l) => l.operation)).toEqual(['epics.v3List', ...ORDER.slice(K)])
    expect(second.counted.total()).toBe(floor - K + 1)
    await expectComplete(db)
  })

  it('resumes after the database was closed under it', async () => {
    const name = 'closed'
    const db = world.openDb(name)
    // The epic pages stored; the second doc page is asked for while the first is written, and the database
    // closes then: neither is stored.
    const K = 15
    const first = countingTransport(world.transport, (_op, _req, made) => {
      if (made === K) db.close()
    })
    await expect(syncerOf(db, first).sync()).rejects.toThrow()
    expect(first.counted.total()).toBe(K + 1)

    const again = world.openDb(name)
    const second = countingTransport(world.transport)
    await syncerOf(again, second).sync()
    expect(second.counted.log.map((l) => l.operation)).toEqual(ORDER.slice(K - 1))
    await expectComplete(again)
  })

  it('resumes after a refused request (offline), and restarts a kind whose cursor expired, skipping nothing', async () => {
    const db = world.openDb('expired')
    const K = 11
    const first = countingTransport(world.transport, (_op, _req, made) => {
      if (made === K) throw new TransportError({ kind: 'network', message: 'offline' })
    })
    await expect(syncerOf(db, first).sync()).rejects.toThrow('offline')
    expect(first.counted.total()).toBe(K)
    const cp = (await readCheckpoints(db)).get('epics')!
    expect(cp.done).toBe(300)

    // The service forgets its list snapshots (they last 6 hours): the stored cursor is now unknown to it.
    world.service.ctx.db.prepare('DELETE FROM list_snapshots').run()
    const second = countingTransport(world.transport)
    await syncerOf(db, second).sync()
    // The epic list's positions again, one refused cursor, then all 6 epic pages from the start, then the docs and files.
    expect(second.counted.calls.get('epics.list')).toBe(1 + 6)
    expect(second.counted.total()).toBe(1 + 1 + 6 + (floor - 14))
    await expectComplete(db)
    expect((await readCheckpoints(db)).get('epics')).toMatchObject({ bootstrapped: true, cursor: null })
  })
})
