// v3 epics: list, create, read, update (moves, deprecated fields, labels by
// name, archive), delete, unlink-planner and the epic workflow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3 } from '../../../testing/service.ts'
import { UUID_NOBODY, memberId, objectiveIds, recordActivity, teamIds } from '../../../testing/epic-fixtures.ts'

let service: RunningService
let ada: string
let max: string
let teams: string[]
let objectives: number[]
let states: { id: number; name: string; type: string }[]
const stateNamed = (name: string) => states.find((s) => s.name === name)!.id

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  ada = memberId(service, 'ada')
  max = memberId(service, 'max')
  teams = teamIds(service)
  objectives = objectiveIds(service)
  states = (await v3(service).get('/epic-workflow')).body.epic_states
})
afterAll(() => service.close())

describe('v3 epic workflow', () => {
  it('lists the states in order with the default state id', async () => {
    const res = await v3(service).get('/epic-workflow')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ entity_type: 'epic-workflow', default_epic_state_id: stateNamed('To Do') })
    expect(res.body.epic_states.map((s: { type: string }) => s.type)).toEqual(['unstarted', 'unstarted', 'started', 'started', 'done'])
    for (const s of res.body.epic_states) expect(s.global_id).toBe(`${service.ctx.workspace.id}:epic_state:${s.id}`)
    expect((await anonymous(service, '/api/v3').get('/epic-workflow')).status).toBe(401)
  })
})

describe('v3 epic list', () => {
  it('lists every epic as EpicSlim, descriptions only when asked, archived included', async () => {
    const api = v3(service)
    const list = await api.get('/epics')
    expect(list.status).toBe(200)
    expect(list.body.length).toBeGreaterThanOrEqual(30)
    const e = list.body[0]
    expect(e).toMatchObject({ entity_type: 'epic', stats: expect.any(Object), labels: expect.any(Array), state: expect.any(String) })
    expect(e).toHaveProperty('external_id')
    // global_id: stable and unique per epic, on the epic and on each of its labels.
    expect(e.global_id).toBe(`${service.ctx.workspace.id}:epic:${e.id}`)
    expect(new Set(list.body.map((x: { global_id: string }) => x.global_id)).size).toBe(list.body.length)
    for (const l of list.body.flatMap((x: { labels: { id: number; global_id: string }[] }) => x.labels))
      expect(l.global_id).toBe(`${service.ctx.workspace.id}:label:${l.id}`)
    expect(e).not.toHaveProperty('description')
    expect(e).not.toHaveProperty('comments')
    expect(e).not.toHaveProperty('health')
    expect(list.body.some((x: { archived: boolean }) => x.archived)).toBe(true)
    const withText = await api.get('/epics', { query: { includes_description: true } })
    expect(typeof withText.body[0].description).toBe('string')
    expect((await api.get('/epics', { query: { includes_description: 'perhaps' } })).status).toBe(400)
  })

  it('refuses a filter the list does not take (external_id), naming it, as the real service does', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Outbox create', external_id: 'client-7f3a' })).body
    expect(made.external_id).toBe('client-7f3a')
    const refused = await api.get('/epics', { query: { external_id: 'client-7f3a' } })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ tag: 'bad_request', errors: { external_id: 'is not an accepted field' } })
  })

  it('pages with page and page_size as the real service does', async () => {
    const api = v3(service)
    const total = (await api.get('/epics')).body.length
    const p1 = await api.get('/epics/paginated', { query: { page_size: 4 } })
    expect(p1.body).toMatchObject({ total, next: 2 })
    expect(p1.body.data).toHaveLength(4)
    const last = Math.ceil(total / 4)
    const pl = await api.get('/epics/paginated', { query: { page_size: 4, page: last } })
    expect(pl.body.next).toBeNull()
    expect((await api.get('/epics/paginated', { query: { page_size: 251 } })).status).toBe(400)
    expect((await api.get('/epics/paginated', { query: { page: 0 } })).status).toBe(400)
  })
})

