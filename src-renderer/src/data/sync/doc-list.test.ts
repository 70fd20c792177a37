// A bootstrap stores the v3 list of every doc first (ids and titles: every doc
// in the doc list and its search after one request), while the doc pages bring
// each doc whole. The list never goes over a doc a page stored; a doc it named
// that no page brought was deleted meanwhile and goes; its failure costs none
// of the pages.
import { afterEach, describe, expect, it } from 'vitest'
import { v4 } from '../../../../testing/service.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'
import { TransportError } from '../transport.ts'
import { createSyncer, readCheckpoints, type SyncProgress } from './index.ts'

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

const DOCS = 450

/** The service's docs, by id: title and Markdown. */
async function serviceDocs(w: World): Promise<Map<string, { title: string; content_markdown: string }>> {
  const out = new Map<string, { title: string; content_markdown: string }>()
  let url: string | undefined = '/documents?limit=100&filter=include_archived'
  while (url) {
    const page = (await v4(w.service).get(url)).body as { entities: { id: string; title: string; content_markdown: string }[]; next_page_url?: string | null }
    for (const d of page.entities) out.set(d.id, { title: d.title, content_markdown: d.content_markdown })
    url = page.next_page_url ? page.next_page_url.slice(page.next_page_url.indexOf('/documents')) : undefined
  }
  return out
}

/** The cache holds every doc of the service whole, as the service has it, and no other. */
async function expectServiceCopy(w: World, db: ReturnType<World['openDb']>) {
  const served = await serviceDocs(w)
  const cached = await db.docs.toArray()
  expect(cached.map((d) => String(d.id)).sort()).toEqual([...served.keys()].sort())
  for (const d of cached) {
    expect(d.partial).toBeUndefined()
    expect(d).toMatchObject(served.get(String(d.id))!)
  }
}

/** A syncer whose doc pages are asked for only once `gate` has resolved. */
function gated(w: World, gate: () => Promise<unknown>, onProgress?: (p: SyncProgress) => void) {
  const db = w.openDb()
  const transport = countingTransport(w.transport, async (operation) => {
    if (operation === 'documents.list') await gate()
  })
  return { db, transport, syncer: createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 }, onProgress }) }
}

describe("the bootstrap's list of every doc", () => {
  it('lists every doc by its title before any doc page came, and each is whole at the end', async () => {
    world = await startWorld({ seed: { epics: 10, docs: DOCS, files: 0 } })
    const w = world
    let listed!: () => void
    const listStored = new Promise<void>((resolve) => (listed = resolve))
    let atList: { count: number; partial: number; titled: number } | undefined
    const { db, transport, syncer } = gated(
      w,
      () => listStored,
      (p) => {
        if (p.kind !== 'docList') return
        void (async () => {
          const rows = await db.docs.toArray()
          atList = { count: rows.length, partial: rows.filter((d) => d.partial).length, titled: rows.filter((d) => d.title.length > 0).length }
          listed()
        })()
      },
    )
    await syncer.sync()
    // Every doc, by its title, from the one request; none whole yet (no page was asked for).
    expect(atList).toEqual({ count: DOCS, partial: DOCS, titled: DOCS })
    expect(transport.counted.calls.get('documents.v3List')).toBe(1)
    await expectServiceCopy(w, db)
    expect((await readCheckpoints(db)).get('docList')).toMatchObject({ bootstrapped: true, failure: null })
  })

  it('leaves out a doc it named that was deleted before its page came, and takes in one created meanwhile', async () => {
    world = await startWorld({ seed: { epics: 10, docs: DOCS, files: 0 } })
    const w = world
    const api = v4(w.service)
    let changed!: () => void
    const changedNow = new Promise<void>((resolve) => (changed = resolve))
    let gone = ''
    let created = ''
    const { db, syncer } = gated(
      w,
      () => changedNow,
      (p) => {
        if (p.kind !== 'docList') return
        void (async () => {
          // Once the list is stored: one of its docs goes on the service, and a new one comes.
          gone = String((await db.docs.orderBy('id').first())!.id)
          expect((await api.delete(`/documents/${gone}`)).status).toBe(204)
          created = (await api.post('/documents', { title: 'Written during the bootstrap', content: 'New', content_format: 'markdown' })).body.id
          changed()
        })()
      },
    )
    await syncer.sync()
    expect(await db.docs.get(gone)).toBeUndefined()
    expect(await db.docs.get(created)).toMatchObject({ title: 'Written during the bootstrap' })
    await expectServiceCopy(w, db)
  })

  it('does not go over a doc a page stored before it came', async () => {
    world = await startWorld({ seed: { epics: 10, docs: DOCS, files: 0 } })
    const w = world
    const db = w.openDb()
    let pagesDone!: () => void
    const pagesStored = new Promise<void>((resolve) => (pagesDone = resolve))
    // The list is answered only once the doc walk has stored every doc.
    const transport = countingTransport(w.transport, async (operation) => {
      if (operation === 'documents.v3List') await pagesStored
    })
    const syncer = createSyncer({
      db,
      transport,
      clock: Date.now,
      options: { fileBudgetBytes: 0 },
      onProgress: (p) => p.kind === 'docs' && p.done === p.total && p.total === DOCS && pagesDone(),
    })
    await syncer.sync()
    expect(transport.counted.calls.get('documents.v3List')).toBe(1)
    await expectServiceCopy(w, db)
  })

  it('refused, costs none of the pages: every doc is stored whole, and the list is asked for again by the next run', async () => {
    world = await startWorld({ seed: { epics: 10, docs: DOCS, files: 0 } })
    const w = world
    const db = w.openDb()
    let refused = false
    const transport = countingTransport(w.transport, (operation) => {
      if (operation !== 'documents.v3List' || refused) return
      refused = true
      throw new TransportError({ kind: 'http', status: 503, message: 'Service unavailable' })
    })
    const syncer = createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
    // The service unavailable ends the run, once what came is stored.
    await expect(syncer.sync()).rejects.toMatchObject({ failure: { status: 503 } })
    await expectServiceCopy(w, db)
    const docPages = transport.counted.calls.get('documents.list')!

    transport.counted.reset()
    await syncer.sync()
    expect(transport.counted.calls.get('documents.v3List')).toBe(1)
    // The doc pages were not asked for again: one incremental page.
    expect(transport.counted.calls.get('documents.list')).toBe(1)
    expect(docPages).toBeGreaterThan(2)
    await expectServiceCopy(w, db)
  })
})
