// Docs and collections over v3 and v4: every operation's success and error
// paths, the feature switches, markdown round trips, fuzzy search and the
// server-sent events editors receive.
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Tokens } from '../../auth.ts'
import type { RunningService } from '../../index.ts'
import { startService } from '../../index.ts'
import { testService, v3, v4, walk, type Client } from '../../../testing/service.ts'
import type { MemberRecord } from '../members/member.ts'
import { htmlToMarkdown } from './markdown.ts'
import type { DocRecord } from './store.ts'

let service: RunningService
let memberV3: string
let observerV3: string
let maxId: string

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  const members = service.ctx.col<MemberRecord>('member').all()
  const max = members.find((m) => m.profile.mention_name === 'max')!
  const olga = members.find((m) => m.profile.mention_name === 'olga')!
  maxId = max.id
  const tokens = new Tokens(service.ctx)
  memberV3 = tokens.create('v3', max.id, 'docs test member').secret
  observerV3 = tokens.create('v3', olga.id, 'docs test observer').secret
})
afterAll(() => service.close())

const MISSING = '00000000-0000-4000-8000-000000000000'

/** An epic made through the service, so its doc lists show a whole epic. */
async function makeEpic(name: string): Promise<number> {
  const made = await v3(service).post('/epics', { name })
  expect(made.status).toBe(201)
  return made.body.id
}

/** Markdown in the form the service gives back, so a round trip returns it unchanged. */
const CANONICAL_MARKDOWN = `# Launch plan

Some **bold**, *emphasis*, ~~struck~~ and \`code\` with a [link](https://example.com/plan).

## Steps

1. First thing
2. Second thing
   - nested a
   - nested b
3. Third

- bullet
- another
- [ ] open task
- [x] done task

\`\`\`ts
const x = 1 | 2
\`\`\`

| Name | Owner | Due |
| :--- | :---: | ---: |
| API | Ada | 3 |
| UI \\| web | Max | 5 |

> A quote.

---

Final paragraph.`

