// The search a window opens (deferred.ts): the same answers as the search it
// loads, nothing before it is in, a tick of its version store once it is.
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { afterEach, expect, it, vi } from 'vitest'
import { OutpostDb } from '../db.ts'
import { cachedEpic } from '../../../../testing/cached-rows.ts'
import { createDeferredSearch } from './deferred.ts'
import type { LocalSearch } from './search.ts'

let db: OutpostDb
let search: LocalSearch | undefined
afterEach(() => {
  search?.dispose()
  db?.close()
})

const epic = (id: number, name: string) => cachedEpic(id, { name })

async function filled(): Promise<OutpostDb> {
  db = new OutpostDb(`deferred-search-${crypto.randomUUID()}`, { indexedDB, IDBKeyRange })
  await db.epics.bulkPut([epic(1, 'Billing export'), epic(2, 'Dashboard performance')])
  return db
}

it('answers nothing until its code is in, then what the index holds', async () => {
  search = createDeferredSearch(await filled())
  const versions: number[] = []
  search.version.subscribe((v) => versions.push(v))
  expect(search.query('billing')).toEqual([])
  expect(search.stats().building).toBe(true)
  await search.ready
  expect(search.query('billing').map((r) => r.id)).toEqual([1])
  expect(search.stats().documents).toBe(2)
  // Ticks after the first answer: a query typed before the code was in runs again.
  expect(versions.length).toBeGreaterThan(1)
})

it('follows changes once in, like the search it loads', async () => {
  search = createDeferredSearch(await filled())
  await search.ready
  await db.epics.put(epic(3, 'Xylophone initiative'))
  await search.settled()
  expect(search.query('xylophone').map((r) => r.id)).toEqual([3])
})

it('builds nothing when closed before its code is in', async () => {
  search = createDeferredSearch(await filled())
  search.dispose()
  await search.ready
  expect(search.query('billing')).toEqual([])
  expect(search.stats().documents).toBe(0)
})

it('a build the cache fails (its database closed: the workspace removed) is told to onError, never left unhandled', async () => {
  const errors: unknown[] = []
  const unhandled: unknown[] = []
  const onUnhandled = (error: unknown) => unhandled.push(error)
  process.on('unhandledRejection', onUnhandled)
  try {
    search = createDeferredSearch(await filled(), { onError: (error) => errors.push(error) })
    db.close()
    // Nobody awaits `ready` here, as the window does not.
    await vi.waitFor(() => expect(errors).toHaveLength(1))
    await new Promise((resolve) => setTimeout(resolve, 50))
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
  expect(errors).toHaveLength(1)
  expect(unhandled).toEqual([])
})
