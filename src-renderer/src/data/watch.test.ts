// The big lists' reads (watch.ts): fresh after every change, at a pace while
// commits keep coming, never stale once the commits stop; and whole tables
// read in pages (overlay.ts readInPages) come back whole and in order.
import 'fake-indexeddb/auto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OutpostDb } from './db.ts'
import { mergedEpics, mergedEpicsById, readInPages } from './overlay.ts'
import { epicIdsIn, newestOrder, replaceInOrder } from './epic-order.ts'
import { cachedEpic } from '../../../testing/cached-rows.ts'
import type { CachedEpic } from './types.ts'
import { RETRY_FIRST_MS, watchTables, type ChangedKeys } from './watch.ts'

const epic = (id: number, name = `Epic ${id}`) => cachedEpic(id, { name })

let db: OutpostDb
let stop: (() => void) | undefined
beforeEach(async () => {
  db = new OutpostDb(`watch-test-${crypto.randomUUID()}`)
  await db.open()
})
afterEach(async () => {
  stop?.()
  stop = undefined
  db.close()
  await db.delete()
})

/** Watches the merged epics as the epic list does; `reads` counts the reads, `until` waits for an answer that passes. */
function watchEpics() {
  const answers: CachedEpic[][] = []
  const errors: unknown[] = []
  let reads = 0
  const waiters: { test: (v: CachedEpic[]) => boolean; resolve: () => void }[] = []
  stop = watchTables(
    db,
    [{ table: 'epics' }, { table: 'overlay', keys: { from: ['epic'], to: ['epic', []] } }],
    () => {
      reads++
      return mergedEpics(db)
    },
    {
      next: (v) => {
        answers.push(v)
        for (const w of [...waiters]) if (w.test(v)) w.resolve()
      },
      error: (e) => errors.push(e),
    },
  )
  return {
    answers,
    errors,
    reads: () => reads,
    until: (test: (v: CachedEpic[]) => boolean) =>
      new Promise<void>((resolve, reject) => {
        if (answers.length && test(answers[answers.length - 1])) return resolve()
        waiters.push({ test, resolve })
        setTimeout(() => reject(new Error(`no answer passed; last had ${answers.at(-1)?.length} epics`)), 5_000)
      }),
  }
}

