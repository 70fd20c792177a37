// A bootstrap killed part way (an abort, the database closed, a request
// refused) resumes from what it stored: kinds it finished, the v3 epic list
// once its rows are stored, and the pages each end of a walk stored are not
// fetched again; a cursor the service forgot restarts that end only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TransportError } from '../transport.ts'
import type { EntityId } from '../types.ts'
import { createSyncer, readCheckpoints } from './index.ts'
import { LIST_WRITE_SLICE } from './cache.ts'
import { LIST_PAGE_OVERLAP, LIST_PAGE_SIZE } from './sync.ts'
import { countingTransport, pages, serviceCounts, startWorld, type World } from '../../../../testing/sync-kit.ts'

let world: World
/** Epics the service holds with no description (the cache must hold the same number). */
let emptyDescriptions: number
const EPICS = 1200
beforeAll(async () => {
  world = await startWorld({ seed: { epics: EPICS, docs: 150, files: 30 } })
  emptyDescriptions = world.service.ctx
    .col<any>('epic')
    .all()
    .filter((e) => e.description === '').length
})
afterAll(() => world.close())

/**
 * The epic pages are asked for once the v3 epic list is stored (a page is then written as soon as it
 * comes, whatever the machine's load), as on a link where the list comes first.
 */
let listStored: Promise<void> = Promise.resolve()
const syncerOf = (db: ReturnType<World['openDb']>, transport: ReturnType<typeof countingTransport>) => {
  let stored = () => {}
  listStored = new Promise<void>((resolve) => (stored = resolve))
  return createSyncer({
    db,
    transport,
    clock: Date.now,
    options: { fileBudgetBytes: 0 },
    onProgress: (p) => p.kind === 'epicList' && p.done === p.total && stored(),
  })
}

async function expectComplete(db: ReturnType<World['openDb']>) {
  const c = serviceCounts(world.service)
  expect(await db.epics.count()).toBe(c.epics)
  expect(await db.docs.count()).toBe(c.docs)
  expect(await db.files.count()).toBe(c.files)
  expect(await db.epicComments.count()).toBe(c.comments)
  // Every epic whole: its description from its page, nothing left as the v3 list stored it.
  expect(await db.epics.filter((e) => e.description === '').count()).toBe(emptyDescriptions)
  expect(await db.epics.filter((e) => e.partial === true).count()).toBe(0)
  expect((await readCheckpoints(db)).get('epics')).toMatchObject({ bootstrapped: true, cursor: null, ends: null })
}

/** Epic pages each end stored, as the checkpoint says. */
async function storedPages(db: ReturnType<World['openDb']>): Promise<number> {
  const ends = (await readCheckpoints(db)).get('epics')!.ends
  return (ends?.desc.pages ?? 0) + (ends?.asc.pages ?? 0)
}

/** Epic pages asked for once the list is stored. */
const slowPages = async (operation: string) => {
  if (operation === 'epics.list') await listStored
}

/** A transport that calls `then` once `pages` epic pages have been answered. */
const afterEpicPages = (pages: number, then: () => void) => {
  let answered = 0
  const transport = countingTransport(world.transport, slowPages)
  return {
    ...transport,
    call: async <T>(...args: Parameters<typeof transport.call>): Promise<T> => {
      const answer = await transport.call<T>(...args)
      if (args[0] === 'epics.list' && ++answered === pages) then()
      return answer
    },
  }
}

/** A transport whose v3 list of every epic the link cuts: it fails as the gateway does, with `received` of it. */
const cutList = (received: (list: unknown[]) => unknown[]) => {
  const transport = countingTransport(world.transport, slowPages)
  return {
    ...transport,
    call: async <T>(...args: Parameters<typeof transport.call>): Promise<T> => {
      const answer = await transport.call<T>(...args)
      if (args[0] !== 'epics.v3List') return answer
      throw new TransportError({ kind: 'network', message: 'The link dropped.', received: received(answer as unknown[]) })
    },
  }
}

