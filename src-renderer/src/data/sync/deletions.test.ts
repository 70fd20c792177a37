// Deletions: what the service no longer has leaves the cache, found by the id
// sweeps (when due), by whole lists, and by 404 when an entity is opened.
// Local unconfirmed changes (overlay, outbox) are never touched by sync.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { v3 } from '../../../../testing/service.ts'
import type { OutboxRecord, OverlayRow } from '../types.ts'
import { createSyncer, DEFAULT_SYNC_OPTIONS, FileGoneError, type Syncer } from './index.ts'
import { countingTransport, serviceCounts, startWorld, type World } from '../../../../testing/sync-kit.ts'

let world: World
let localNow = 5_000_000
let transport: ReturnType<typeof countingTransport>
let syncer: Syncer
let db: ReturnType<World['openDb']>

const OVERLAY: OverlayRow[] = []
const OUTBOX: OutboxRecord[] = []

beforeAll(async () => {
  world = await startWorld({ seed: 'demo' })
  db = world.openDb()
  transport = countingTransport(world.transport)
  syncer = createSyncer({ db, transport, clock: () => localNow, options: { fileBudgetBytes: 0 } })
  await syncer.sync()
  // Local, unconfirmed changes, some of them about entities that are about to be deleted on the service.
  const [epicA, epicB] = (await db.epics.limit(2).toArray()).map((e) => e.id)
  const doc = (await db.docs.limit(1).toArray())[0].id
  OVERLAY.push(
    { kind: 'epic', id: String(epicA), patch: { name: 'Mine' }, created: false, deleted: false, updatedAt: 1 },
    { kind: 'epic', id: 'local:1b7e', patch: { id: 'local:1b7e', name: 'Created offline' }, created: true, deleted: false, updatedAt: 2 },
    { kind: 'doc', id: String(doc), patch: { title: 'My title' }, created: false, deleted: false, updatedAt: 3 },
    { kind: 'epic', id: String(epicB), patch: {}, created: false, deleted: true, updatedAt: 4 },
  )
  OUTBOX.push(
    {
      seq: 1,
      kind: 'epic',
      entityId: String(epicA),
      op: 'update',
      payload: { name: 'Mine' },
      base: { name: 'Theirs' },
      state: 'pending',
      attempts: 0,
      createdAt: 1,
      updatedAt: 1,
    },
    {
      seq: 2,
      kind: 'epic',
      entityId: 'local:1b7e',
      op: 'create',
      payload: { name: 'Created offline' },
      base: {},
      state: 'in-flight',
      attempts: 1,
      createdAt: 2,
      updatedAt: 2,
    },
    {
      seq: 3,
      kind: 'doc',
      entityId: String(doc),
      op: 'update',
      payload: { title: 'My title' },
      base: {},
      state: 'failed',
      attempts: 1,
      createdAt: 3,
      updatedAt: 3,
    },
  )
  await db.overlay.bulkPut(OVERLAY)
  await db.outbox.bulkPut(OUTBOX)
})
afterAll(() => world.close())

async function expectLocalChangesUntouched() {
  expect(await db.overlay.toArray()).toEqual(expect.arrayContaining(OVERLAY))
  expect(await db.overlay.count()).toBe(OVERLAY.length)
  expect(await db.outbox.toArray()).toEqual(OUTBOX)
}

