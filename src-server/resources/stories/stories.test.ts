// The read-only story graph: v3 epic and external-link story lists, v4
// branches with their stories and pull requests, and the default workflow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3, v4, v4Root, walk } from '../../../testing/service.ts'
import type { CustomFieldRecord } from '../custom-fields/field.ts'
import { at, insertBranch, insertPullRequest, insertStory } from '../../../testing/story-fixtures.ts'
import { stories, type BranchRecord, type StoryRecord } from './story.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

const ids = (list: { id: number }[]) => list.map((x) => x.id)

describe('the seeded story graph', () => {
  it('gives every workspace a default workflow that whoami names', async () => {
    const me = await v4Root(service).get('/whoami')
    expect(me.body.default_workflow).toMatchObject({ entity_type: 'workflow:slim', name: 'Engineering' })
    expect(me.body.default_workflow_state).toMatchObject({ entity_type: 'workflow-state:slim', name: 'Backlog', workflow_name: 'Engineering' })
  })

  it('links stories to the seeded epics, and branches to stories', async () => {
    const all = stories(service.ctx).all()
    expect(all.length).toBeGreaterThan(20)
    const epicIds = new Set(service.ctx.col('epic').ids())
    expect(all.some((s) => s.epic_id !== null)).toBe(true)
    for (const s of all) if (s.epic_id !== null) expect(epicIds.has(s.epic_id)).toBe(true)
    const branches = await walk(v4(service), '/branches', { limit: 100 })
    expect(branches.length).toBeGreaterThan(0)
    for (const b of branches) expect(b.stories.total_items + b.pull_requests.total_items).toBeGreaterThan(0)
  })

  it('gives every demo epic a few stories, so an opened epic shows its work and the list its progress', async () => {
    const epics = (await v3(service).get('/epics')).body as { id: number; stats: { num_stories_total: number; num_stories_done: number } }[]
    expect(epics.length).toBeGreaterThan(0)
    for (const e of epics) expect(e.stats.num_stories_total).toBeGreaterThanOrEqual(2)
    expect(epics.some((e) => e.stats.num_stories_done > 0 && e.stats.num_stories_done < e.stats.num_stories_total)).toBe(true)
  })
})

describe('v3 GET /epics/{id}/stories', () => {
  let epicId: number
  let first: StoryRecord
  let second: StoryRecord
  beforeAll(async () => {
    const epic = await v3(service).post('/epics', { name: 'Stories test epic' })
    expect(epic.status).toBe(201)
    epicId = epic.body.id
    const label = service.ctx.col<{ id: number; name: string; created_at: string; updated_at: string }>('label').all()[0]
    const field = service.ctx
      .col<CustomFieldRecord>('custom_field')
      .all()
      .find((f) => f.enabled)!
    second = insertStory(service, { name: 'Second on the board', epic_id: epicId, position: 20, label_ids: [label.id], description: 'Second.' })
    first = insertStory(service, {
      name: 'First on the board',
      epic_id: epicId,
      position: 10,
      custom_fields: [{ field_id: field.id, value_id: field.values[0].id }],
      completed: true,
      started: true,
      created_at: at(0),
      started_at: at(10),
      completed_at: at(70),
    })
    insertStory(service, { name: 'Elsewhere' })
  })

  it('lists the epic stories in board order, without descriptions unless asked', async () => {
    const res = await v3(service).get(`/epics/${epicId}/stories`)
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([first.id, second.id])
    expect(res.body[0]).not.toHaveProperty('description')
    expect(res.body[0]).toMatchObject({
      entity_type: 'story',
      epic_id: epicId,
      app_url: `${service.baseUrl}/demo/story/${first.id}`,
      cycle_time: 3600,
      lead_time: 4200,
      stats: { num_related_documents: 0 },
    })
    const field = service.ctx.col<CustomFieldRecord>('custom_field').get(first.custom_fields[0].field_id)!
    expect(res.body[0].custom_fields).toEqual([{ field_id: field.id, value_id: field.values[0].id, value: field.values[0].value }])
    expect(res.body[1].labels.map((l: { id: number }) => l.id)).toEqual(second.label_ids)
    expect(res.body[1].labels[0]).toMatchObject({ entity_type: 'label', app_url: expect.stringContaining('/label/') })
    const described = await v3(service).get(`/epics/${epicId}/stories`, { query: { includes_description: true } })
    expect(described.body.map((s: { description: string }) => s.description)).toEqual([first.description, 'Second.'])
  })

  it('gives each story its global_id, and each link the workflow state of its subject story', async () => {
    const started = service.ctx
      .col<{ id: number; type: string; created_at: string; updated_at: string }>('workflow_state')
      .all()
      .find((s) => s.type === 'started')!
    const blocking = insertStory(service, { name: 'Blocking', workflow_state_id: started.id })
    const link = { id: service.ctx.nextId(), subject_id: blocking.id, object_id: 0, verb: 'blocks' as const, created_at: at(0), updated_at: at(0) }
    const blocked = insertStory(service, { name: 'Blocked', epic_id: epicId, position: 30 })
    service.ctx.tx(() => stories(service.ctx).update({ ...blocked, story_links: [{ ...link, object_id: blocked.id }] }))
    const res = (await v3(service).get(`/epics/${epicId}/stories`)).body
    const shown = res.find((s: { id: number }) => s.id === blocked.id)
    expect(shown.global_id).toBe(`${service.ctx.workspace.id}:story:${blocked.id}`)
    expect(shown.story_links).toEqual([{ ...link, object_id: blocked.id, entity_type: 'story-link', type: 'object', subject_workflow_state_id: started.id }])
  })

  it('answers 404 for an unknown epic, 400 for a malformed id or flag, 401 without a token', async () => {
    expect((await v3(service).get('/epics/99999999/stories')).status).toBe(404)
    expect((await v3(service).get('/epics/abc/stories')).status).toBe(400)
    expect((await v3(service).get(`/epics/${epicId}/stories`, { query: { includes_description: 'maybe' } })).status).toBe(400)
    expect((await anonymous(service, '/api/v3').get(`/epics/${epicId}/stories`)).status).toBe(401)
  })
})

