// A screen's live query (live-source.ts) goes on through a failed run: it is
// started again by itself, and then follows the cache's commits as before.
import 'fake-indexeddb/auto'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { OutpostDb } from './db.ts'
import { mergedEpic } from './overlay.ts'
import { cachedEpic } from '../../../testing/cached-rows.ts'
import { liveSource } from './live-source.ts'
import { RETRY_FIRST_MS } from './watch.ts'
import type { CachedEpic } from './types.ts'

let db: OutpostDb
let stop: (() => void) | undefined
beforeEach(async () => {
  db = new OutpostDb(`live-source-test-${crypto.randomUUID()}`)
  await db.open()
})
afterEach(async () => {
  stop?.()
  db.close()
  await db.delete()
})

const quiet = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it('a query whose first run failed runs again by itself, then follows the commits', async () => {
  await db.epics.put(cachedEpic(4, { name: 'Offline mode' }))
  const names: (string | undefined)[] = []
  const errors: unknown[] = []
  let runs = 0
  const query = () => (++runs === 1 ? Promise.reject(new Error('the read failed')) : mergedEpic(db, 4))
  stop = liveSource<CachedEpic | undefined>(query)({ next: (epic) => names.push(epic?.name), error: (e) => errors.push(e) })

  const until = async (test: () => boolean) => {
    const end = Date.now() + RETRY_FIRST_MS + 10_000
    while (!test() && Date.now() < end) await quiet(20)
  }
  await until(() => names.length > 0)
  expect(errors).toEqual([new Error('the read failed')])
  expect(names).toEqual(['Offline mode'])

  await db.epics.put(cachedEpic(4, { name: 'Offline mode, renamed' }))
  await until(() => names.length > 1)
  expect(names).toEqual(['Offline mode', 'Offline mode, renamed'])
})

it('stops for good when stopped, even while waiting to run again', async () => {
  let runs = 0
  const errors: unknown[] = []
  stop = liveSource(() => (++runs, Promise.reject(new Error('the read failed'))))({ next: () => undefined, error: (e) => errors.push(e) })
  for (let waited = 0; errors.length === 0 && waited < 10_000; waited += 20) await quiet(20)
  stop()
  await quiet(RETRY_FIRST_MS + 200)
  expect(runs).toBe(1)
})