describe('v3 docs', () => {
  it('lists the demo docs as DocSlim', async () => {
    const res = await v3(service).get('/documents')
    expect(res.status).toBe(200)
    expect(res.body.length).toBeGreaterThanOrEqual(12)
    expect(Object.keys(res.body[0]).sort()).toEqual(['app_url', 'id', 'title'])
    expect(res.body[0].app_url).toBe(`${service.baseUrl}/demo/write/doc/${res.body[0].id}`)
  })

  it('creates from markdown (201 DocSlim) and reads it back as markdown or HTML', async () => {
    const api = v3(service)
    const made = await api.post('/documents', { title: 'Round trip', content: CANONICAL_MARKDOWN, content_format: 'markdown' })
    expect(made.status).toBe(201)
    expect(Object.keys(made.body).sort()).toEqual(['app_url', 'id', 'title'])
    const md = await api.get(`/documents/${made.body.id}`)
    expect(md.status).toBe(200)
    expect(md.body).toMatchObject({ id: made.body.id, title: 'Round trip', archived: false, content_html: null })
    expect(md.body.content_markdown).toBe(CANONICAL_MARKDOWN)
    const html = await api.get(`/documents/${made.body.id}`, { query: { content_format: 'html' } })
    expect(html.body.content_markdown).toBeNull()
    expect(html.body.content_html).toContain('<h1>Launch plan</h1>')
    expect(html.body.content_html).toContain('<table>')
    expect(html.body.content_html).toContain('<a href="https://example.com/plan">link</a>')
    expect(html.body.content_html).toContain('<code class="language-ts">')
    // Writing back what was read changes nothing: the same HTML is stored.
    await api.put(`/documents/${made.body.id}`, { content: md.body.content_markdown, content_format: 'markdown' })
    expect((await api.get(`/documents/${made.body.id}`, { query: { content_format: 'html' } })).body.content_html).toBe(html.body.content_html)
  })

  it('stores HTML content as sent (the default input format) and converts it to markdown on read', async () => {
    const api = v3(service)
    const made = await api.post('/documents', {
      title: 'HTML doc',
      content: '<h2>Notes</h2><ul><li>one</li><li>two</li></ul><p>See <a href="https://example.com">this</a>.</p>',
    })
    const doc = await api.get(`/documents/${made.body.id}`)
    expect(doc.body.content_markdown).toBe('## Notes\n\n- one\n- two\n\nSee [this](https://example.com).')
    const html = await api.get(`/documents/${made.body.id}`, { query: { content_format: 'html' } })
    expect(html.body.content_html).toBe('<h2>Notes</h2><ul><li>one</li><li>two</li></ul><p>See <a href="https://example.com">this</a>.</p>')
  })

  it('updates title and content; content_format is the input format (default html) and the answer format (default markdown)', async () => {
    const api = v3(service)
    const made = await api.post('/documents', { title: 'Draft', content: '<p>old</p>' })
    const id = made.body.id
    const before = await api.get(`/documents/${id}`)
    const htmlIn = await api.put(`/documents/${id}`, { title: 'Final', content: '<p>new <strong>text</strong></p>' })
    expect(htmlIn.status).toBe(200)
    expect(htmlIn.body).toMatchObject({ id, title: 'Final', content_markdown: 'new **text**', content_html: null })
    expect(Date.parse(htmlIn.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.body.updated_at))
    const mdIn = await api.put(`/documents/${id}`, { content: '# Heading\n\n- a\n- b', content_format: 'markdown' })
    expect(mdIn.body.content_markdown).toBe('# Heading\n\n- a\n- b')
    const htmlOut = await api.put(`/documents/${id}`, { content: '<p>html out</p>', content_format: 'html' })
    expect(htmlOut.body).toMatchObject({ content_html: '<p>html out</p>', content_markdown: null })
    expect((await api.get(`/documents/${id}`)).body).toMatchObject({ title: 'Final', content_markdown: 'html out' })
  })

  it('answers 422 naming the title past 256 characters, and takes exactly 256', async () => {
    const api = v3(service)
    expect((await api.post('/documents', { title: 't'.repeat(256), content: '' })).status).toBe(201)
    const long = await api.post('/documents', { title: 't'.repeat(257), content: '' })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ title: 'must be at most 256 characters' })
    const made = await api.post('/documents', { title: 'ok', content: '' })
    const put = await api.put(`/documents/${made.body.id}`, { title: 'u'.repeat(257) })
    expect(put.status).toBe(422)
    expect(put.body.errors).toEqual({ title: 'must be at most 256 characters' })
  })

  it.each([
    [{ title: 'No content' }, 'content'],
    [{ content: 'no title' }, 'title'],
    [{ title: '', content: 'x' }, 'title'],
    [{ title: 'x', content: 'x', content_format: 'rtf' }, 'content_format'],
    [{ title: 'x', content: 'x', description: 'v3 has none' }, 'description'],
    [{ title: 42, content: 'x' }, 'title'],
  ])('answers 400 to a create body %o', async (body, field) => {
    const res = await v3(service).post('/documents', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('answers 404 for an unknown doc and 400 for a malformed id on every doc route', async () => {
    const api = v3(service)
    expect((await api.get(`/documents/${MISSING}`)).status).toBe(404)
    expect((await api.put(`/documents/${MISSING}`, { title: 'x' })).status).toBe(404)
    expect((await api.delete(`/documents/${MISSING}`)).status).toBe(404)
    expect((await api.get(`/documents/${MISSING}/epics`)).status).toBe(404)
    expect((await api.get(`/documents/${MISSING}/events`)).status).toBe(404)
    expect((await api.get('/documents/not-a-uuid')).status).toBe(400)
    expect((await api.put('/documents/not-a-uuid', { title: 'x' })).status).toBe(400)
    expect((await api.get('/documents/abc', { query: { content_format: 'pdf' } })).status).toBe(400)
    expect((await api.put(`/documents/${MISSING}`, { archived: true })).status).toBe(400)
  })

  it('deletes only with admin access to the doc: its creator or a workspace admin', async () => {
    const admin = v3(service)
    const max = v3(service, memberV3)
    const adminsDoc = await admin.post('/documents', { title: 'Admin doc', content: '' })
    const refused = await max.delete(`/documents/${adminsDoc.body.id}`)
    expect(refused.status).toBe(403)
    expect(refused.body.tag).toBe('doc_admin_required')
    expect((await admin.get(`/documents/${adminsDoc.body.id}`)).status).toBe(200)

    const maxsDoc = await max.post('/documents', { title: 'Max doc', content: '' })
    // The body the official client sends (content_format) is accepted.
    expect((await max.delete(`/documents/${maxsDoc.body.id}`, { content_format: 'markdown' })).status).toBe(204)
    expect((await max.get(`/documents/${maxsDoc.body.id}`)).status).toBe(404)

    expect((await admin.delete(`/documents/${adminsDoc.body.id}`)).status).toBe(204)
    expect((await admin.delete(`/documents/${adminsDoc.body.id}`)).status).toBe(404)
    expect((await admin.get('/documents')).body.map((d: { id: string }) => d.id)).not.toContain(adminsDoc.body.id)
    expect((await admin.delete(`/documents/${MISSING}`, { content_format: 'pdf' })).status).toBe(400)
  })

  it('refuses writes by Observers', async () => {
    const obs = v3(service, observerV3)
    expect((await obs.get('/documents')).status).toBe(200)
    const res = await obs.post('/documents', { title: 'nope', content: '' })
    expect(res.status).toBe(403)
    expect(res.body.tag).toBe('observer')
  })

  it('relates docs and epics both ways, idempotently', async () => {
    const api = v3(service)
    const doc = (await api.post('/documents', { title: 'Epic brief', content: '' })).body
    const epicId = await makeEpic('Docs relation epic')
    expect((await api.put(`/documents/${doc.id}/epics/${epicId}`)).status).toBe(204)
    expect((await api.put(`/documents/${doc.id}/epics/${epicId}`)).status).toBe(204)
    const epics = await api.get(`/documents/${doc.id}/epics`)
    expect(epics.status).toBe(200)
    expect(epics.body).toHaveLength(1)
    const epic = (await api.get(`/epics/${epicId}`)).body
    expect(epics.body[0]).toMatchObject({
      entity_type: 'epic',
      id: epicId,
      name: 'Docs relation epic',
      archived: false,
      epic_state_id: epic.epic_state_id,
      owner_ids: [],
    })
    // The same EpicSlim every epic list gives, requester and global_id included.
    expect(epics.body[0]).toMatchObject({ requested_by_id: epic.requested_by_id, global_id: epic.global_id, state: epic.state })
    expect(epics.body[0].app_url).toBe(`${service.baseUrl}/demo/epic/${epicId}`)
    expect(epics.body[0].stats.num_related_documents).toBe(1)
    expect(epics.body[0]).not.toHaveProperty('comments')
    const docsOfEpic = await api.get(`/epics/${epicId}/documents`)
    expect(docsOfEpic.body).toEqual([{ app_url: doc.app_url, id: doc.id, title: 'Epic brief' }])

    expect((await api.delete(`/documents/${doc.id}/epics/${epicId}`)).status).toBe(204)
    expect((await api.delete(`/documents/${doc.id}/epics/${epicId}`)).status).toBe(204)
    expect((await api.get(`/documents/${doc.id}/epics`)).body).toEqual([])
    expect((await api.get(`/epics/${epicId}/documents`)).body).toEqual([])

    // Deleting a doc removes its links.
    await api.put(`/documents/${doc.id}/epics/${epicId}`)
    await api.delete(`/documents/${doc.id}`)
    expect((await api.get(`/epics/${epicId}/documents`)).body).toEqual([])
  })

  it('renders the seeded epics of demo docs', async () => {
    const linked = service.ctx.db.prepare<[], { a: string; b: string }>("SELECT a, b FROM relations WHERE kind = 'doc_epic' LIMIT 1").get()
    if (!linked) return // no epics seeded: nothing to render
    const res = await v3(service).get(`/documents/${linked.a}/epics`)
    expect(res.status).toBe(200)
    expect(res.body.map((e: { id: number }) => e.id)).toContain(Number(linked.b))
    expect((await v3(service).get(`/epics/${linked.b}/documents`)).body.map((d: { id: string }) => d.id)).toContain(linked.a)
  })

  it('answers 422 UnprocessableError for an unknown epic, 404 for an unknown doc, 400 for bad ids', async () => {
    const api = v3(service)
    const doc = (await api.post('/documents', { title: 'Lonely', content: '' })).body
    const res = await api.put(`/documents/${doc.id}/epics/99999999`)
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({ tag: 'unprocessable_error', errors: { epic_id: 'no such epic' } })
    const epicId = await makeEpic('Another epic')
    expect((await api.put(`/documents/${MISSING}/epics/${epicId}`)).status).toBe(404)
    expect((await api.delete(`/documents/${MISSING}/epics/${epicId}`)).status).toBe(404)
    expect((await api.delete(`/documents/${doc.id}/epics/99999999`)).status).toBe(404)
    expect((await api.get('/epics/99999999/documents')).status).toBe(404)
    expect((await api.get('/epics/abc/documents')).status).toBe(400)
    expect((await api.put(`/documents/${doc.id}/epics/abc`)).status).toBe(400)
    expect((await api.put(`/documents/nope/epics/${epicId}`)).status).toBe(400)
  })
})

describe('v4 docs', () => {
  it('lists docs with both contents, without archived ones unless asked, trimmed by fields', async () => {
    const api = v4(service)
    const page = await api.get('/documents', { query: { limit: 3 } })
    expect(page.status).toBe(200)
    expect(page.body.entities).toHaveLength(3)
    const d = page.body.entities[0]
    expect(d).toMatchObject({ entity_type: 'doc', archived: false })
    expect(typeof d.content_html).toBe('string')
    expect(typeof d.content_markdown).toBe('string')
    expect(d.uri).toBe(`${service.baseUrl}/api/v4/demo/documents/${d.id}`)
    expect(d.creator.entity_type).toBe('member:slim')
    expect(d.followers.list_url).toBe(`${d.uri}/followers`)
    expect(d.collections.list_url).toBe(`${d.uri}/collections`)
    expect(d.followers.entities.map((f: { id: string }) => f.id)).toContain(d.creator.id)

    const all = await walk(api, '/documents', { limit: 100 })
    expect(all.every((x) => x.archived === false)).toBe(true)
    const withArchived = await walk(api, '/documents', { limit: 100, filter: 'include_archived' })
    expect(withArchived.some((x) => x.archived === true)).toBe(true)
    expect(withArchived.length).toBeGreaterThan(all.length)

    const trimmed = await api.get('/documents', { query: { fields: 'id,title' } })
    expect(Object.keys(trimmed.body.entities[0]).sort()).toEqual(['id', 'title'])
  })

  it('orders by created_at and updated_at in both directions', async () => {
    const api = v4(service)
    for (const order_by of ['created_at', 'updated_at']) {
      const asc = (await walk(api, '/documents', { limit: 100, order_by, fields: `id,${order_by}` })).map((d) => d[order_by])
      expect(asc).toEqual([...asc].sort())
      const desc = (await walk(api, '/documents', { limit: 100, order_by, order_dir: 'desc', fields: `id,${order_by}` })).map((d) => d[order_by])
      expect(desc).toEqual([...desc].sort().reverse())
    }
  })

  it.each([[{ order_by: 'title' }], [{ filter: 'favorited' }], [{ limit: 0 }], [{ limit: 101 }], [{ fields: 'id,body' }], [{ cursor: 'garbage' }]])(
    'answers 400 to bad list parameters %o',
    async (query) => {
      expect((await v4(service).get('/documents', { query })).status).toBe(400)
    },
  )

  it('creates a doc with description and collections; the creator follows it', async () => {
    const api = v4(service)
    const collection = (await api.post('/collections', { name: 'Launch docs' })).body
    const made = await api.post('/documents', {
      title: 'Launch brief',
      content: '# Brief\n\nWhat we ship.',
      content_format: 'markdown',
      description: 'The one-pager',
      collection_ids: [collection.id],
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({
      entity_type: 'doc',
      title: 'Launch brief',
      archived: false,
      content_markdown: '# Brief\n\nWhat we ship.',
      content_html: '<h1>Brief</h1>\n<p>What we ship.</p>\n',
    })
    expect(made.body.creator.name).toBe('Ada Admin')
    expect(made.body.followers.entities.map((f: { name: string }) => f.name)).toEqual(['Ada Admin'])
    expect(made.body.collections.entities).toEqual([{ entity_type: 'collection:slim', id: collection.id, name: 'Launch docs', uri: collection.uri }])

    const fielded = await api.post('/documents', { title: 'Fielded', content: '<p>x</p>' }, { query: { fields: 'id,title' } })
    expect(Object.keys(fielded.body).sort()).toEqual(['id', 'title'])
    expect((await api.post('/documents', { title: 'Bad fields', content: '' }, { query: { fields: 'nope' } })).status).toBe(400)
  })

  it('answers 422 for limits and unknown collections, 400 for schema mismatches, 403 for a read-only token', async () => {
    const api = v4(service)
    expect((await api.post('/documents', { title: 'd', content: '', description: 'd'.repeat(1024) })).status).toBe(201)
    const desc = await api.post('/documents', { title: 'd', content: '', description: 'd'.repeat(1025) })
    expect(desc.status).toBe(422)
    expect(desc.body.errors).toEqual({ description: 'must be at most 1024 characters' })
    const title = await api.post('/documents', { title: 't'.repeat(257), content: '' })
    expect(title.status).toBe(422)
    expect(title.body.errors).toEqual({ title: 'must be at most 256 characters' })
    const unknown = await api.post('/documents', { title: 'x', content: '', collection_ids: [MISSING] })
    expect(unknown.status).toBe(422)
    expect(unknown.body.errors).toHaveProperty('collection_ids')
    expect((await api.post('/documents', { title: 'x', content: '', collection_ids: ['nope'] })).status).toBe(400)
    expect((await api.post('/documents', { title: 'x' })).status).toBe(400)
    const ro = await v4(service, service.tokens.readonly).post('/documents', { title: 'x', content: '' })
    expect(ro.status).toBe(403)
    expect(ro.body.tag).toBe('read_only_token')
  })

  it('bulk-creates docs, all or nothing', async () => {
    const api = v4(service)
    const made = await api.post('/documents/bulk', {
      documents: [
        { title: 'Bulk A', content: 'a', content_format: 'markdown' },
        { title: 'Bulk B', content: '<p>b</p>' },
      ],
    })
    expect(made.status).toBe(201)
    expect(made.body.entities.map((d: { title: string }) => d.title)).toEqual(['Bulk A', 'Bulk B'])
    expect(made.body.entities[0].content_html).toBe('<p>a</p>\n')
    const bad = await api.post('/documents/bulk', {
      documents: [
        { title: 'Bulk C', content: '' },
        { title: 'Bulk D', content: '', collection_ids: [MISSING] },
      ],
    })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.body.errors)).toEqual(['documents[1].collection_ids'])
    const titles = (await walk(api, '/documents', { limit: 100, fields: 'title' })).map((d) => d.title)
    expect(titles).not.toContain('Bulk C')
    const long = await api.post('/documents/bulk', { documents: [{ title: 'x'.repeat(257), content: '' }] })
    expect(long.status).toBe(422)
    expect(Object.keys(long.body.errors)).toEqual(['documents.0.title'])
    expect((await api.post('/documents/bulk', { documents: [] })).status).toBe(400)
    expect((await api.post('/documents/bulk', {})).status).toBe(400)
  })

  it('gets one doc with the content content_format selects (markdown by default)', async () => {
    const api = v4(service)
    const made = (await api.post('/documents', { title: 'Single', content: '<p>Hello <em>you</em></p>' })).body
    const md = await api.get(`/documents/${made.id}`)
    expect(md.status).toBe(200)
    expect(md.body).toMatchObject({ id: made.id, content_markdown: 'Hello *you*', content_html: null })
    const html = await api.get(`/documents/${made.id}`, { query: { content_format: 'html', fields: 'id,content_html' } })
    expect(html.body).toEqual({ id: made.id, content_html: '<p>Hello <em>you</em></p>' })
    expect((await api.get(`/documents/${MISSING}`)).status).toBe(404)
    expect((await api.get('/documents/123')).status).toBe(400)
    expect((await api.get(`/documents/${made.id}`, { query: { content_format: 'docx' } })).status).toBe(400)
    expect((await api.get(`/documents/${made.id}`, { query: { fields: 'secret' } })).status).toBe(400)
  })

  it('updates with PATCH (title, content, description, archived) and deletes with admin access', async () => {
    const admin = v4(service)
    const member = v4(service, service.tokens.member)
    const made = (await admin.post('/documents', { title: 'Patch me', content: '<p>one</p>' })).body
    const patched = await member.patch(`/documents/${made.id}`, {
      title: 'Patched',
      content: '## Two',
      content_format: 'markdown',
      description: 'desc',
      archived: true,
    })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ title: 'Patched', archived: true, content_markdown: '## Two', content_html: '<h2>Two</h2>\n' })
    expect((await admin.get('/documents', { query: { limit: 100, fields: 'id' } })).body.entities.map((d: { id: string }) => d.id)).not.toContain(made.id)
    const unarchived = await admin.patch(`/documents/${made.id}`, { archived: false }, { query: { fields: 'archived' } })
    expect(unarchived.body).toEqual({ archived: false })
    expect((await admin.patch(`/documents/${made.id}`, { title: 'p'.repeat(257) })).status).toBe(422)
    const desc = await admin.patch(`/documents/${made.id}`, { description: 'd'.repeat(1025) })
    expect(desc.status).toBe(422)
    expect(desc.body.errors).toEqual({ description: 'must be at most 1024 characters' })
    expect((await admin.patch(`/documents/${made.id}`, { owner: 'x' })).status).toBe(400)
    expect((await admin.patch(`/documents/${MISSING}`, { title: 'x' })).status).toBe(404)
    expect((await v4(service, service.tokens.readonly).patch(`/documents/${made.id}`, { title: 'x' })).status).toBe(403)

    const refused = await member.delete(`/documents/${made.id}`)
    expect(refused.status).toBe(403)
    expect(refused.body.tag).toBe('doc_admin_required')
    expect((await admin.delete(`/documents/${made.id}`)).status).toBe(204)
    expect((await admin.get(`/documents/${made.id}`)).status).toBe(404)
    expect((await admin.delete(`/documents/${made.id}`)).status).toBe(404)

    const own = (await member.post('/documents', { title: 'Mine', content: '' })).body
    expect((await member.delete(`/documents/${own.id}`)).status).toBe(204)
  })

  it('lists a doc followers and collections, and adds and removes it from collections', async () => {
    const api = v4(service)
    const doc = (await api.post('/documents', { title: 'In collections', content: '' })).body
    const followers = await api.get(`/documents/${doc.id}/followers`)
    expect(followers.status).toBe(200)
    expect(followers.body.entities).toHaveLength(1)
    expect(followers.body.entities[0]).toMatchObject({ entity_type: 'member', name: 'Ada Admin' })
    const c = (await api.post('/collections', { name: 'Reading list' })).body
    const added = await api.put(`/documents/${doc.id}/collections/${c.id}`)
    expect(added.status).toBe(200)
    expect(added.body.collections.entities.map((x: { id: string }) => x.id)).toEqual([c.id])
    const listed = await api.get(`/documents/${doc.id}/collections`)
    expect(listed.body.entities).toMatchObject([{ entity_type: 'collection', id: c.id, name: 'Reading list' }])
    expect((await api.delete(`/documents/${doc.id}/collections/${c.id}`)).status).toBe(204)
    expect((await api.get(`/documents/${doc.id}/collections`)).body.entities).toEqual([])
    expect((await api.put(`/documents/${doc.id}/collections/${MISSING}`)).status).toBe(404)
    expect((await api.get(`/documents/${MISSING}/followers`)).status).toBe(404)
    expect((await api.get(`/documents/${doc.id}/followers`, { query: { filter: 'include_archived' } })).status).toBe(400)
  })
})