describe('v3 GET /external-link/stories', () => {
  it('finds the stories carrying exactly that link', async () => {
    const link = 'https://support.example.com/tickets/9999'
    const a = insertStory(service, { external_links: [link], position: 2 })
    const b = insertStory(service, { external_links: ['https://elsewhere.example.com', link], position: 1 })
    insertStory(service, { external_links: [`${link}0`] })
    const res = await v3(service).get('/external-link/stories', { query: { external_link: link } })
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual([b.id, a.id])
    // The demo workspace has one support ticket reported on two stories.
    const seeded = await v3(service).get('/external-link/stories', { query: { external_link: 'https://support.example.com/tickets/4821' } })
    expect(seeded.body).toHaveLength(2)
    expect((await v3(service).get('/external-link/stories', { query: { external_link: 'https://nobody.example.com/' } })).body).toEqual([])
  })

  it('takes a link of 2048 characters and answers 422 naming the parameter past that', async () => {
    const base = 'https://example.com/'
    const ok = await v3(service).get('/external-link/stories', { query: { external_link: base + 'a'.repeat(2048 - base.length) } })
    expect(ok.status).toBe(200)
    const long = await v3(service).get('/external-link/stories', { query: { external_link: base + 'a'.repeat(2049 - base.length) } })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ external_link: 'must be at most 2048 characters' })
  })

  it('answers 400 without a link or for one that is not http(s)', async () => {
    expect((await v3(service).get('/external-link/stories')).status).toBe(400)
    expect((await v3(service).get('/external-link/stories', { query: { external_link: 'ftp://example.com' } })).status).toBe(400)
  })
})

