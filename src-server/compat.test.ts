// Compatibility: the official @shortcut/client package, unmodified, against a
// started service. v3 through ShortcutClient (axios), v4 through
// ShortcutV4Client (fetch) and its paginate() helper.
import { ShortcutClient } from '@shortcut/client'
import { ShortcutV4Client, summarizeShortcutV4Error } from '@shortcut/client/v4'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from './index.ts'
import { testService } from '../testing/service.ts'

let service: RunningService
let v3: ShortcutClient
let v4: ShortcutV4Client

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  v3 = new ShortcutClient(service.tokens.v3, { baseURL: service.baseUrl })
  v4 = new ShortcutV4Client({ token: service.tokens.admin, baseUrl: service.baseUrl })
})
afterAll(() => service.close())

/** The fields the client's v3 types mark required and the spec also lists (part 1 §2.3). */
const EPIC_SLIM_FIELDS = [
  'app_url',
  'archived',
  'started',
  'entity_type',
  'labels',
  'mention_ids',
  'member_mention_ids',
  'associated_groups',
  'project_ids',
  'stories_without_projects',
  'objective_ids',
  'name',
  'completed',
  'state',
  'requested_by_id',
  'epic_state_id',
  'label_ids',
  'group_mention_ids',
  'follower_ids',
  'group_ids',
  'owner_ids',
  'id',
  'position',
  'stats',
]
const EPIC_FIELDS = [...EPIC_SLIM_FIELDS, 'description', 'comments']
const DOC_FIELDS = ['id', 'app_url', 'created_at', 'updated_at', 'archived']
const FILE_FIELDS = [
  'entity_type',
  'story_ids',
  'mention_ids',
  'member_mention_ids',
  'name',
  'size',
  'uploader_id',
  'content_type',
  'filename',
  'group_mention_ids',
  'id',
  'created_at',
]
const LIST_FIELDS = ['current_items', 'current_page', 'entities', 'total_items', 'total_pages']

const keysOf = (o: object) => Object.keys(o)