describe('v4 document search', () => {
  it('finds docs by fuzzy title, best match first', async () => {
    const api = v4(service)
    const res = await api.get('/documents/search', { query: { query: 'ofline synk', fields: 'title' } })
    expect(res.status).toBe(200)
    expect(res.body.entities[0].title).toBe('Offline sync: how the outbox works')
    const partial = await api.get('/documents/search', { query: { query: 'checklist', fields: 'title' } })
    expect(partial.body.entities.map((d: { title: string }) => d.title)).toContain('Release checklist')
    const none = await api.get('/documents/search', { query: { query: 'zzqqxxjj' } })
    expect(none.body).toMatchObject({ entities: [], total_items: 0 })
  })

  it('filters by archived, created_by_me and followed_by_me (false selects the complement)', async () => {
    const api = v4(service)
    const member = v4(service, service.tokens.member)
    const title = 'Quokka habitat survey'
    await member.post('/documents', { title, content: '' })
    const archived = (await api.post('/documents', { title: `${title} (old)`, content: '' })).body
    await api.patch(`/documents/${archived.id}`, { archived: true })
    const titles = async (client: Client, query: Record<string, string | boolean>) =>
      (await client.get('/documents/search', { query: { query: 'quokka habitat', fields: 'title', ...query } })).body.entities
        .map((d: { title: string }) => d.title)
        .sort()
    expect(await titles(api, {})).toEqual([title, `${title} (old)`])
    expect(await titles(api, { archived: true })).toEqual([`${title} (old)`])
    expect(await titles(api, { archived: false })).toEqual([title])
    expect(await titles(member, { created_by_me: true })).toEqual([title])
    expect(await titles(member, { created_by_me: false })).toEqual([`${title} (old)`])
    expect(await titles(member, { followed_by_me: true })).toEqual([title])
    expect(await titles(api, { followed_by_me: false })).toEqual([title])
  })

  it('pages with a cursor and rejects a missing query or extra parameters', async () => {
    const api = v4(service)
    await api.post('/documents/bulk', {
      documents: [
        { title: 'Pager doc one', content: '' },
        { title: 'Pager doc two', content: '' },
      ],
    })
    const first = await api.get('/documents/search', { query: { query: 'pager doc', limit: 1, fields: 'id' } })
    expect(first.status).toBe(200)
    expect(first.body.next_page_url).toBeTruthy()
    const next = new URL(first.body.next_page_url)
    const second = await api.get('/documents/search', { query: Object.fromEntries(next.searchParams) })
    expect(second.status).toBe(200)
    expect(second.body.current_page).toBe(2)
    expect(second.body.entities[0].id).not.toBe(first.body.entities[0].id)
    const missing = await api.get('/documents/search')
    expect(missing.status).toBe(400)
    expect(missing.body.errors).toHaveProperty('query')
    expect((await api.get('/documents/search', { query: { cursor: next.searchParams.get('cursor')!, query: 'x' } })).status).toBe(400)
    expect((await api.get('/documents/search', { query: { query: 'x', order_by: 'title' } })).status).toBe(400)
    expect((await api.get('/documents/search', { query: { query: 'x', archived: 'maybe' } })).status).toBe(400)
    expect((await api.get('/documents/search', { query: { query: '' } })).status).toBe(400)
  })
})