describe('v4 branches', () => {
  let linked: BranchRecord
  let deleted: BranchRecord
  let unlinked: BranchRecord
  let prOnly: BranchRecord
  let storyIds: number[]
  beforeAll(() => {
    const s1 = insertStory(service, { name: 'Oldest', position: 3, created_at: at(1), updated_at: at(30) })
    const s2 = insertStory(service, { name: 'Middle', position: 1, created_at: at(2), updated_at: at(10) })
    const s3 = insertStory(service, { name: 'Newest', position: 2, created_at: at(3), updated_at: at(20) })
    const archived = insertStory(service, { name: 'Archived', archived: true, position: 4, created_at: at(4), updated_at: at(40) })
    storyIds = [s1.id, s2.id, s3.id, archived.id]
    linked = insertBranch(service, { name: 'aaa-test/linked', story_ids: storyIds, updated_at: at(5) })
    deleted = insertBranch(service, { name: 'aaa-test/deleted', story_ids: [s1.id], deleted: true })
    unlinked = insertBranch(service, { name: 'aaa-test/unlinked' })
    prOnly = insertBranch(service, { name: 'aaa-test/pr-only' })
    insertPullRequest(service, prOnly, { story_ids: [s2.id] })
    insertPullRequest(service, linked, { title: 'Open', created_at: at(1), updated_at: at(9) })
    insertPullRequest(service, linked, { title: 'Closed', closed: true, merged: true, created_at: at(2), updated_at: at(8) })
    insertPullRequest(service, linked, { title: 'Draft', draft: true, created_at: at(3), updated_at: at(7), story_ids: [s3.id] })
  })

  it('lists branches that a story or a story pull request uses, deleted ones only when asked', async () => {
    const listed = ids(await walk(v4(service), '/branches', { limit: 100 }))
    expect(listed).toContain(linked.id)
    expect(listed).toContain(prOnly.id)
    expect(listed).not.toContain(unlinked.id)
    expect(listed).not.toContain(deleted.id)
    expect(ids(await walk(v4(service), '/branches', { limit: 100, filter: 'include_deleted' }))).toContain(deleted.id)
  })

  it('orders by name and updated_at in both directions', async () => {
    const names = (await walk(v4(service), '/branches', { limit: 100, order_by: 'name' })).map((b) => b.name)
    expect(names).toEqual([...names].sort())
    const desc = (await walk(v4(service), '/branches', { limit: 100, order_by: 'name', order_dir: 'desc' })).map((b) => b.name)
    expect(desc).toEqual([...names].reverse())
    const stamps = (await walk(v4(service), '/branches', { limit: 100, order_by: 'updated_at', order_dir: 'desc' })).map((b) => b.updated_at)
    expect(stamps).toEqual([...stamps].sort().reverse())
  })

  it('reads one branch with its repository, stories and pull requests, and with fields', async () => {
    const res = await v4(service).get(`/branches/${linked.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      entity_type: 'branch',
      id: linked.id,
      name: linked.name,
      deleted: false,
      external_url: linked.url,
      uri: `${service.baseUrl}/api/v4/demo/branches/${linked.id}`,
      repository: { entity_type: 'repository:slim', id: linked.repository_id },
      stories: { total_items: 4, list_url: `${service.baseUrl}/api/v4/demo/branches/${linked.id}/stories` },
      pull_requests: { total_items: 3 },
    })
    expect(res.body.stories.entities[0]).toMatchObject({ entity_type: 'story:slim', app_url: expect.stringContaining('/story/') })
    const some = await v4(service).get(`/branches/${linked.id}`, { query: { fields: 'id,name' } })
    expect(some.body).toEqual({ id: linked.id, name: linked.name })
  })

  it('lists a branch stories: archived only when asked, in each order', async () => {
    const [oldest, middle, newest, archived] = storyIds
    const api = v4(service)
    expect(ids(await walk(api, `/branches/${linked.id}/stories`))).toEqual([oldest, middle, newest])
    expect(ids(await walk(api, `/branches/${linked.id}/stories`, { filter: 'include_archived' }))).toEqual(storyIds)
    expect(ids(await walk(api, `/branches/${linked.id}/stories`, { order_by: 'position' }))).toEqual([middle, newest, oldest])
    expect(ids(await walk(api, `/branches/${linked.id}/stories`, { order_by: 'updated_at', order_dir: 'desc' }))).toEqual([oldest, newest, middle])
    expect(ids(await walk(api, `/branches/${linked.id}/stories`, { order_by: 'created_at', order_dir: 'desc', filter: 'include_archived' }))).toEqual([
      archived,
      newest,
      middle,
      oldest,
    ])
    const page = await api.get(`/branches/${linked.id}/stories`, { query: { limit: 2 } })
    expect(page.body).toMatchObject({ current_items: 2, total_items: 3, total_pages: 2, next_page_url: expect.stringContaining('cursor=') })
  })

  it('renders the v4 Story with slim references and page wrappers', async () => {
    const epic = await v3(service).post('/epics', { name: 'Epic of a v4 story' })
    const team = service.ctx.col('group').ids()[0] as string
    const field = service.ctx
      .col<CustomFieldRecord>('custom_field')
      .all()
      .find((f) => f.enabled)!
    const other = insertStory(service, { name: 'Blocked one' })
    const s = insertStory(service, {
      name: 'Rich story',
      epic_id: epic.body.id,
      group_id: team,
      external_links: ['https://github.com/outpost/outpost-app/issues/1'],
      custom_fields: [{ field_id: field.id, value_id: field.values[1].id }],
      story_links: [{ id: 1, subject_id: 0, object_id: other.id, verb: 'blocks', created_at: at(0), updated_at: at(0) }],
    })
    service.ctx.tx(() => stories(service.ctx).update({ ...s, story_links: [{ ...s.story_links[0], subject_id: s.id }] }))
    const branch = insertBranch(service, { name: 'rich', story_ids: [s.id] })
    const [story] = await walk(v4(service), `/branches/${branch.id}/stories`)
    expect(story).toMatchObject({
      entity_type: 'story',
      id: s.id,
      name: 'Rich story',
      description: s.description,
      uri: `${service.baseUrl}/api/v4/demo/stories/${s.id}`,
      app_url: `${service.baseUrl}/demo/story/${s.id}`,
      epic: { entity_type: 'epic:slim', id: epic.body.id, name: 'Epic of a v4 story' },
      team: { entity_type: 'team:slim', id: team },
      workflow: { entity_type: 'workflow:slim' },
      workflow_state: { entity_type: 'workflow-state:slim', name: 'Backlog', workflow_name: 'Engineering' },
      requester: { entity_type: 'member:slim' },
      branches: { total_items: 1, entities: [{ id: branch.id }] },
      external_links: { entities: [{ entity_type: 'external-link', value: 'https://github.com/outpost/outpost-app/issues/1' }] },
      custom_field_values: {
        entities: [{ entity_type: 'custom-field-value:slim', id: field.values[1].id, value: field.values[1].value, field: { id: field.id, name: field.name } }],
      },
      story_links: {
        entities: [
          {
            entity_type: 'story-link:slim',
            verb: 'blocks',
            subject: { id: s.id },
            object: { id: other.id },
            uri: `${service.baseUrl}/api/v4/demo/story-links/1`,
          },
        ],
      },
      parent_story: null,
      story_template: null,
    })
    const onlyName = await v4(service).get(`/branches/${branch.id}/stories`, { query: { fields: 'name' } })
    expect(onlyName.body.entities).toEqual([{ name: 'Rich story' }])
  })

  it('lists a branch pull requests: closed ones by default, excluded when asked', async () => {
    const api = v4(service)
    const all = await walk(api, `/branches/${linked.id}/pull-requests`)
    expect(all.map((p) => p.title)).toEqual(['Open', 'Closed', 'Draft'])
    expect(all[2]).toMatchObject({
      entity_type: 'pull-request',
      draft: true,
      closed: false,
      branch: { entity_type: 'branch:slim', id: linked.id },
      target_branch: { id: linked.id },
      repository: { entity_type: 'repository:slim' },
      stories: { total_items: 1, entities: [{ id: storyIds[2] }] },
      uri: expect.stringContaining('/pull-requests/'),
    })
    expect((await walk(api, `/branches/${linked.id}/pull-requests`, { filter: 'exclude_closed' })).map((p) => p.title)).toEqual(['Open', 'Draft'])
    expect((await walk(api, `/branches/${linked.id}/pull-requests`, { order_by: 'created_at', order_dir: 'desc' })).map((p) => p.title)).toEqual([
      'Draft',
      'Closed',
      'Open',
    ])
    expect((await walk(api, `/branches/${linked.id}/pull-requests`, { order_by: 'updated_at' })).map((p) => p.title)).toEqual(['Draft', 'Closed', 'Open'])
  })

  it.each([
    ['/branches', { limit: 0 }],
    ['/branches', { limit: 101 }],
    ['/branches', { order_by: 'created_at' }],
    ['/branches', { filter: 'exclude_archived' }],
    ['/branches', { fields: 'id,nope' }],
    ['/branches/abc', {}],
    ['/branches/1/stories', { order_by: 'name' }],
    ['/branches/1/stories', { filter: 'include_deleted' }],
    ['/branches/1/pull-requests', { order_by: 'position' }],
    ['/branches/1/pull-requests', { filter: 'exclude_archived' }],
  ])('answers 400 to %s %o', async (path, query) => {
    expect((await v4(service).get(path, { query })).status).toBe(400)
  })

  it('answers 404 for an unknown branch on each route, and 401 to v3 tokens and no token', async () => {
    for (const path of ['/branches/99999999', '/branches/99999999/stories', '/branches/99999999/pull-requests']) {
      expect((await v4(service).get(path)).status).toBe(404)
    }
    expect((await v4(service, service.tokens.v3).get('/branches')).status).toBe(401)
    expect((await anonymous(service, '/api/v4/demo').get(`/branches/${linked.id}`)).status).toBe(401)
    expect((await v4(service, service.tokens.readonly).get(`/branches/${linked.id}/stories`)).status).toBe(200)
  })
})
