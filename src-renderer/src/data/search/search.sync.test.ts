// The index against the real writers: the sync engine filling the cache from
// the real service over HTTP (bootstrap pages of 100 name no keys, so this
// exercises the rescans), then an incremental run after a change on the service.
import { afterEach, expect, it } from 'vitest'
import { createSyncer } from '../sync/index.ts'
import { startWorld, type World } from '../../../../testing/sync-kit.ts'
import { createSearch } from './index.ts'
import { markdownText, terms } from './text.ts'

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

it('follows a bootstrap and an incremental sync from the service', async () => {
  world = await startWorld({ seed: { epics: 250, docs: 30, files: 5 } })
  const db = world.openDb()
  // Created before the bootstrap: the index follows the cache as it fills.
  const search = createSearch(db)
  const syncer = createSyncer({ db, transport: world.transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
  await syncer.sync()
  await search.settled()

  const epics = await db.epics.toArray()
  const docs = await db.docs.toArray()
  expect(epics.length).toBe(250)
  for (const epic of epics) {
    expect(search.query(epic.name, { kinds: ['epic'], limit: 250 }).map((r) => r.id)).toContain(epic.id)
  }
  for (const doc of docs) {
    expect(search.query(doc.title, { kinds: ['doc'], limit: 30 }).map((r) => r.id)).toContain(doc.id)
    // And by a word of its markdown.
    const word = terms(markdownText(doc.content_markdown)).sort((a, b) => b.length - a.length)[0]
    expect(search.query(word, { kinds: ['doc'], limit: 30 }).map((r) => r.id)).toContain(doc.id)
  }
  const indexed = search.stats().documents
  expect(indexed).toBeGreaterThanOrEqual(epics.length + docs.length)

  // A change on the service reaches the index with the next incremental run.
  const renamed = epics[42]
  await world.transport.call('epics.update', { params: { id: Number(renamed.id) }, body: { name: 'Xylophone initiative' } })
  await syncer.sync()
  await search.settled()
  expect(search.query('xylophone')[0]).toMatchObject({ kind: 'epic', id: renamed.id, title: 'Xylophone initiative' })
  expect(search.stats().documents).toBe(indexed)
  search.dispose()
})
