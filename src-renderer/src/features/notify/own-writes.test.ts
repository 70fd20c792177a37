// The user's own changes, from any window of the workspace: two windows are two
// caches on one IndexedDB database (Dexie's hooks fire only in the one that
// writes), and Node's BroadcastChannel joins them as the browser's does.
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { actionsFor, fillCache, offline, startKit, type Kit } from '../../../../testing/outbox-kit.ts'
import { OutpostDb } from '../../data/db.ts'
import type { CachedEpic } from '../../data/types.ts'
import { OwnWrites } from './own-writes.ts'

let kit: Kit
let indexedDB: IDBFactory
let epics: CachedEpic[]
beforeAll(async () => {
  kit = await startKit()
  indexedDB = new IDBFactory()
  const db = new OutpostDb('own-writes', { indexedDB, IDBKeyRange })
  await fillCache(db, kit.transport)
  epics = (await db.epics.toArray()).filter((e) => !e.archived)
  db.close()
})
afterAll(() => kit.close())

/** A window of the workspace: its own database object on the shared database, and what it knows of the user's writes. */
function openWindow() {
  const db = new OutpostDb('own-writes', { indexedDB, IDBKeyRange })
  const own = new OwnWrites(db)
  const stop = own.start()
  return { db, own, close: () => (stop(), db.close()) }
}

const TWO_MINUTES = 120_000

describe('the user’s own changes', () => {
  it('a change made in one window is the user’s own in every other, and in its own', async () => {
    const a = openWindow()
    const b = openWindow()
    const [one, two] = epics.map((e) => String(e.id))
    expect(a.own.changedWithin(one, TWO_MINUTES)).toBe(false)
    await actionsFor(b.db, offline(kit.transport)).updateEpic(Number(one), { name: 'Renamed in window B' })
    expect(b.own.changedWithin(one, TWO_MINUTES)).toBe(true)
    await vi.waitFor(() => expect(a.own.changedWithin(one, TWO_MINUTES)).toBe(true))
    // Only what was changed.
    expect(a.own.changedWithin(two, TWO_MINUTES)).toBe(false)
    a.close()
    b.close()
  })

  it('a window that opens takes what the outbox holds as the user’s own', async () => {
    const a = openWindow()
    const target = String(epics[2].id)
    await actionsFor(a.db, offline(kit.transport)).updateEpic(Number(target), { name: 'Queued before the other window opened' })
    const later = openWindow()
    await vi.waitFor(() => expect(later.own.changedWithin(target, TWO_MINUTES)).toBe(true))
    a.close()
    later.close()
  })
})