const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a watched list', () => {
  it('answers at once, then again after a write', async () => {
    await db.epics.bulkPut([epic(1), epic(2)])
    const w = watchEpics()
    await w.until((v) => v.length === 2)
    await db.epics.put(epic(2, 'Renamed'))
    await w.until((v) => v.find((e) => e.id === 2)?.name === 'Renamed')
    expect(w.errors).toEqual([])
  })

  it('shows a local edit laid over the cache (an overlay row of an epic)', async () => {
    await db.epics.put(epic(7))
    const w = watchEpics()
    await w.until((v) => v.length === 1)
    await db.overlay.put({ kind: 'epic', id: '7', patch: { name: 'Edited offline' }, created: false, deleted: false, updatedAt: 1 })
    await w.until((v) => v[0]?.name === 'Edited offline')
  })

  it('is not re-read for changes to other kinds', async () => {
    await db.epics.put(epic(1))
    const w = watchEpics()
    await w.until((v) => v.length === 1)
    await quiet(50)
    const before = w.reads()
    await db.overlay.put({ kind: 'doc', id: 'd1', patch: { title: 'x' }, created: false, deleted: false, updatedAt: 1 })
    await db.docs.clear()
    await quiet(100)
    expect(w.reads()).toBe(before)
  })

  it('takes a burst of commits in fewer reads, and ends with every commit in it', async () => {
    const w = watchEpics()
    await w.until((v) => v.length === 0)
    const commits = 40
    for (let i = 0; i < commits; i++) {
      await db.epics.bulkPut(Array.from({ length: 50 }, (_, j) => epic(i * 50 + j + 1)))
    }
    await w.until((v) => v.length === commits * 50)
    // The first read of the burst runs at once; the rest wait for the burst's pace.
    expect(w.reads()).toBeLessThan(commits)
    // Quiet again: the next write is read at once, and nothing was left unread.
    await quiet(50)
    await db.epics.delete(1)
    await w.until((v) => v.length === commits * 50 - 1)
  })

  it('stops reading once stopped', async () => {
    const w = watchEpics()
    await w.until((v) => v.length === 0)
    stop!()
    const before = w.reads()
    await db.epics.put(epic(1))
    await quiet(100)
    expect(w.reads()).toBe(before)
  })

  it('reports a failed read as an error of the list', async () => {
    const answers: unknown[] = []
    const errors: unknown[] = []
    stop = watchTables(db, [{ table: 'epics' }], () => Promise.reject(new Error('disk gone')), { next: (v) => answers.push(v), error: (e) => errors.push(e) })
    for (let waited = 0; errors.length === 0 && waited < 10_000; waited += 20) await quiet(20)
    expect(answers).toEqual([])
    expect(errors[0]).toEqual(new Error('disk gone'))
  })

  it('reads again by itself after a failed read, with no commit to prompt it, until one succeeds', async () => {
    await db.epics.put(epic(1))
    const answers: CachedEpic[][] = []
    const errors: unknown[] = []
    let tries = 0
    const read = () => (++tries <= 2 ? Promise.reject(new Error('transaction aborted')) : mergedEpics(db))
    stop = watchTables(db, [{ table: 'epics' }], read, { next: (v) => answers.push(v), error: (e) => errors.push(e) })
    // Tried again after RETRY_FIRST_MS, then twice that (waited for far longer: a busy machine is slow).
    const until = Date.now() + 3 * RETRY_FIRST_MS + 10_000
    while (answers.length === 0 && Date.now() < until) await quiet(20)
    expect(errors).toEqual([new Error('transaction aborted'), new Error('transaction aborted')])
    expect(answers.map((v) => v.map((e) => e.id))).toEqual([[1]])
    // Once it succeeded, nothing more is read until something changes.
    await quiet(3 * RETRY_FIRST_MS)
    expect(tries).toBe(3)
  })
})

/** The epic list as the window keeps it: read whole once, then only the epics each commit names. */
function watchEpicsByKeys() {
  let list: CachedEpic[] = []
  const updates: ChangedKeys[] = []
  let wholeReads = 0
  const answers: CachedEpic[][] = []
  const errors: unknown[] = []
  const whole = async () => (await mergedEpics(db)).sort(newestOrder)
  stop = watchTables(
    db,
    [{ table: 'epics' }, { table: 'overlay', keys: { from: ['epic'], to: ['epic', []] } }],
    async () => {
      wholeReads++
      return (list = await whole())
    },
    { next: (v) => answers.push(v), error: (e) => errors.push(e) },
    async (changed) => {
      updates.push(changed)
      return (list = replaceInOrder(list, await mergedEpicsById(db, epicIdsIn(changed))))
    },
  )
  /** The last answer once it is what a whole read gives now (or, after 5 s, whatever it is), and that whole read. */
  const settled = async () => {
    const until = Date.now() + 5_000
    for (;;) {
      const last = answers.at(-1)
      const now = await whole()
      if (Date.now() > until || (last !== undefined && JSON.stringify(last) === JSON.stringify(now))) return { last: last!, whole: now }
      await quiet(20)
    }
  }
  return { updates, errors, wholeReads: () => wholeReads, settled }
}

/** An epic created here, as its overlay row holds it. */
const localEpic = (id: string, updatedAt: string): Record<string, unknown> => ({ ...cachedEpic(0, { updated_at: updatedAt }), id, name: `New ${id}` })

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString()