describe('v4 collections', () => {
  it('creates, gets, lists by name and created_at, and favorites', async () => {
    const api = v4(service)
    const made = await api.post('/collections', { name: 'Zebra notes' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ entity_type: 'collection', name: 'Zebra notes', archived: false, favorited: false, parent_collection: null })
    // The published Collection's fields, exactly (no updated_at).
    expect(Object.keys(made.body).sort()).toEqual(['archived', 'created_at', 'entity_type', 'favorited', 'id', 'name', 'parent_collection', 'uri'])
    const child = await api.post('/collections', { name: 'Stripes', parent_collection_id: made.body.id })
    expect(child.body.parent_collection).toMatchObject({ entity_type: 'collection:slim', id: made.body.id, name: 'Zebra notes' })
    expect((await api.get(`/collections/${made.body.id}`)).body).toEqual(made.body)
    expect(Object.keys((await api.get(`/collections/${made.body.id}`, { query: { fields: 'name' } })).body)).toEqual(['name'])

    const names = (await walk(api, '/collections', { limit: 100, order_by: 'name' })).map((c) => c.name.toLowerCase())
    expect(names).toEqual([...names].sort())
    const created = (await walk(api, '/collections', { limit: 100, order_by: 'created_at', order_dir: 'desc' })).map((c) => c.created_at)
    expect(created).toEqual([...created].sort().reverse())

    const fav = await api.put(`/collections/${made.body.id}/favorite`)
    expect(fav.body.favorited).toBe(true)
    expect((await walk(api, '/collections', { filter: 'favorited' })).map((c) => c.id)).toEqual([made.body.id])
    // Favorites are per member.
    expect((await v4(service, service.tokens.member).get(`/collections/${made.body.id}`)).body.favorited).toBe(false)
    expect((await api.delete(`/collections/${made.body.id}/favorite`)).status).toBe(204)
    expect(await walk(api, '/collections', { filter: 'favorited' })).toEqual([])
  })

  it('answers 422 for a long or taken name and an unknown parent, 404 and 400 as usual', async () => {
    const api = v4(service)
    expect((await api.post('/collections', { name: 'n'.repeat(63) })).status).toBe(201)
    const long = await api.post('/collections', { name: 'n'.repeat(64) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ name: 'must be at most 63 characters' })
    await api.post('/collections', { name: 'Unique name' })
    const taken = await api.post('/collections', { name: 'UNIQUE NAME' })
    expect(taken.status).toBe(422)
    expect(taken.body.errors).toEqual({ name: 'is already taken' })
    expect((await api.post('/collections', { name: 'Orphan', parent_collection_id: MISSING })).status).toBe(422)
    expect((await api.post('/collections', { name: '' })).status).toBe(400)
    expect((await api.post('/collections', {})).status).toBe(400)
    expect((await api.get(`/collections/${MISSING}`)).status).toBe(404)
    expect((await api.put(`/collections/${MISSING}/favorite`)).status).toBe(404)
    expect((await api.get('/collections/12')).status).toBe(400)
    expect((await api.get('/collections', { query: { order_by: 'updated_at' } })).status).toBe(400)
    expect((await v4(service, service.tokens.readonly).post('/collections', { name: 'ro' })).status).toBe(403)
  })
})