describe('deletions', () => {
  it('the walks do not see deletions; the sweeps (when due) remove epics with their comments, health and links, and docs', async () => {
    // An epic with comments and health, and a local edit queued for it (which the sweep leaves alone).
    const commented = new Set((await db.epicComments.toArray()).map((c) => c.epic_id))
    const rated = new Set((await db.epicHealth.toArray()).map((h) => h.epic_id))
    const epic = (await db.epics.toArray()).find((e) => commented.has(e.id) && rated.has(e.id))!
    const overlay: OverlayRow = { kind: 'epic', id: String(epic.id), patch: { description: 'Mine too' }, created: false, deleted: false, updatedAt: 5 }
    OVERLAY.push(overlay)
    await db.overlay.put(overlay)
    const docId = (await db.docs.toArray())[0].id
    await db.docEpics.put({ doc_id: docId, epic_id: epic.id })
    expect((await v3(world.service).delete(`/epics/${epic.id}`)).status).toBe(204)
    expect((await v3(world.service).delete(`/documents/${docId}`)).status).toBe(204)

    transport.counted.reset()
    await syncer.sync()
    expect(await db.epics.get(epic.id)).toBeDefined()
    expect(transport.counted.calls.get('epics.v3List')).toBeUndefined()

    localNow += DEFAULT_SYNC_OPTIONS.sweepIntervalMs
    transport.counted.reset()
    const report = await syncer.sync()
    expect(transport.counted.calls.get('epics.v3List')).toBe(1)
    // A sweep needs ids, positions and progress only: the rest of 10,000 epics (most of 17 MB) is not sent to the window.
    expect(transport.counted.log.find((l) => l.operation === 'epics.v3List')?.request.fields).toEqual(['id', 'position', 'stats'])
    expect(transport.counted.calls.get('documents.v3List')).toBe(1)
    expect(report.removed).toBeGreaterThanOrEqual(2)
    expect(await db.epics.get(epic.id)).toBeUndefined()
    expect(await db.epicComments.where('epic_id').equals(epic.id).count()).toBe(0)
    expect(await db.epicHealth.where('epic_id').equals(epic.id).count()).toBe(0)
    expect(await db.docs.get(docId)).toBeUndefined()
    expect(await db.docEpics.where('doc_id').equals(docId).count()).toBe(0)
    expect(await db.epics.count()).toBe(serviceCounts(world.service).epics)
    await expectLocalChangesUntouched()
  })

  it('whole lists drop what the service no longer lists: a file (and its content), a category', async () => {
    const file = (await db.files.toArray())[0]
    const content = await syncer.openFile(file.id)
    expect(existsSync(content.path)).toBe(true)
    const category = (await db.categories.toArray())[0]
    await v3(world.service).delete(`/files/${file.id}`)
    await v3(world.service).delete(`/categories/${category.id}`)
    await syncer.sync({ force: true })
    expect(await db.files.get(file.id)).toBeUndefined()
    expect(await db.fileContents.get(file.id)).toBeUndefined()
    expect(existsSync(content.path)).toBe(false)
    expect(await db.categories.get(category.id)).toBeUndefined()
    await expectLocalChangesUntouched()
  })

  it('a sweep removes only rows cached before its list was asked for, not one written back meanwhile', async () => {
    const template = (await db.epics.toArray())[0]
    const stale = { ...template, id: 900_001 } // cached, unknown to the service: deleted there
    const writtenBack = { ...template, id: 900_002 } // stored while the list is on its way (an outbox create, say)
    await db.epics.put(stale)
    // Stored after the sweep read what the cache held, before the service makes its list.
    const racing = countingTransport(world.transport, (operation) => (operation === 'epics.v3List' ? db.epics.put(writtenBack) : undefined))
    const sweeper = createSyncer({ db, transport: racing, clock: () => localNow, options: { fileBudgetBytes: 0 } })
    await sweeper.sync({ force: true })
    expect(await db.epics.get(stale.id)).toBeUndefined()
    expect(await db.epics.get(writtenBack.id)).toBeDefined()
    // The next sweep finds it gone (the service never had it).
    await sweeper.sync({ force: true })
    expect(await db.epics.get(writtenBack.id)).toBeUndefined()
    await expectLocalChangesUntouched()
  })

  it('a 404 on open removes the entity: refreshEpic, refreshDoc, openFile', async () => {
    const commented = new Set((await db.epicComments.toArray()).map((c) => c.epic_id))
    const epic = (await db.epics.toArray()).find((e) => commented.has(e.id))!
    await v3(world.service).delete(`/epics/${epic.id}`)
    expect(await syncer.refreshEpic(epic.id as number)).toBeNull()
    expect(await db.epics.get(epic.id)).toBeUndefined()
    expect(await db.epicComments.where('epic_id').equals(epic.id).count()).toBe(0)

    const doc = (await db.docs.toArray())[0]
    await v3(world.service).delete(`/documents/${doc.id}`)
    expect(await syncer.refreshDoc(doc.id as string)).toBeNull()
    expect(await db.docs.get(doc.id)).toBeUndefined()

    const file = (await db.files.toArray())[0]
    await v3(world.service).delete(`/files/${file.id}`)
    await expect(syncer.openFile(file.id)).rejects.toBeInstanceOf(FileGoneError)
    expect(await db.files.get(file.id)).toBeUndefined()
    await expectLocalChangesUntouched()
  })
})