describe('a watched list that takes in only what changed', () => {
  it('reads only the epics a commit names, and shows what a whole read would, in the same order', async () => {
    await db.epics.bulkPut(Array.from({ length: 300 }, (_, i) => cachedEpic(i + 1, { updated_at: at(i % 7) })))
    const w = watchEpicsByKeys()
    let now = await w.settled()
    expect(now.last).toEqual(now.whole)
    expect(w.wholeReads()).toBe(1)

    // A sync page of 100, written as the sync writes one (sync/cache.ts): in writes Dexie names the keys of.
    const page = Array.from({ length: 100 }, (_, i) => cachedEpic(i * 3 + 1, { name: `Page ${i}`, updated_at: at(10 + (i % 4)) }))
    await db.transaction('rw', db.epics, () =>
      Promise.all([db.epics.bulkPut(page.slice(0, 49)), db.epics.bulkPut(page.slice(49, 98)), db.epics.bulkPut(page.slice(98))]),
    )
    now = await w.settled()
    expect(now.last).toEqual(now.whole)
    expect(new Set(w.updates.flatMap((u) => u.get('epics') ?? [])).size).toBe(100)

    // Equal times keep key order; an edit here, an epic created here, one deleted here, one deleted on the service.
    await db.epics.put(cachedEpic(500, { updated_at: at(3) }))
    await db.overlay.put({ kind: 'epic', id: '2', patch: { name: 'Edited offline' }, created: false, deleted: false, updatedAt: 1 })
    await db.overlay.put({ kind: 'epic', id: 'local:b', patch: localEpic('local:b', at(3)), created: true, deleted: false, updatedAt: 1 })
    await db.overlay.put({ kind: 'epic', id: 'local:a', patch: localEpic('local:a', at(3)), created: true, deleted: false, updatedAt: 1 })
    await db.overlay.put({ kind: 'epic', id: '5', patch: {}, created: false, deleted: true, updatedAt: 1 })
    await db.epics.delete(9)
    // Another kind's overlay is none of the list's business.
    await db.overlay.put({ kind: 'doc', id: 'd1', patch: { title: 'x' }, created: false, deleted: false, updatedAt: 1 })
    now = await w.settled()
    expect(now.last).toEqual(now.whole)
    expect(now.last.find((e) => e.id === 2)?.name).toBe('Edited offline')
    expect(now.last.some((e) => e.id === 5 || e.id === 9)).toBe(false)
    expect(w.wholeReads()).toBe(1)
    expect(w.updates.flatMap((u) => u.get('overlay') ?? [])).not.toContainEqual(['doc', 'd1'])
    expect(w.errors).toEqual([])
  })

  it('reads whole again after a change that names no keys (a table cleared)', async () => {
    await db.epics.bulkPut([cachedEpic(1), cachedEpic(2)])
    const w = watchEpicsByKeys()
    await w.settled()
    await db.epics.clear()
    await db.epics.put(cachedEpic(3))
    const now = await w.settled()
    expect(now.last.map((e) => e.id)).toEqual([3])
    expect(w.wholeReads()).toBe(2)
  })
})

describe('a whole table read in pages', () => {
  it('comes back whole and in primary-key order, whatever the page size', async () => {
    await db.epics.bulkPut(Array.from({ length: 1_005 }, (_, i) => epic(1_005 - i)))
    for (const pageRows of [1, 7, 500, 1_005, 5_000]) {
      const rows = await readInPages(db.epics, pageRows)
      expect(rows.map((e) => e.id)).toEqual(Array.from({ length: 1_005 }, (_, i) => i + 1))
    }
  })

  it('reads a table keyed by two fields (doc-epic links)', async () => {
    await db.docEpics.bulkPut([
      { doc_id: 'b', epic_id: 1 },
      { doc_id: 'a', epic_id: 2 },
      { doc_id: 'a', epic_id: 1 },
    ])
    const rows = await readInPages(db.docEpics, 2)
    expect(rows.map((r) => `${r.doc_id}${r.epic_id}`)).toEqual(['a1', 'a2', 'b1'])
  })

  it('of an empty table is empty', async () => {
    expect(await readInPages(db.epics, 10)).toEqual([])
  })
})