describe('@shortcut/client v3 (ShortcutClient with baseURL)', () => {
  it('lists epics, creates one and updates it', async () => {
    const listed = await v3.listEpics()
    expect(listed.status).toBe(200)
    expect(listed.data.length).toBeGreaterThan(0)
    for (const e of listed.data) expect(keysOf(e)).toEqual(expect.arrayContaining(EPIC_SLIM_FIELDS))

    const created = await v3.createEpic({ name: 'Compat epic', description: 'Made by @shortcut/client' })
    expect(created.status).toBe(201)
    expect(keysOf(created.data)).toEqual(expect.arrayContaining(EPIC_FIELDS))
    expect(created.data).toMatchObject({ name: 'Compat epic', description: 'Made by @shortcut/client', archived: false })
    const id = created.data.id

    const workflow = await v3.getEpicWorkflow()
    const target = workflow.data.epic_states.find((s) => s.id !== created.data.epic_state_id)!
    const updated = await v3.updateEpic(id, { name: 'Compat epic, renamed', epic_state_id: target.id, archived: true })
    expect(updated.status).toBe(200)
    expect(updated.data).toMatchObject({ id, name: 'Compat epic, renamed', epic_state_id: target.id, archived: true })
    expect((await v3.getEpic(id)).data).toMatchObject({ name: 'Compat epic, renamed', epic_state_id: target.id, archived: true })
    expect((await v3.listEpics()).data.find((e) => e.id === id)?.name).toBe('Compat epic, renamed')
  })

  it('lists docs, creates one from markdown and updates it', async () => {
    const listed = await v3.listDocs()
    expect(listed.status).toBe(200)
    expect(listed.data.length).toBeGreaterThan(0)
    for (const d of listed.data) expect(keysOf(d)).toEqual(expect.arrayContaining(['id', 'app_url']))

    const created = await v3.createDoc({ title: 'Compat doc', content: '# Hello\n\nFrom the **official** client.', content_format: 'markdown' })
    expect(created.status).toBe(201)
    expect(created.data).toMatchObject({ title: 'Compat doc' })
    const id = created.data.id

    const read = await v3.getDoc(id, { content_format: 'markdown' })
    expect(keysOf(read.data)).toEqual(expect.arrayContaining(DOC_FIELDS))
    expect(read.data.content_markdown).toContain('**official**')

    const updated = await v3.updateDoc(id, { title: 'Compat doc, edited', content: 'Plain *markdown* now.', content_format: 'markdown' })
    expect(updated.status).toBe(200)
    expect(updated.data.title).toBe('Compat doc, edited')
    const html = await v3.getDoc(id, { content_format: 'html' })
    expect(html.data.content_html).toContain('<em>markdown</em>')
    expect((await v3.listDocs()).data.find((d) => d.id === id)?.title).toBe('Compat doc, edited')
  })

  it('uploads a file (uploadFiles, multipart file0) whose bytes are served at its url', async () => {
    const bytes = Buffer.from('compatibility bytes \u2713\n', 'utf8')
    const uploaded = await v3.uploadFiles({ file0: new File([bytes], 'compat.txt', { type: 'text/plain' }) })
    expect(uploaded.status).toBe(201)
    expect(uploaded.data).toHaveLength(1)
    const file = uploaded.data[0]
    expect(keysOf(file)).toEqual(expect.arrayContaining(FILE_FIELDS))
    expect(file).toMatchObject({ name: 'compat.txt', filename: 'compat.txt', size: bytes.length })
    expect(file.content_type).toMatch(/^text\/plain/)
    expect((await v3.getFile(file.id)).data.name).toBe('compat.txt')
    expect((await v3.listFiles()).data.some((f) => f.id === file.id)).toBe(true)

    const served = await request(file.url!, { headers: { 'shortcut-token': service.tokens.v3 } })
    expect(served.statusCode).toBe(200)
    expect(Buffer.from(await served.body.arrayBuffer()).equals(bytes)).toBe(true)
  })

  // axios sends these bodiless PUTs with `Content-Type: application/x-www-form-urlencoded` and no body.
  it('relates a doc to an epic and toggles story templates with bodiless PUTs', async () => {
    const epic = (await v3.createEpic({ name: 'Compat related epic' })).data
    const doc = (await v3.createDoc({ title: 'Compat related doc', content: '<p>x</p>' })).data
    expect((await v3.linkDocumentToEpic(doc.id, epic.id)).status).toBe(204)
    expect((await v3.listDocumentEpics(doc.id)).data.map((e) => e.id)).toEqual([epic.id])
    expect((await v3.listEpicDocuments(epic.id)).data.map((d) => d.id)).toEqual([doc.id])
    expect((await v3.unlinkDocumentFromEpic(doc.id, epic.id)).status).toBe(204)
    expect((await v3.listDocumentEpics(doc.id)).data).toEqual([])

    expect((await v3.disableStoryTemplates()).status).toBe(204)
    await expect(v3.listEntityTemplates()).rejects.toMatchObject({ response: { status: 403 } })
    expect((await v3.enableStoryTemplates()).status).toBe(204)
    expect((await v3.listEntityTemplates()).status).toBe(200)
  })

  it('deletes a doc with the body the client sends (GetDoc) and an epic without one', async () => {
    const doc = (await v3.createDoc({ title: 'Compat doomed doc', content: 'x' })).data
    expect((await v3.deleteDoc(doc.id, { content_format: 'markdown' })).status).toBe(204)
    await expect(v3.getDoc(doc.id)).rejects.toMatchObject({ response: { status: 404 } })
    const epic = (await v3.createEpic({ name: 'Compat doomed epic' })).data
    expect((await v3.deleteEpic(epic.id)).status).toBe(204)
    await expect(v3.getEpic(epic.id)).rejects.toMatchObject({ response: { status: 404 } })
  })

  it('registers, reads and deletes a webhook integration', async () => {
    const made = await v3.createGenericIntegration({ webhook_url: 'https://example.com/compat', secret: 'compat-secret' })
    expect(made.status).toBe(201)
    const body = made.data as unknown as { id: number; has_secret: boolean; webhook_url: string }
    expect(body).toMatchObject({ webhook_url: 'https://example.com/compat', has_secret: true })
    expect(JSON.stringify(body)).not.toContain('compat-secret')
    expect((await v3.getGenericIntegration(body.id)).status).toBe(200)
    expect((await v3.deleteGenericIntegration(body.id)).status).toBe(204)
    await expect(v3.getGenericIntegration(body.id)).rejects.toMatchObject({ response: { status: 404 } })
  })

  it('surfaces errors as axios rejections carrying the one error body', async () => {
    await expect(v3.getEpic(999_999_999)).rejects.toMatchObject({ response: { status: 404, data: { tag: 'not_found' } } })
    await expect(v3.createEpic({ name: 'x'.repeat(257) })).rejects.toMatchObject({ response: { status: 422, data: { errors: { name: expect.any(String) } } } })
  })
})