describe('resume after an interrupted bootstrap', () => {
  it('resumes after an abort without fetching the list, stored pages or finished kinds again', async () => {
    const db = world.openDb('abort')
    const controller = new AbortController()
    const first = afterEpicPages(3, () => controller.abort())
    await expect(syncerOf(db, first).sync({ signal: controller.signal })).rejects.toThrow()
    const stored = await storedPages(db)
    expect(stored).toBeGreaterThan(0)
    expect(stored).toBeLessThan(pages(EPICS))
    expect((await readCheckpoints(db)).get('epicList')?.bootstrapped).toBe(true)
    // Every epic listed already, the ones of the stored pages whole.
    expect(await db.epics.count()).toBe(EPICS)
    expect(await db.epics.filter((e) => !e.partial).count()).toBe(stored * 100)
    const finished = [...(await readCheckpoints(db)).values()].filter((c) => c.bootstrapped).map((c) => c.kind)

    const second = countingTransport(world.transport)
    await syncerOf(db, second).sync()
    // The pages not stored, from where each end stood, and the last page; nothing finished is asked again.
    expect(second.counted.calls.get('epics.list')).toBe(pages(EPICS) - stored + 1)
    expect(second.counted.calls.get('epics.v3List')).toBeUndefined()
    for (const l of second.counted.log) expect(finished).not.toContain(l.operation)
    await expectComplete(db)
  })

  it('resumes after the database was closed under it', async () => {
    const name = 'closed'
    const db = world.openDb(name)
    const first = afterEpicPages(4, () => db.close())
    await expect(syncerOf(db, first).sync()).rejects.toThrow()

    const again = world.openDb(name)
    const stored = await storedPages(again)
    const second = countingTransport(world.transport)
    await syncerOf(again, second).sync()
    expect(second.counted.calls.get('epics.list')).toBe(pages(EPICS) - stored + 1)
    await expectComplete(again)
  })

  it('resumes after a refused request (offline), and restarts an end whose cursor expired, skipping nothing', async () => {
    const db = world.openDb('expired')
    const first = countingTransport(world.transport, async (operation) => {
      await slowPages(operation)
      if (operation !== 'epics.list') return
      // Refused once each end has stored a page (whichever end is quicker to come).
      const ends = (await readCheckpoints(db)).get('epics')?.ends
      if (ends && ends.desc.pages > 0 && ends.asc.pages > 0) throw new TransportError({ kind: 'network', message: 'offline' })
    })
    await expect(syncerOf(db, first).sync()).rejects.toThrow('offline')
    const ends = (await readCheckpoints(db)).get('epics')!.ends!
    expect(ends.desc.cursor).toBeTruthy()

    // The service forgets its list snapshots (they last 6 hours): the stored cursors are now unknown to it.
    world.service.ctx.db.prepare('DELETE FROM list_snapshots').run()
    const second = countingTransport(world.transport)
    await syncerOf(db, second).sync()
    // Each end's refused cursor, then the walk again from both ends, and the last page.
    const refused = [ends.desc, ends.asc].filter((e) => e.cursor && !e.finished).length
    expect(second.counted.calls.get('epics.list')).toBe(refused + pages(EPICS) + 1)
    expect(second.counted.calls.get('epics.v3List')).toBeUndefined()
    await expectComplete(db)
  })

  it('resumes a v3 epic list the link cut on its way from the page where it stopped, never asking for it whole again', async () => {
    const db = world.openDb('cut-list')
    const KEPT = 700
    // The link drops with 700 epics of the list come whole (the gateway hands them over with its failure).
    const cut = cutList((list) => list.slice(0, KEPT))
    await expect(syncerOf(db, cut).sync()).rejects.toThrow('The link dropped.')
    const list = (await world.transport.call<{ id: number; description: string }[]>('epics.v3List', { fields: ['id'] })).map((e) => e.id)
    expect((await readCheckpoints(db)).get('epicList')).toMatchObject({ bootstrapped: false, done: KEPT })
    expect((await db.epics.bulkGet(list.slice(0, KEPT))).every((e) => e !== undefined)).toBe(true)

    // Meanwhile an epic the cut list brought is deleted on the service: those after it move one place back.
    const described = world.service.ctx
      .col<any>('epic')
      .all()
      .filter((e) => e.description !== '' && list.indexOf(e.id) < KEPT)
    await world.transport.call('epics.delete', { params: { id: described[0].id }, query: { force: true } })

    const second = countingTransport(world.transport)
    await syncerOf(db, second).sync()
    expect(second.counted.calls.get('epics.v3List')).toBeUndefined()
    // From the page holding the first epic not stored (less the overlap) to the last: 651st to 1,200th.
    const asked = second.counted.log.filter((l) => l.operation === 'epics.v3Page').map((l) => l.request.query)
    expect(
      asked
        .map((q) => q?.page)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([3, 4, 5])
    expect(asked.every((q) => q?.page_size === LIST_PAGE_SIZE)).toBe(true)
    expect(Math.floor((KEPT - LIST_PAGE_OVERLAP) / LIST_PAGE_SIZE) + 1).toBe(3)
    expect(await db.epics.get(described[0].id)).toBeUndefined()
    expect((await readCheckpoints(db)).get('epicList')).toMatchObject({ bootstrapped: true, done: EPICS - 1 })
    await expectComplete(db)
  })

  it('resumes a v3 epic list the app stopped storing between two of its slices with the rest, never asking for it whole again', async () => {
    const name = 'list-slices'
    const db = world.openDb(name)
    // The app quits once the list's first slice is stored: its database closes under the sync.
    const first = createSyncer({
      db,
      transport: countingTransport(world.transport),
      clock: Date.now,
      options: { fileBudgetBytes: 0 },
      onProgress: (p) => p.kind === 'epicList' && p.done === LIST_WRITE_SLICE && db.close(),
    })
    await expect(first.sync()).rejects.toThrow()

    const again = world.openDb(name)
    const list = (await world.transport.call<{ id: number }[]>('epics.v3List', { fields: ['id'] })).map((e) => e.id)
    expect((await readCheckpoints(again)).get('epicList')).toMatchObject({ bootstrapped: false, done: LIST_WRITE_SLICE })
    expect((await again.epics.bulkGet(list.slice(0, LIST_WRITE_SLICE))).every((e) => e !== undefined)).toBe(true)
    // None of the list's later epics: those stored besides came whole with the newest end's first page.
    const firstSlice = new Set<EntityId>(list.slice(0, LIST_WRITE_SLICE))
    expect(await again.epics.filter((e) => !firstSlice.has(e.id) && e.partial === true).count()).toBe(0)

    const second = countingTransport(world.transport)
    await syncerOf(again, second).sync()
    expect(second.counted.calls.get('epics.v3List')).toBeUndefined()
    // From the page holding the first epic not stored (less the overlap) to the last.
    const asked = second.counted.log.filter((l) => l.operation === 'epics.v3Page').map((l) => l.request.query?.page)
    const from = Math.floor((LIST_WRITE_SLICE - LIST_PAGE_OVERLAP) / LIST_PAGE_SIZE) + 1
    const held = serviceCounts(world.service).epics
    expect(asked.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: Math.ceil(held / LIST_PAGE_SIZE) - from + 1 }, (_, i) => from + i))
    expect((await readCheckpoints(again)).get('epicList')).toMatchObject({ bootstrapped: true, done: held })
    await expectComplete(again)
  })

  it('asks for the whole list again when its pages do not follow on from the part that came (another order)', async () => {
    const db = world.openDb('cut-list-unordered')
    // What came is not the list's first epics as its pages number them: every other one of them.
    const cut = cutList((list) => list.filter((_, i) => i % 2 === 1).slice(0, 500))
    await expect(syncerOf(db, cut).sync()).rejects.toThrow('The link dropped.')
    expect((await readCheckpoints(db)).get('epicList')).toMatchObject({ bootstrapped: false, done: 500 })

    const second = countingTransport(world.transport)
    await syncerOf(db, second).sync()
    // The page where the part should end, found not to follow on from it; then the whole list.
    expect(second.counted.log.filter((l) => l.operation === 'epics.v3Page').map((l) => l.request.query?.page)).toEqual([2])
    expect(second.counted.calls.get('epics.v3List')).toBe(1)
    await expectComplete(db)
  })
})
