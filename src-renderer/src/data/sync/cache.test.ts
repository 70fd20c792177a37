// Whole lists stored in slices sized by time (cache.ts putInSlices): every row
// lands, once and whole, whatever size the slices take; and the sizing itself.
import 'fake-indexeddb/auto'
import type { Table } from 'dexie'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OutpostDb } from '../db.ts'
import { cachedEpic } from '../../../../testing/cached-rows.ts'
import type { CachedEpic, EntityId } from '../types.ts'
import { freshCheckpoint } from './checkpoints.ts'
import { nextPutSlice, replaceAll, writeDocPage } from './cache.ts'
import Dexie, { type ObservabilitySet } from 'dexie'
import { pointKeys } from '../watch.ts'
import type { DocV4Fields } from '../convert.ts'

describe('nextPutSlice', () => {
  it('sizes the next slice to take about 6 ms, halfway from the last size', () => {
    // 100 rows in 12 ms: 50 would fit; halfway there is 75.
    expect(nextPutSlice(100, 12)).toBe(75)
    // 100 rows in 2 ms: 300 would fit; halfway there is 200.
    expect(nextPutSlice(100, 2)).toBe(200)
    expect(nextPutSlice(100, 6)).toBe(100)
  })

  it('stays between 10 and 2,000 rows, however fast or slow the last slice was', () => {
    expect(nextPutSlice(10, 500)).toBe(10)
    expect(nextPutSlice(2_000, 0)).toBe(2_000)
    expect(nextPutSlice(1, 0)).toBe(31)
  })
})

let db: OutpostDb
beforeEach(async () => {
  db = new OutpostDb(`cache-test-${crypto.randomUUID()}`)
  await db.open()
})
afterEach(async () => {
  db.close()
  await db.delete()
})

describe('a whole list stored in slices', () => {
  it('stores every row of a list longer than any slice, with the checkpoint', async () => {
    const rows = Array.from({ length: 2_345 }, (_, i) =>
      cachedEpic(i + 1, { name: `Epic ${i + 1}`, updated_at: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z` }),
    )
    const { written, removed } = await replaceAll(
      db,
      db.epics as unknown as Table<CachedEpic, EntityId>,
      rows,
      { ...freshCheckpoint('epics'), bootstrapped: true },
      new Set(),
    )
    expect(written).toBe(2_345)
    expect(removed).toEqual([])
    const stored = await db.epics.toArray()
    expect(stored).toHaveLength(2_345)
    expect(stored.map((e) => e.name)).toEqual(rows.map((e) => e.name))
    expect((await db.checkpoints.get('epics'))?.bootstrapped).toBe(true)
  })
})

describe('a sync page written', () => {
  it('names every row it wrote in its change event (what the window reads again), for a page of 100', async () => {
    const events: ObservabilitySet[] = []
    const listen = (parts: ObservabilitySet) => void events.push(parts)
    Dexie.on('storagemutated', listen)
    try {
      const page: DocV4Fields[] = Array.from(
        { length: 100 },
        (_, i) =>
          ({
            id: `doc-${i}`,
            title: `Doc ${i}`,
            content_markdown: 'text',
            content_html: '<p>text</p>',
            archived: false,
            created_at: '2026-01-01T00:00:00Z',
            updated_at: '2026-01-02T00:00:00Z',
          }) as DocV4Fields,
      )
      expect(await writeDocPage(db, page, 'bootstrap', { ...freshCheckpoint('docs'), cursor: 'next' })).toBe(100)
      await new Promise((resolve) => setTimeout(resolve, 50))
      const named = events.map((e) => e[`idb://${db.name}/docs/`]).filter((tree) => tree !== undefined)
      expect(named).toHaveLength(1)
      expect(pointKeys(named[0])?.sort()).toEqual(page.map((d) => d.id).sort())
    } finally {
      Dexie.on.storagemutated.unsubscribe(listen)
    }
  })
})
