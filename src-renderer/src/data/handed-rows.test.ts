// A bootstrap hands the window every epic of its v3 list before it stores them
// (the list and the search show them meanwhile), and each reader keeps a handed
// epic until its reads of the cache find it, or the run ends without it.
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { afterEach, describe, expect, it } from 'vitest'
import { cachedEpic } from '../../../testing/cached-rows.ts'
import { countingTransport, serviceCounts, startWorld, type World } from '../../../testing/sync-kit.ts'
import { handedRowsEnded, HandedInList, handRows, onHandedRows, type HandedRows } from './handed-rows.ts'
import { OutpostDb } from './db.ts'
import { newestOrder } from './epic-order.ts'
import { createSyncer, readCheckpoints } from './sync/index.ts'
import type { CachedDoc, CachedEpic } from './types.ts'

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

describe('a bootstrap hands over its lists of every epic and every doc', () => {
  it('before storing any of it, each as the cache then holds it', async () => {
    world = await startWorld({ seed: { epics: 320, docs: 5, files: 0 } })
    const w = world
    const db = w.openDb()
    let handed!: () => void
    const handedOnce = new Promise<void>((resolve) => (handed = resolve))
    // The walk's pages wait until the list is handed: what the cache holds then is what came before it.
    const transport = countingTransport(w.transport, async (operation) => {
      if (operation === 'epics.list') await handedOnce
    })
    const told: { rows: CachedEpic[]; cached: number; listStored: boolean }[] = []
    const docsTold: CachedDoc[] = []
    const syncer = createSyncer({
      db,
      transport,
      clock: Date.now,
      options: { fileBudgetBytes: 0 },
      onHandOver: ({ kind, rows }) => {
        if (kind === 'doc') docsTold.push(...(rows as CachedDoc[]))
        if (kind !== 'epic') return
        // Read in a transaction made before the list's write is: what the cache held when it was handed.
        void db
          .transaction('r', db.epics, db.checkpoints, async () => ({ cached: await db.epics.count(), checkpoints: await readCheckpoints(db) }))
          .then(({ cached, checkpoints }) => {
            told.push({ rows: rows as CachedEpic[], cached, listStored: checkpoints.get('epicList')!.bootstrapped })
            handed()
          })
      },
    })
    await syncer.sync()

    expect(told).toHaveLength(1)
    const [{ rows, cached, listStored }] = told
    expect(cached).toBe(0)
    expect(listStored).toBe(false)
    expect(rows).toHaveLength(serviceCounts(w.service).epics)
    expect(rows.every((e) => e.partial === true && e.description === '')).toBe(true)
    // In the list's order, newest first: the window merges them without sorting them again.
    expect(rows.map((e) => e.id)).toEqual([...rows].sort(newestOrder).map((e) => e.id))
    // Every epic as the cache holds it now, but for what the pages brought since (description, comments).
    const stored = new Map((await db.epics.toArray()).map((e) => [e.id, e]))
    expect(rows.map((e) => e.id).sort()).toEqual([...stored.keys()].sort())
    for (const e of rows) {
      const { description: _d, partial: _p, ...rest } = stored.get(e.id)!
      const { description: _hd, partial: _hp, ...handedRest } = e
      expect(handedRest).toEqual(rest)
    }
    // And every doc by its title.
    const docs = new Map((await db.docs.toArray()).map((d) => [d.id, d.title]))
    expect(docsTold.map((d) => d.id).sort()).toEqual([...docs.keys()].sort())
    expect(docsTold.every((d) => d.partial === true && d.title === docs.get(d.id))).toBe(true)
    // A run that resumes, or an incremental one, hands nothing over.
    told.length = 0
    await syncer.sync({ force: true })
    expect(told).toHaveLength(0)
    expect(docsTold).toHaveLength(docs.size)
  })
})

describe('the handed epics a list shows', () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()
  const epic = (id: number, minute: number, name = `Epic ${id}`) => cachedEpic(id, { name, updated_at: at(minute) })
  const byId = (epics: (CachedEpic | undefined)[]) => new Map(epics.filter((e) => e !== undefined).map((e) => [String(e.id), e]))

  it('adds those the list lacks, in its order, leaving out its own and those deleted here', () => {
    const inList = new HandedInList()
    const list = [epic(1, 30), epic(2, 10)]
    const added = inList.take(
      list,
      new Map<string, CachedEpic | undefined>([
        ['1', epic(1, 5, 'Older copy')],
        ['3', epic(3, 20)],
        ['4', undefined],
      ]),
    )
    expect([...added.keys()]).toEqual(['3'])
    expect(inList.size).toBe(1)
  })

  it('keeps a handed epic through reads of the cache that miss it, and drops it once a read finds it', () => {
    const inList = new HandedInList()
    inList.take([], byId([epic(3, 20), epic(4, 40)]))
    // A whole read of a cache that holds neither yet: both stay, in order.
    const read = inList.withWhole([epic(1, 30), epic(2, 10)])
    expect(read.map((e) => e.id)).toEqual([4, 1, 3, 2])
    expect(read).toEqual([...read].sort(newestOrder))
    // A read of some epics: 3 not in the cache yet stays as handed, 4 found (a page brought it) is the cache's.
    const fresh = new Map<string, CachedEpic | undefined>([
      ['3', undefined],
      ['4', epic(4, 50, 'From its page')],
    ])
    inList.keepIn(fresh)
    expect(fresh.get('3')?.name).toBe('Epic 3')
    expect(fresh.get('4')?.name).toBe('From its page')
    expect(inList.size).toBe(1)
    // A whole read that holds 3: nothing is left handed.
    expect(inList.withWhole([epic(3, 20)]).map((e) => e.id)).toEqual([3])
    expect(inList.size).toBe(0)
  })

  it('gives back, when the run ends, those the cache never showed, to be read from it', () => {
    const inList = new HandedInList()
    inList.take([], byId([epic(3, 20), epic(4, 40)]))
    inList.keepIn(new Map([['4', epic(4, 40)]]))
    expect(inList.end()).toEqual(['3'])
    expect(inList.size).toBe(0)
  })
})

describe("the window's hub of handed rows", () => {
  it('tells a reader that starts during the run, then that the run ended; a run that handed nothing ends untold', () => {
    const db = new OutpostDb('handed-hub', { indexedDB, IDBKeyRange })
    const early: (HandedRows['rows'] | null)[] = []
    const late: (HandedRows['rows'] | null)[] = []
    const docs: (HandedRows['rows'] | null)[] = []
    const stopEarly = onHandedRows(db, 'epic', (rows) => early.push(rows))
    const stopDocs = onHandedRows(db, 'doc', (rows) => docs.push(rows))
    handedRowsEnded(db)
    expect(early).toEqual([])
    const rows = [cachedEpic(1)]
    handRows(db, { kind: 'epic', rows })
    const stopLate = onHandedRows(db, 'epic', (r) => late.push(r))
    handedRowsEnded(db)
    handedRowsEnded(db)
    expect(early).toEqual([rows, null])
    expect(late).toEqual([rows, null])
    // Each kind hears of its own rows only.
    expect(docs).toEqual([])
    stopEarly()
    stopLate()
    stopDocs()
    handRows(db, { kind: 'epic', rows })
    expect(early).toHaveLength(2)
  })
})