describe('feature switches', () => {
  it('answers 403 DisabledFeatureError on every docs route while docs are off', async () => {
    const doc = (await v3(service).post('/documents', { title: 'Switch', content: '' })).body
    const epicId = await makeEpic('Switch epic')
    const c = (await v4(service).post('/collections', { name: 'Switch collection' })).body
    const routes: [Client, string, string, unknown?][] = [
      [v3(service), 'GET', '/documents'],
      [v3(service), 'POST', '/documents', { title: 'x', content: '' }],
      [v3(service), 'GET', `/documents/${doc.id}`],
      [v3(service), 'PUT', `/documents/${doc.id}`, { title: 'x' }],
      [v3(service), 'DELETE', `/documents/${doc.id}`],
      [v3(service), 'GET', `/documents/${doc.id}/epics`],
      [v3(service), 'PUT', `/documents/${doc.id}/epics/${epicId}`],
      [v3(service), 'DELETE', `/documents/${doc.id}/epics/${epicId}`],
      [v3(service), 'GET', `/epics/${epicId}/documents`],
      [v3(service), 'GET', `/documents/${doc.id}/events`],
      [v4(service), 'GET', '/documents'],
      [v4(service), 'POST', '/documents', { title: 'x', content: '' }],
      [v4(service), 'POST', '/documents/bulk', { documents: [{ title: 'x', content: '' }] }],
      [v4(service), 'GET', '/documents/search?query=x'],
      [v4(service), 'GET', `/documents/${doc.id}`],
      [v4(service), 'PATCH', `/documents/${doc.id}`, { title: 'x' }],
      [v4(service), 'DELETE', `/documents/${doc.id}`],
      [v4(service), 'GET', `/documents/${doc.id}/events`],
      [v4(service), 'GET', `/documents/${doc.id}/followers`],
      [v4(service), 'GET', `/documents/${doc.id}/collections`],
      [v4(service), 'PUT', `/documents/${doc.id}/collections/${c.id}`],
      [v4(service), 'DELETE', `/documents/${doc.id}/collections/${c.id}`],
    ]
    service.setFeature('docs', false)
    try {
      for (const [client, method, path, body] of routes) {
        const res = await client.call(method, path, { body })
        expect({ method, path, status: res.status, tag: res.body.tag }).toEqual({ method, path, status: 403, tag: 'disabled_feature_error' })
      }
      // Collections have their own switch.
      expect((await v4(service).get('/collections')).status).toBe(200)
    } finally {
      service.setFeature('docs', true)
    }
    expect((await v3(service).get(`/documents/${doc.id}`)).status).toBe(200)
  })

  it('answers 403 DisabledFeatureError on collections routes while collections are off', async () => {
    const c = (await v4(service).post('/collections', { name: 'Off switch' })).body
    const doc = (await v4(service).post('/documents', { title: 'Coll switch', content: '' })).body
    service.setFeature('collections', false)
    try {
      const api = v4(service)
      for (const res of [
        await api.get('/collections'),
        await api.post('/collections', { name: 'x' }),
        await api.get(`/collections/${c.id}`),
        await api.put(`/collections/${c.id}/favorite`),
        await api.delete(`/collections/${c.id}/favorite`),
        await api.put(`/documents/${doc.id}/collections/${c.id}`),
        await api.post('/documents', { title: 'x', content: '', collection_ids: [c.id] }),
      ]) {
        expect(res.status).toBe(403)
        expect(res.body.tag).toBe('disabled_feature_error')
      }
      // Docs themselves still work.
      expect((await api.get(`/documents/${doc.id}`)).status).toBe(200)
    } finally {
      service.setFeature('collections', true)
    }
  })
})

