// Incremental sync: changes made through the API reach the cache in one page
// per kind; equal updated_at values (at the checkpoint, across a page
// boundary) are never skipped; rows already cached are not rewritten; whole
// lists are fetched again only when due.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { v3, v4 } from '../../../../testing/service.ts'
import { createSyncer, DEFAULT_SYNC_OPTIONS, type Syncer } from './index.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'

let world: World
/** The service's clock: frozen unless a test moves it. */
let serviceNow = Date.parse('2025-06-02T09:00:00.000Z')
/** The engine's clock (when lists are due). */
let localNow = 1_000_000
let transport: ReturnType<typeof countingTransport>
let syncer: Syncer
let db: ReturnType<World['openDb']>

beforeAll(async () => {
  world = await startWorld({ seed: { epics: 300, docs: 40, files: 6 }, clock: () => serviceNow })
  db = world.openDb()
  transport = countingTransport(world.transport)
  syncer = createSyncer({ db, transport, clock: () => localNow, options: { fileBudgetBytes: 0 } })
  await syncer.sync()
})
afterAll(() => world.close())

const tick = (ms = 60_000) => {
  serviceNow += ms
}

async function syncCounting() {
  transport.counted.reset()
  const report = await syncer.sync()
  return { report, calls: Object.fromEntries(transport.counted.calls) }
}

const epicIds = () => world.service.ctx.col<any>('epic').ids().map(Number)