describe('v3 epic create', () => {
  it('creates with the official client body: labels by name, deprecated fields, imported times', async () => {
    const api = v3(service)
    const res = await api.post('/epics', {
      name: 'Client epic',
      description: 'Pinging @max',
      labels: [{ name: 'fresh-label', color: '#123456', description: 'made by an epic' }, { name: 'fresh-label' }],
      group_id: teams[0],
      milestone_id: objectives[0],
      state: 'in progress',
      owner_ids: [max, max],
      follower_ids: [ada],
      requested_by_id: max,
      external_id: 'client-1',
      created_at: '2024-01-02T03:04:05.000Z',
      updated_at: '2024-01-03T03:04:05.000Z',
      converted_from_story_id: null,
    })
    expect(res.status).toBe(201)
    const e = res.body
    expect(e).toMatchObject({
      entity_type: 'epic',
      name: 'Client epic',
      description: 'Pinging @max',
      group_ids: [teams[0]],
      group_id: teams[0],
      objective_ids: [objectives[0]],
      milestone_id: objectives[0],
      epic_state_id: stateNamed('In Progress'),
      state: 'in progress',
      started: true,
      owner_ids: [max],
      follower_ids: [ada],
      requested_by_id: max,
      member_mention_ids: [max],
      mention_ids: [max],
      external_id: 'client-1',
      created_at: '2024-01-02T03:04:05.000Z',
      updated_at: '2024-01-03T03:04:05.000Z',
      comments: [],
      health: { entity_type: 'health', status: 'No Health', id: null, epic_id: e.id },
      app_url: `${service.baseUrl}/demo/epic/${e.id}`,
      planner_id: null,
      stats: { num_stories_total: 0, num_points: 0, num_related_documents: 0 },
    })
    expect(e.labels).toHaveLength(1)
    expect(e.labels[0]).toMatchObject({ entity_type: 'label', name: 'fresh-label', color: '#123456', description: 'made by an epic' })
    expect(e.label_ids).toEqual([e.labels[0].id])
    // The label now exists for everyone: a second epic naming it reuses it.
    const again = (await api.post('/epics', { name: 'Reuses', labels: [{ name: 'fresh-label', color: '#ffffff' }] })).body
    expect(again.label_ids).toEqual(e.label_ids)
    expect(again.labels[0].color).toBe('#123456')
  })

  it('takes epic_state_id over the deprecated state, group_ids over group_id, objective_ids over milestone_id', async () => {
    const res = await v3(service).post('/epics', {
      name: 'Precedence',
      state: 'done',
      epic_state_id: stateNamed('Planned'),
      group_id: teams[0],
      group_ids: [teams[1]],
      milestone_id: objectives[0],
      objective_ids: [objectives[1]],
    })
    expect(res.body).toMatchObject({
      epic_state_id: stateNamed('Planned'),
      state: 'to do',
      started: false,
      group_ids: [teams[1]],
      objective_ids: [objectives[1]],
    })
  })

  it.each([
    [{}, 'name'],
    [{ name: 'x', state: 'started' }, 'state'],
    [{ name: 'x', labels: [{ color: '#fff' }] }, 'labels.0.name'],
    [{ name: 'x', labels: [{ name: 'y', color: 'blue' }] }, 'labels.0.color'],
    [{ name: 'x', group_id: 'team' }, 'group_id'],
    [{ name: 'x', team_ids: [] }, 'team_ids'],
    [{ name: 'x', created_at: 'yesterday' }, 'created_at'],
  ])('answers 400 to a schema mismatch %o', async (body, field) => {
    const res = await v3(service).post('/epics', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it.each([
    ['name', 256],
    ['description', 100_000],
    ['external_id', 128],
  ])('takes %s of exactly %i characters and answers 422 naming it past that', async (field, limit) => {
    const api = v3(service)
    const ok = await api.post('/epics', { name: 'limits', [field]: 'n'.repeat(limit) })
    expect(ok.status).toBe(201)
    expect(ok.body[field]).toHaveLength(limit)
    const long = await api.post('/epics', { name: 'limits', [field]: 'n'.repeat(limit + 1) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ [field]: `must be at most ${limit} characters` })
    const put = await api.put(`/epics/${ok.body.id}`, { [field]: 'p'.repeat(limit + 1) })
    expect(put.status).toBe(422)
    expect(Object.keys(put.body.errors)).toEqual([field])
  })

  it.each([
    [{ epic_state_id: 999_999 }, 'epic_state_id'],
    [{ owner_ids: [UUID_NOBODY] }, 'owner_ids'],
    [{ follower_ids: [UUID_NOBODY] }, 'follower_ids'],
    [{ requested_by_id: UUID_NOBODY }, 'requested_by_id'],
    [{ group_ids: [UUID_NOBODY] }, 'group_ids'],
    [{ group_id: UUID_NOBODY }, 'group_id'],
    [{ objective_ids: [999_999] }, 'objective_ids'],
    [{ milestone_id: 999_999 }, 'milestone_id'],
  ])('answers 422 to a reference that does not exist %o', async (extra, field) => {
    const res = await v3(service).post('/epics', { name: 'bad ref', ...extra })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual([field])
  })

  it('refuses read-only and Observer tokens and anonymous callers', async () => {
    const api = v3(service, service.tokens.readonly)
    expect((await api.post('/epics', { name: 'ro' })).status).toBe(403)
    expect((await v3(service, service.tokens.observer).post('/epics', { name: 'obs' })).status).toBe(403)
    expect((await anonymous(service, '/api/v3').post('/epics', { name: 'anon' })).status).toBe(401)
    expect((await anonymous(service, '/api/v3').get('/epics')).status).toBe(401)
    expect((await api.get('/epics')).status).toBe(200)
  })
})

describe('v3 epic read, update and delete', () => {
  it('reads one epic and answers 404 and 400 for missing and malformed ids', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Readable' })).body
    expect((await api.get(`/epics/${made.id}`)).body).toEqual(made)
    expect((await api.get('/epics/999999')).status).toBe(404)
    expect((await api.get('/epics/abc')).status).toBe(400)
    expect((await api.put('/epics/999999', { name: 'x' })).status).toBe(404)
    expect((await api.delete('/epics/999999')).status).toBe(404)
    expect((await api.put('/epics/abc', { name: 'x' })).status).toBe(400)
  })

  it('updates fields, clears nullable ones and moves updated_at forward', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Updatable', deadline: '2030-01-01T00:00:00Z', group_ids: [teams[0]], objective_ids: [objectives[0]] })).body
    const res = await api.put(`/epics/${made.id}`, {
      name: 'Updated',
      description: 'New text',
      deadline: null,
      planned_start_date: '2029-06-01T00:00:00Z',
      completed_at_override: '2029-07-01T00:00:00Z',
      owner_ids: [max],
      external_id: 'moved-ext',
      group_id: null,
      milestone_id: null,
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      name: 'Updated',
      description: 'New text',
      deadline: null,
      planned_start_date: '2029-06-01T00:00:00Z',
      completed_at_override: '2029-07-01T00:00:00Z',
      owner_ids: [max],
      external_id: 'moved-ext',
      group_ids: [],
      group_id: null,
      objective_ids: [],
    })
    expect(res.body.updated_at > made.updated_at).toBe(true)
    expect((await api.put(`/epics/${made.id}`, { completed_at_override: null })).body.completed_at_override).toBeNull()
  })

  it('keeps updated_at a date-time after an import stamped it with the last one there is', async () => {
    const api = v3(service)
    const last = '9999-12-31T23:59:59.999Z'
    const made = (await api.post('/epics', { name: 'From the far future', updated_at: last })).body
    expect(made.updated_at).toBe(last)
    // A change cannot move it later: one millisecond on is +010000-01-01, which no client reads as a date-time.
    expect((await api.put(`/epics/${made.id}`, { name: 'Still far' })).body.updated_at).toBe(last)
    expect((await api.post(`/epics/${made.id}/health`, { status: 'On Track' })).status).toBe(201)
    expect((await api.get(`/epics/${made.id}`)).body.updated_at).toBe(last)
  })

  it('maps the deprecated state to the workflow, keeping a state of the same type', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'States', epic_state_id: stateNamed('Planned') })).body
    // Already "to do": stays in Planned rather than jumping to To Do.
    expect((await api.put(`/epics/${made.id}`, { state: 'to do' })).body.epic_state_id).toBe(stateNamed('Planned'))
    const started = (await api.put(`/epics/${made.id}`, { state: 'in progress' })).body
    expect(started).toMatchObject({ epic_state_id: stateNamed('In Progress'), state: 'in progress', started: true, completed: false })
    const done = (await api.put(`/epics/${made.id}`, { state: 'done' })).body
    expect(done).toMatchObject({ epic_state_id: stateNamed('Done'), state: 'done', completed: true })
    expect(done.completed_at).toEqual(expect.any(String))
    const todo = (await api.put(`/epics/${made.id}`, { state: 'to do' })).body
    expect(todo).toMatchObject({ epic_state_id: stateNamed('To Do'), started: false, completed: false, started_at: null })
    // epic_state_id wins when both are sent.
    expect((await api.put(`/epics/${made.id}`, { state: 'done', epic_state_id: stateNamed('In Review') })).body.state).toBe('in progress')
    expect((await api.put(`/epics/${made.id}`, { epic_state_id: 999_999 })).status).toBe(422)
  })

  it('replaces labels by name, creating the ones that do not exist', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Labelled', labels: [{ name: 'one' }, { name: 'two' }] })).body
    expect(made.labels.map((l: { name: string }) => l.name)).toEqual(['one', 'two'])
    const res = await api.put(`/epics/${made.id}`, { labels: [{ name: 'two' }, { name: 'three', external_id: 'lbl-3' }] })
    expect(res.body.labels.map((l: { name: string }) => l.name)).toEqual(['two', 'three'])
    expect(res.body.labels[1].external_id).toBe('lbl-3')
    expect(res.body.label_ids[0]).toBe(made.label_ids[1])
    expect((await api.put(`/epics/${made.id}`, { labels: [] })).body.labels).toEqual([])
  })

  it('moves epics with after_id and before_id', async () => {
    const api = v3(service)
    const [a, b, c] = [
      (await api.post('/epics', { name: 'Pos A' })).body,
      (await api.post('/epics', { name: 'Pos B' })).body,
      (await api.post('/epics', { name: 'Pos C' })).body,
    ]
    expect(a.position < b.position && b.position < c.position).toBe(true)
    const order = async () => {
      const all = (await api.get('/epics')).body as { id: number; position: number }[]
      return all
        .filter((e) => [a.id, b.id, c.id].includes(e.id))
        .sort((x, y) => x.position - y.position)
        .map((e) => e.id)
    }
    await api.put(`/epics/${c.id}`, { before_id: a.id })
    expect(await order()).toEqual([c.id, a.id, b.id])
    await api.put(`/epics/${c.id}`, { after_id: a.id })
    expect(await order()).toEqual([a.id, c.id, b.id])
    // Many moves into the same gap run out of room; positions are spread out again.
    for (let i = 0; i < 12; i++) {
      await api.put(`/epics/${b.id}`, { after_id: a.id })
      await api.put(`/epics/${c.id}`, { after_id: a.id })
    }
    expect(await order()).toEqual([a.id, c.id, b.id])
    await api.put(`/epics/${a.id}`, { after_id: b.id })
    expect(await order()).toEqual([c.id, b.id, a.id])

    const both = await api.put(`/epics/${a.id}`, { after_id: b.id, before_id: c.id })
    expect(both.status).toBe(422)
    expect((await api.put(`/epics/${a.id}`, { after_id: a.id })).body.errors).toEqual({ after_id: 'is the epic itself' })
    expect((await api.put(`/epics/${a.id}`, { before_id: 999_999 })).body.errors).toEqual({ before_id: 'no epic 999999' })
  })

  it('archives and unarchives', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Archivable' })).body
    expect((await api.put(`/epics/${made.id}`, { archived: true })).body.archived).toBe(true)
    expect((await api.get(`/epics/${made.id}`)).body.archived).toBe(true)
    expect((await api.put(`/epics/${made.id}`, { archived: false })).body.archived).toBe(false)
    expect((await api.put(`/epics/${made.id}`, { archived: 'yes' })).status).toBe(400)
  })

  it('answers 400 to unknown or mistyped update fields and 403 to read-only tokens', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Strict' })).body
    expect((await api.put(`/epics/${made.id}`, { team_ids: [] })).status).toBe(400)
    expect((await api.put(`/epics/${made.id}`, { after_id: 'first' })).status).toBe(400)
    expect((await api.put(`/epics/${made.id}`, { created_at: '2020-01-01T00:00:00Z' })).status).toBe(400)
    expect((await v3(service, service.tokens.readonly).put(`/epics/${made.id}`, { name: 'x' })).status).toBe(403)
  })

  it('deletes an epic with its comments and health; its stories stay', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Doomed' })).body
    const comment = (await api.post(`/epics/${made.id}/comments`, { text: 'bye' })).body
    await api.post(`/epics/${made.id}/health`, { status: 'On Track' })
    const story = service.ctx.col<{ id: number; epic_id: number | null; created_at: string; updated_at: string }>('story')
    const storyId = service.ctx.nextId()
    const now = service.ctx.now()
    story.insert({ id: storyId, epic_id: made.id, created_at: now, updated_at: now })
    expect((await v3(service, service.tokens.readonly).delete(`/epics/${made.id}`)).status).toBe(403)
    expect((await api.delete(`/epics/${made.id}`)).status).toBe(204)
    expect((await api.get(`/epics/${made.id}`)).status).toBe(404)
    expect(service.ctx.col('epic_comment').get(comment.id)).toBeUndefined()
    expect(service.ctx.col('epic_health').byParent(made.id)).toEqual([])
    expect(story.get(storyId)?.epic_id).toBeNull()
    expect((await api.delete(`/epics/${made.id}`)).status).toBe(404)
  })

  it('unlinks the planner', async () => {
    const api = v3(service)
    const made = (await api.post('/epics', { name: 'Planned elsewhere' })).body
    const col = service.ctx.col<{
      id: number
      created_at: string
      updated_at: string
      planner_id: string | null
      planner_url: string | null
      planner_name: string | null
    }>('epic')
    col.update({ ...col.get(made.id)!, planner_id: UUID_NOBODY, planner_url: 'https://planner.example/1', planner_name: 'Roadmap' })
    expect((await api.get(`/epics/${made.id}`)).body.planner_url).toBe('https://planner.example/1')
    const res = await api.post(`/epics/${made.id}/unlink-planner`)
    expect(res.status).toBe(204)
    expect((await api.get(`/epics/${made.id}`)).body).toMatchObject({ planner_id: null, planner_url: null, planner_name: null })
    expect((await api.post(`/epics/${made.id}/unlink-planner`)).status).toBe(204)
    expect((await api.post('/epics/999999/unlink-planner')).status).toBe(404)
    expect((await v3(service, service.tokens.readonly).post(`/epics/${made.id}/unlink-planner`)).status).toBe(403)
  })

  it('emits create, update with old and new values (a state change is a move), and delete', async () => {
    const api = v3(service)
    const rec = recordActivity(service)
    try {
      const made = (await api.post('/epics', { name: 'v3 events' })).body
      await api.put(`/epics/${made.id}`, { epic_state_id: stateNamed('Done'), archived: true })
      await api.put(`/epics/${made.id}`, { archived: true })
      await api.delete(`/epics/${made.id}`)
      const mine = rec.events.filter((e) => e.entity_type === 'epic' && e.id === made.id)
      expect(mine.map((e) => e.action)).toEqual(['create', 'update', 'delete'])
      expect(mine[1].changes).toMatchObject({
        epic_state_id: { old: stateNamed('To Do'), new: stateNamed('Done') },
        archived: { old: false, new: true },
        completed: { old: false, new: true },
      })
    } finally {
      rec.stop()
    }
  })
})