describe('@shortcut/client v4 (ShortcutV4Client with baseUrl)', () => {
  it('lists epics and paginates to the end: every item once, as many as total_items', async () => {
    const ws = v4.workspace(service.workspace)
    const first = await ws.listEpics({ limit: 7 })
    expect(keysOf(first)).toEqual(expect.arrayContaining(LIST_FIELDS))
    expect(first.total_pages).toBeGreaterThan(1)
    const ids: number[] = []
    for await (const epic of v4.paginate(ws.listEpics({ limit: 7 }))) ids.push(epic.id as number)
    expect(ids).toHaveLength(first.total_items)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('paginates epics including archived ones, with fields', async () => {
    const ws = v4.workspace(service.workspace)
    const first = await ws.listEpics({ limit: 5, filter: 'include_archived', fields: 'id,name,archived' })
    const all = []
    for await (const epic of v4.paginate(ws.listEpics({ limit: 5, filter: 'include_archived', fields: 'id,name,archived' }))) all.push(epic)
    expect(all).toHaveLength(first.total_items)
    for (const e of all) expect(keysOf(e).sort()).toEqual(['archived', 'id', 'name'])
    expect(all.some((e) => e.archived)).toBe(true)
  })

  it('lists docs and paginates to the end', async () => {
    const ws = v4.workspace(service.workspace)
    const first = await ws.listDocs({ limit: 3 })
    expect(keysOf(first)).toEqual(expect.arrayContaining(LIST_FIELDS))
    expect(first.total_pages).toBeGreaterThan(1)
    const ids: string[] = []
    for await (const doc of v4.paginate(ws.listDocs({ limit: 3 }))) ids.push(doc.id as string)
    expect(ids).toHaveLength(first.total_items)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("rejects with the one error body, whose tag the client's log-safe summary keeps", async () => {
    const ws = v4.workspace(service.workspace)
    const missing = await ws.getEpic(999_999_999).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(summarizeShortcutV4Error(missing)).toEqual({ method: 'GET', path: `/api/v4/${service.workspace}/epics/999999999`, status: 404, tag: 'not_found' })
    const refused = await ws.createEpic({ name: 'x'.repeat(257) }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(summarizeShortcutV4Error(refused)).toMatchObject({ method: 'POST', status: expect.any(Number), tag: expect.stringMatching(/^[a-z][a-z0-9_]*$/) })
  })

  it("creates and reads an epic and a doc, each answered in the client's {entity} wrapper", async () => {
    const ws = v4.workspace(service.workspace)
    const { entity: epic } = await ws.createEpic({ name: 'Compat v4 epic' })
    expect(epic).toMatchObject({ entity_type: 'epic', name: 'Compat v4 epic' })
    expect((await ws.getEpic(epic.id!, { fields: 'id,name' })).entity).toEqual({ id: epic.id, name: 'Compat v4 epic' })
    const { entity: doc } = await ws.createDoc({ title: 'Compat v4 doc', content: '<p>Hi</p>' })
    expect(doc).toMatchObject({ entity_type: 'doc', title: 'Compat v4 doc' })
    // content_format is in the spec but not in the client's types.
    const read = await ws.getDoc(doc.id!, { content_format: 'html' } as { fields?: string })
    expect(read.entity.content_html).toContain('Hi')
  })
})