describe('incremental sync', () => {
  it('brings edits, comments, health, new, archived epics and docs in one page each', async () => {
    tick()
    const [a, b, c] = epicIds()
    await v4(world.service).patch('/epics/bulk', {
      epics: [
        { id: a, name: 'Renamed offline-first' },
        { id: b, archived: true },
      ],
    })
    const comment = (await v3(world.service).post(`/epics/${c}/comments`, { text: 'A new comment' })).body
    await v3(world.service).post(`/epics/${a}/health`, { status: 'At Risk', text: 'Slipping' })
    const created = (await v4(world.service).post('/epics', { name: 'Brand new epic' })).body
    const docId = world.service.ctx.col<any>('doc').ids()[0]
    await v3(world.service).put(`/documents/${docId}`, { content: '# Changed\n\nNew **text**', content_format: 'markdown' })
    const newDoc = (await v4(world.service).post('/documents', { title: 'Fresh doc', content: 'Hello *there*', content_format: 'markdown' })).body
    tick()

    const { calls } = await syncCounting()
    expect(calls).toEqual({ 'epics.list': 1, 'documents.list': 1 })
    expect(await db.epics.get(a)).toMatchObject({ name: 'Renamed offline-first' })
    expect(await db.epics.get(b)).toMatchObject({ archived: true })
    expect(await db.epicComments.get(comment.id)).toMatchObject({ epic_id: c, text: 'A new comment', deleted: false, slim: true })
    const health = await db.epicHealth.where('epic_id').equals(a).toArray()
    expect(health.some((h) => h.status === 'At Risk')).toBe(true)
    // A new epic goes where the service puts it (v4 has no position; the cache places it last, as the service does).
    const servedNew = (await v3(world.service).get(`/epics/${created.id}`)).body
    expect(await db.epics.get(created.id)).toMatchObject({ name: 'Brand new epic', position: servedNew.position })
    const doc = await db.docs.get(docId)
    expect(doc?.content_markdown).toContain('# Changed')
    // The pages carry the Markdown alone: the HTML of the version before is not kept under the new text.
    expect(doc?.content_html).toBe('')
    expect(await db.docs.get(newDoc.id)).toMatchObject({ title: 'Fresh doc', content_markdown: 'Hello *there*', content_html: '' })
    // Opened, a doc brings the service's HTML of its version.
    expect((await syncer.refreshDoc(String(docId)))?.content_html).toContain('<strong>text</strong>')
  })

  it('takes a comment the service deleted out of the cache, and leaves the epic’s other comments and other epics’ as they were', async () => {
    const comments = await db.epicComments.toArray()
    const byEpic = new Map<(typeof comments)[number]['epic_id'], typeof comments>()
    for (const c of comments) byEpic.set(c.epic_id, [...(byEpic.get(c.epic_id) ?? []), c])
    const [epicId, own] = [...byEpic].find(([, list]) => list.length >= 2 && list.every((c) => !c.parent_id))!
    const elsewhere = comments.find((c) => c.epic_id !== epicId)!
    tick()
    await v3(world.service).delete(`/epics/${epicId}/comments/${own[0].id}`)
    await v4(world.service).patch('/epics/bulk', { epics: [{ id: epicId, name: 'Its comment deleted' }] })
    tick()

    await syncCounting()
    expect(await db.epics.get(epicId)).toMatchObject({ name: 'Its comment deleted' })
    expect(await db.epicComments.get(own[0].id)).toBeUndefined()
    expect((await db.epicComments.where('epic_id').equals(epicId).toArray()).map((c) => c.id).sort()).toEqual(
      own
        .slice(1)
        .map((c) => c.id)
        .sort(),
    )
    expect(await db.epicComments.get(elsewhere.id)).toEqual(elsewhere)
  })

  it('never skips a change made at the same instant as the newest one already synced', async () => {
    tick()
    const [, , , d, e] = epicIds()
    await v4(world.service).patch('/epics/bulk', { epics: [{ id: d, name: 'First at T' }] })
    await syncCounting()
    expect(await db.epics.get(d)).toMatchObject({ name: 'First at T' })
    // Same service instant: same updated_at as the checkpoint.
    await v4(world.service).patch('/epics/bulk', { epics: [{ id: e, name: 'Second at T' }] })
    const served = world.service.ctx.col<any>('epic')
    expect(served.get(e).updated_at).toBe(served.get(d).updated_at)
    const { report } = await syncCounting()
    expect(await db.epics.get(e)).toMatchObject({ name: 'Second at T' })
    // The first one, met again in the overlap at the version already cached, is not rewritten.
    expect(report.written).toBe(1)
  })

  it('reads on across a page boundary of equal timestamps, and stops at the first page older than the checkpoint', async () => {
    tick()
    const ids = epicIds().slice(10, 160)
    await v4(world.service).patch('/epics/bulk', { epics: ids.slice(0, 100).map((id) => ({ id, name: `Bulk ${id}` })) })
    await v4(world.service).patch('/epics/bulk', { epics: ids.slice(100).map((id) => ({ id, name: `Bulk ${id}` })) })
    const { calls, report } = await syncCounting()
    // 150 at one instant: page 1 holds 100 of them, page 2 the other 50 and older ones, where the walk stops.
    expect(calls['epics.list']).toBe(2)
    expect(report.written).toBe(150)
    for (const id of ids) expect((await db.epics.get(id))?.name).toBe(`Bulk ${id}`)

    // Nothing new: the overlap reads the same 150 again and writes none of them.
    const again = await syncCounting()
    expect(again.calls['epics.list']).toBe(2)
    expect(again.report.written).toBe(0)
  })

  it('fetches reference data and files again only when due', async () => {
    tick()
    const category = (await v3(world.service).post('/categories', { name: 'Due later', color: '#aabbcc' })).body
    // (The walks read two epic pages: the 150 epics of the test above are still within the overlap.)
    const walks = ['documents.list', 'epics.list']
    const first = await syncCounting()
    expect(Object.keys(first.calls).sort()).toEqual(walks)
    expect(await db.categories.get(category.id)).toBeUndefined()

    localNow += DEFAULT_SYNC_OPTIONS.filesIntervalMs
    const files = await syncCounting()
    expect(Object.keys(files.calls).sort()).toEqual([...walks, 'files.list', 'linkedFiles.list'].sort())

    localNow += DEFAULT_SYNC_OPTIONS.referenceIntervalMs
    const all = await syncCounting()
    for (const op of [
      'members.list',
      'groups.list',
      'epicWorkflow.states',
      'categories.v3List',
      'objectives.list',
      'labels.list',
      'customFields.list',
    ] as const) {
      expect(all.calls[op]).toBe(1)
    }
    expect(await db.categories.get(category.id)).toMatchObject({ name: 'Due later', color: '#aabbcc' })
  })
})