describe('refresh on open', () => {
  it("keeps a comment made after the version it answers (the user's own, confirmed while the answer came), and drops one deleted before", async () => {
    const [epicId] = world.service.ctx.col<any>('epic').ids().map(Number)
    const gone = (await v3(world.service).post(`/epics/${epicId}/comments`, { text: 'Deleted on the service' })).body
    await syncer.refreshEpic(epicId)
    expect(await db.epicComments.get(gone.id)).toBeDefined()
    await v3(world.service).delete(`/epics/${epicId}/comments/${gone.id}`)
    // The GET is served; the user's comment lands on the service and in the cache before its answer is stored.
    let made: { id: number } | undefined
    const late = createSyncer({
      db,
      clock: () => localNow,
      options: { fileBudgetBytes: 0 },
      transport: {
        ...transport,
        call: async <T>(operation: Parameters<typeof transport.call>[0], request?: Parameters<typeof transport.call>[1]) => {
          const answer = await transport.call<T>(operation, request)
          if (operation === 'epics.v3Get' && !made) {
            await new Promise((resolve) => setTimeout(resolve, 5))
            made = (await v3(world.service).post(`/epics/${epicId}/comments`, { text: 'Made while the answer came' })).body
            await db.epicComments.put({
              id: made!.id,
              epic_id: epicId,
              parent_id: null,
              author_id: null,
              text: 'Made while the answer came',
              deleted: false,
              external_id: null,
              created_at: (made as any).created_at,
              updated_at: (made as any).updated_at,
            })
          }
          return answer
        },
      },
    })
    await late.refreshEpic(epicId)
    expect(await db.epicComments.get(made!.id)).toMatchObject({ text: 'Made while the answer came' })
    expect(await db.epicComments.get(gone.id)).toBeUndefined()
  })

  it('loads an epic with full comments (authors, replies), health text, doc links and stories in 4 requests', async () => {
    const withReplies = world.service.ctx
      .col<any>('epic_comment')
      .all()
      .find((c: any) => c.parent_id !== null && world.service.ctx.col<any>('epic').get(c.epic_id))
    const epicId = withReplies.epic_id as number
    const docId = world.service.ctx.col<any>('doc').ids()[0] as string
    await v3(world.service).put(`/documents/${docId}/epics/${epicId}`)
    await v3(world.service).post(`/epics/${epicId}/health`, { status: 'Off Track', text: 'Blocked on review' })
    await syncer.sync()
    expect((await db.epicComments.get(withReplies.id))?.slim).toBe(true)

    transport.counted.reset()
    const epic = await syncer.refreshEpic(epicId)
    expect(transport.counted.total()).toBe(4)
    const served = (await v3(world.service).get(`/epics/${epicId}`)).body
    expect(epic).toMatchObject({ id: epicId, name: served.name, description: served.description, position: served.position })
    const reply = await db.epicComments.get(withReplies.id)
    expect(reply).toMatchObject({ parent_id: withReplies.parent_id, author_id: withReplies.author_id, created_at: withReplies.created_at, slim: false })
    const history = (await v3(world.service).get(`/epics/${epicId}/health-history`)).body as any[]
    const cachedHealth = await db.epicHealth.where('epic_id').equals(epicId).toArray()
    expect(cachedHealth.map((h) => [h.id, h.status, h.text, h.author_id]).sort()).toEqual(history.map((h) => [h.id, h.status, h.text, h.author_id]).sort())
    expect(cachedHealth.filter((h) => h.status === 'Off Track' && h.text === 'Blocked on review')).toHaveLength(1)
    expect(await db.docEpics.where('epic_id').equals(epicId).toArray()).toEqual([{ doc_id: docId, epic_id: epicId }])

    // The next sync brings the same version: the full rows stay full.
    await syncer.sync()
    expect((await db.epicComments.get(withReplies.id))?.slim).toBe(false)
  })

  it('loads a doc in both formats with its epic links', async () => {
    const docId = world.service.ctx.col<any>('doc').ids()[0] as string
    const doc = await syncer.refreshDoc(docId)
    const markdown = (await v3(world.service).get(`/documents/${docId}`, { query: { content_format: 'markdown' } })).body
    const html = (await v3(world.service).get(`/documents/${docId}`, { query: { content_format: 'html' } })).body
    expect(doc).toMatchObject({ id: docId, content_markdown: markdown.content_markdown, content_html: html.content_html })
    const links = (await v3(world.service).get(`/documents/${docId}/epics`)).body as any[]
    expect((await db.docEpics.where('doc_id').equals(docId).toArray()).map((l) => l.epic_id).sort()).toEqual(links.map((e) => e.id).sort())
  })
})