/** An open text/event-stream: events as they arrive, parsed. */
async function openEvents(url: string, headers: Record<string, string>) {
  const res = await request(url, { headers })
  const events: { event: string; data: any }[] = []
  const waiters: (() => void)[] = []
  let buffer = ''
  let ended = false
  const pump = (async () => {
    for await (const chunk of res.body) {
      buffer += chunk.toString()
      let cut: number
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut)
        buffer = buffer.slice(cut + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event && data) events.push({ event, data: JSON.parse(data) })
        waiters.splice(0).forEach((w) => w())
      }
    }
    ended = true
    waiters.splice(0).forEach((w) => w())
  })().catch(() => {
    ended = true
  })
  return {
    status: res.statusCode,
    headers: res.headers,
    events,
    get ended() {
      return ended
    },
    /** Waits for the nth event (0-based). */
    async nth(n: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs
      while (events.length <= n) {
        if (ended || Date.now() > deadline) throw new Error(`stream ended or timed out after ${events.length} events`)
        await new Promise<void>((r) => {
          waiters.push(r)
          setTimeout(r, 50)
        })
      }
      return events[n]
    },
    async untilEnded(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs
      while (!ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      return ended
    },
    close: () => res.body.destroy(),
    pump,
  }
}

describe('doc events (server-sent)', () => {
  it('tells a connected v3 editor of another client’s update, then of the deletion, and ends the stream', async () => {
    const doc = (await v4(service).post('/documents', { title: 'Live doc', content: '<p>v1</p>' })).body
    const stream = await openEvents(`${service.baseUrl}/api/v3/documents/${doc.id}/events`, { 'shortcut-token': service.tokens.v3 })
    expect(stream.status).toBe(200)
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(await stream.nth(0)).toEqual({ event: 'doc-ready', data: { type: 'doc-ready', doc_id: doc.id, title: 'Live doc', updated_at: doc.updated_at } })

    // Another client (a member, over v3) edits the doc.
    const put = await v3(service, memberV3).put(`/documents/${doc.id}`, { title: 'Live doc v2', content: '<p>v2</p>' })
    const updated = await stream.nth(1)
    expect(updated).toEqual({
      event: 'doc-updated',
      data: { type: 'doc-updated', doc_id: doc.id, title: 'Live doc v2', updated_at: put.body.updated_at, member_id: maxId, changed: ['title', 'content'] },
    })

    // A write that changes nothing is no event; a relation change is.
    await v3(service).put(`/documents/${doc.id}`, { title: 'Live doc v2' })
    const epicId = await makeEpic('Live epic')
    await v3(service).put(`/documents/${doc.id}/epics/${epicId}`)
    expect((await stream.nth(2)).data.changed).toEqual(['epic_ids'])

    await v3(service).delete(`/documents/${doc.id}`)
    const deleted = await stream.nth(3)
    expect(deleted.event).toBe('doc-deleted')
    expect(deleted.data).toMatchObject({ type: 'doc-deleted', doc_id: doc.id, member_id: expect.any(String) })
    expect(await stream.untilEnded()).toBe(true)
  })

  it('serves the same events on v4, to every open stream of the doc', async () => {
    const doc = (await v4(service).post('/documents', { title: 'Shared', content: '' })).body
    const url = `${service.baseUrl}/api/v4/demo/documents/${doc.id}/events`
    const one = await openEvents(url, { authorization: `Bearer ${service.tokens.member}` })
    const two = await openEvents(url, { authorization: `Bearer ${service.tokens.readonly}` })
    await one.nth(0)
    await two.nth(0)
    await v4(service).patch(`/documents/${doc.id}`, { archived: true })
    for (const s of [one, two]) expect((await s.nth(1)).data).toMatchObject({ type: 'doc-updated', changed: ['archived'] })
    one.close()
    two.close()
  })

  it('needs a token and a doc that exists', async () => {
    const doc = (await v4(service).post('/documents', { title: 'Guarded', content: '' })).body
    const anon = await request(`${service.baseUrl}/api/v3/documents/${doc.id}/events`)
    expect(anon.statusCode).toBe(401)
    await anon.body.text()
    const v3OnV4 = await request(`${service.baseUrl}/api/v4/demo/documents/${doc.id}/events`, { headers: { authorization: `Bearer ${service.tokens.v3}` } })
    expect(v3OnV4.statusCode).toBe(401)
    await v3OnV4.body.text()
    expect((await v4(service).get(`/documents/${MISSING}/events`)).status).toBe(404)
  })

  it('does not hold up close() while editors are connected', async () => {
    const other = await testService()
    const doc = (await v4(other).post('/documents', { title: 'Open at close', content: '' })).body
    const stream = await openEvents(`${other.baseUrl}/api/v4/demo/documents/${doc.id}/events`, { authorization: `Bearer ${other.tokens.admin}` })
    await stream.nth(0)
    const started = Date.now()
    await other.close()
    expect(Date.now() - started).toBeLessThan(2000)
    expect(await stream.untilEnded()).toBe(true)
  })
})

describe('seeded docs', () => {
  it('builds large workspaces from pre-rendered bodies of about 5 KB, markdown matching the HTML', async () => {
    const big = await startService({ seed: { docs: 40 }, rateLimit: 'off' })
    try {
      const all = big.ctx.col<DocRecord>('doc').all()
      expect(all).toHaveLength(40)
      for (const d of all.slice(0, 5)) {
        expect(d.content_markdown.length).toBeGreaterThan(4000)
        expect(htmlToMarkdown(d.content_html)).toBe(d.content_markdown)
      }
      const listed = await walk(v4(big), '/documents', { limit: 100, filter: 'include_archived', fields: 'id' })
      expect(listed).toHaveLength(40)
    } finally {
      await big.close()
    }
  })

  it('gives the demo docs real markdown: headings, lists, code, links and tables', async () => {
    const docs = service.ctx.col<DocRecord>('doc').all()
    const md = docs.map((d) => d.content_markdown).join('\n')
    for (const marker of ['# ', '\n- ', '\n1. ', '```', '](https://', '| --- |']) expect(md).toContain(marker)
  })
})
