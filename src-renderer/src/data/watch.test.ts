// The big lists' reads (watch.ts): fresh after every change, at a pace while
// commits keep coming, never stale once the commits stop; and whole tables
// read in pages (overlay.ts readInPages) come back whole and in order.
import 'fake-indexeddb/auto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OutpostDb } from './db.ts'
import { mergedEpics, readInPages } from './overlay.ts'
import { cachedEpic } from '../../../testing/cached-rows.ts'
import type { CachedEpic } from './types.ts'
import { watchTables } from './watch.ts'

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
    await quiet(50)
    expect(answers).toEqual([])
    expect(errors).toEqual([new Error('disk gone')])
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
