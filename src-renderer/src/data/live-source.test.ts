// A screen's live query (live-source.ts) goes on through a failed run: it is
// started again by itself, and then follows the cache's commits as before. A
// read of small tables follows their commits, and only theirs.
import 'fake-indexeddb/auto'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { OutpostDb } from './db.ts'
import { mergedEpic, mergedLabels } from './overlay.ts'
import { cachedEpic } from '../../../testing/cached-rows.ts'
import { liveSource, metaRow, overlayOf, tablesSource } from './live-source.ts'
import { RETRY_FIRST_MS } from './watch.ts'
import type { CachedEpic, CachedLabel } from './types.ts'

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

const label = (id: number, name: string): CachedLabel => ({ id, name, color: null, archived: false })

/** Waits until `test` holds (a read of fake-indexeddb after a commit takes a few turns). */
async function until(test: () => boolean, ms = 5_000): Promise<void> {
  for (const end = Date.now() + ms; !test() && Date.now() < end;) await quiet(10)
}

it('a read of small tables follows their commits and its kind of overlay rows, and nothing else', async () => {
  await db.labels.put(label(1, 'ux'))
  const answers: string[][] = []
  let reads = 0
  stop = tablesSource(
    db,
    [{ table: 'labels' }, overlayOf('label')],
    () => (reads++, mergedLabels(db)),
  )({
    next: (labels) => answers.push(labels.map((l) => l.name).sort()),
    error: (e) => {
      throw e
    },
  })
  await until(() => answers.length === 1)
  expect(answers).toEqual([['ux']])

  // A bootstrap's commits to other tables, and another kind's overlay rows: no read.
  await db.epics.bulkPut([cachedEpic(1), cachedEpic(2)])
  await db.overlay.put({ kind: 'epic', id: '1', patch: { name: 'Renamed' }, created: false, deleted: false, updatedAt: 1 })
  await db.meta.put({ key: 'sync.status', value: { phase: 'bootstrap' } })
  await quiet(100)
  expect(reads).toBe(1)

  // Its table, then a label renamed here (its overlay row): read again each time.
  await db.labels.put(label(2, 'security'))
  await until(() => answers.length === 2)
  await db.overlay.put({ kind: 'label', id: '1', patch: { name: 'design' }, created: false, deleted: false, updatedAt: 2 })
  await until(() => answers.length === 3)
  expect(answers).toEqual([['ux'], ['security', 'ux'], ['design', 'security']])
})

it('a row of meta is followed alone: the other rows of meta do not read it again', async () => {
  const values: unknown[] = []
  stop = tablesSource(
    db,
    [metaRow('outbox:paused')],
    async () => (await db.meta.get('outbox:paused'))?.value ?? null,
  )({
    next: (value) => values.push(value),
    error: (e) => {
      throw e
    },
  })
  await until(() => values.length === 1)
  await db.meta.put({ key: 'sync.status', value: { phase: 'bootstrap' } })
  await quiet(100)
  expect(values).toEqual([null])
  await db.meta.put({ key: 'outbox:paused', value: { reason: 'read-only' } })
  await until(() => values.length === 2)
  expect(values).toEqual([null, { reason: 'read-only' }])
})

it('a read of a table it does not follow fails at once rather than going stale', async () => {
  const errors: unknown[] = []
  stop = tablesSource(db, [{ table: 'labels' }], () => db.members.toArray())({ next: () => undefined, error: (e) => errors.push(e) })
  await until(() => errors.length > 0)
  expect((errors[0] as Error).name).toBe('NotFoundError')
})
