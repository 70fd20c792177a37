// v3 objectives and milestones (one record, two route families), their epics,
// the objectives of a category (v3 and v4), categories found or made by name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3, v4, walk } from '../../../testing/service.ts'
import { at, insertStory } from '../../../testing/story-fixtures.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

const ids = (list: { id: number }[]) => list.map((x) => x.id)

describe('v3 GET /objectives and /milestones', () => {
  it('lists the seeded objectives in their order, as objectives and as milestones', async () => {
    const objectives = await v3(service).get('/objectives')
    expect(objectives.status).toBe(200)
    expect(objectives.body.map((o: { name: string }) => o.name)).toEqual(
      expect.arrayContaining(['Ship offline sync', 'Launch the desktop beta', 'Harden token storage']),
    )
    const positions = objectives.body.map((o: { position: number }) => o.position)
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
    const ship = objectives.body.find((o: { name: string }) => o.name === 'Ship offline sync')
    expect(ship).toMatchObject({
      entity_type: 'objective',
      state: 'in progress',
      started: true,
      completed: false,
      completed_at: null,
      archived: false,
      key_result_ids: [],
      app_url: `${service.baseUrl}/demo/objective/${ship.id}`,
      stats: { num_related_documents: 0 },
    })
    expect(ship.started_at).not.toBeNull()
    expect(ship.categories.map((c: { name: string }) => c.name)).toEqual(['Platform', 'Reliability'])
    const workspace = service.ctx.workspace.id
    expect(ship.categories[0]).toMatchObject({ entity_type: 'category', type: 'milestone', global_id: `${workspace}:category:${ship.categories[0].id}` })
    expect(ship.global_id).toBe(`${workspace}:objective:${ship.id}`)
    const milestones = await v3(service).get('/milestones')
    expect(ids(milestones.body)).toEqual(ids(objectives.body))
    expect(milestones.body.every((m: { entity_type: string }) => m.entity_type === 'milestone')).toBe(true)
    // One record, two views: a milestone's global_id is its objective's.
    expect(milestones.body.map((m: { global_id: string }) => m.global_id)).toEqual(objectives.body.map((o: { global_id: string }) => o.global_id))
    expect((await anonymous(service, '/api/v3').get('/objectives')).status).toBe(401)
  })
})

describe.each(['objectives', 'milestones'])('v3 /%s writes', (path) => {
  it('creates with categories found or made by name, reads it back, and sets state flags', async () => {
    const made = await v3(service).post(`/${path}`, {
      name: `Grow the beta (${path})`,
      description: 'Two hundred testers.',
      state: 'in progress',
      categories: [{ name: 'Growth' }, { name: `Brand new ${path}`, color: '#123456', external_id: `ext-${path}` }],
    })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ name: `Grow the beta (${path})`, state: 'in progress', started: true, completed: false, completed_at: null })
    expect(made.body.categories.map((c: { name: string }) => c.name)).toEqual(['Growth', `Brand new ${path}`])
    const fresh = (await v3(service).get('/categories')).body.find((c: { name: string }) => c.name === `Brand new ${path}`)
    expect(fresh).toMatchObject({ color: '#123456', external_id: `ext-${path}` })
    expect((await v3(service).get(`/${path}/${made.body.id}`)).body).toEqual(made.body)

    const done = await v3(service).put(`/${path}/${made.body.id}`, { state: 'done' })
    expect(done.body).toMatchObject({ state: 'done', started: true, completed: true, started_at: made.body.started_at })
    expect(done.body.completed_at).not.toBeNull()
    const back = await v3(service).put(`/${path}/${made.body.id}`, { state: 'to do' })
    expect(back.body).toMatchObject({ state: 'to do', started: false, completed: false, started_at: null, completed_at: null })

    const overrides = await v3(service).put(`/${path}/${made.body.id}`, {
      started_at_override: '2025-01-02T03:04:05Z',
      completed_at_override: '2025-02-03T04:05:06Z',
      archived: true,
      name: 'Renamed',
      description: 'Changed.',
      categories: [],
    })
    expect(overrides.body).toMatchObject({
      started_at_override: '2025-01-02T03:04:05Z',
      completed_at_override: '2025-02-03T04:05:06Z',
      archived: true,
      name: 'Renamed',
      description: 'Changed.',
      categories: [],
    })
    const unset = await v3(service).put(`/${path}/${made.body.id}`, { started_at_override: null, completed_at_override: null })
    expect(unset.body).toMatchObject({ started_at_override: null, completed_at_override: null })
    expect((await v3(service).get(`/${path}/${made.body.id}`)).body).toMatchObject({ name: 'Renamed', archived: true })
  })

  it('takes a 256-character name and a 100000-character description, and answers 422 past them', async () => {
    expect((await v3(service).post(`/${path}`, { name: 'n'.repeat(256), description: 'd'.repeat(100_000) })).status).toBe(201)
    const name = await v3(service).post(`/${path}`, { name: 'n'.repeat(257) })
    expect(name.status).toBe(422)
    expect(name.body.errors).toEqual({ name: 'must be at most 256 characters' })
    const description = await v3(service).post(`/${path}`, { name: 'ok', description: 'd'.repeat(100_001) })
    expect(description.status).toBe(422)
    expect(description.body.errors).toEqual({ description: 'must be at most 100000 characters' })
    const made = (await v3(service).post(`/${path}`, { name: 'short' })).body
    expect((await v3(service).put(`/${path}/${made.id}`, { name: 'n'.repeat(257) })).body.errors).toEqual({ name: 'must be at most 256 characters' })
    expect((await v3(service).post(`/${path}`, { name: 'cat', categories: [{ name: 'c'.repeat(129) }] })).status).toBe(422)
  })

  it.each([
    [{}, 'name'],
    [{ name: 'x', state: 'started' }, 'state'],
    [{ name: 'x', categories: [{ name: 'c', color: 'blue' }] }, 'categories.0.color'],
    [{ name: 'x', categories: [{}] }, 'categories.0.name'],
    [{ name: 'x', started_at_override: 'yesterday' }, 'started_at_override'],
    [{ name: 'x', archived: true }, 'archived'],
  ])('answers 400 to %o', async (body, field) => {
    const res = await v3(service).post(`/${path}`, body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('moves with after_id and before_id; refuses itself, unknown targets and both at once', async () => {
    const make = async (name: string) => (await v3(service).post(`/${path}`, { name })).body.id as number
    const a = await make('Move A')
    const b = await make('Move B')
    const c = await make('Move C')
    const order = async () => ids((await v3(service).get(`/${path}`)).body).filter((id) => [a, b, c].includes(id))
    expect(await order()).toEqual([a, b, c])
    expect((await v3(service).put(`/${path}/${c}`, { before_id: a })).status).toBe(200)
    expect(await order()).toEqual([c, a, b])
    expect((await v3(service).put(`/${path}/${c}`, { after_id: b })).body.position).toBeGreaterThan(0)
    expect(await order()).toEqual([a, b, c])
    const self = await v3(service).put(`/${path}/${a}`, { after_id: a })
    expect(self.status).toBe(422)
    expect(self.body.errors).toEqual({ after_id: 'is the objective itself' })
    expect((await v3(service).put(`/${path}/${a}`, { before_id: 99999999 })).status).toBe(422)
    expect((await v3(service).put(`/${path}/${a}`, { before_id: b, after_id: c })).status).toBe(400)
    expect(await order()).toEqual([a, b, c])
  })

  it('deletes, and the epics that named it forget it', async () => {
    const made = (await v3(service).post(`/${path}`, { name: 'Doomed' })).body
    const epic = await v3(service).post('/epics', { name: 'Epic of a doomed objective', objective_ids: [made.id] })
    expect(epic.body.objective_ids).toEqual([made.id])
    expect((await v3(service).delete(`/${path}/${made.id}`)).status).toBe(204)
    expect((await v3(service).get(`/${path}/${made.id}`)).status).toBe(404)
    expect((await v3(service).delete(`/${path}/${made.id}`)).status).toBe(404)
    expect((await v3(service).get(`/epics/${epic.body.id}`)).body.objective_ids).toEqual([])
  })

  it('answers 404, 400 for malformed ids, 403 to read-only and Observer tokens', async () => {
    expect((await v3(service).get(`/${path}/99999999`)).status).toBe(404)
    expect((await v3(service).put(`/${path}/99999999`, { name: 'x' })).status).toBe(404)
    expect((await v3(service).get(`/${path}/abc`)).status).toBe(400)
    expect((await v3(service, service.tokens.readonly).post(`/${path}`, { name: 'ro' })).status).toBe(403)
    const obs = await v3(service, service.tokens.observer).post(`/${path}`, { name: 'obs' })
    expect(obs.status).toBe(403)
    const some = (await v3(service).get(`/${path}`)).body[0].id
    expect((await v3(service, service.tokens.readonly).put(`/${path}/${some}`, { name: 'ro' })).status).toBe(403)
    expect((await v3(service, service.tokens.readonly).delete(`/${path}/${some}`)).status).toBe(403)
  })
})

describe('v3 GET /milestones/{id}/epics and /objectives/{id}/epics', () => {
  it('lists the epics naming the objective, with objective-scoped cycle and lead times', async () => {
    const objective = (await v3(service).post('/objectives', { name: 'With epics' })).body
    const first = (await v3(service).post('/epics', { name: 'First epic', objective_ids: [objective.id] })).body
    const second = (await v3(service).post('/epics', { name: 'Second epic', objective_ids: [objective.id] })).body
    await v3(service).post('/epics', { name: 'Unrelated epic' })
    insertStory(service, { epic_id: first.id, completed: true, started: true, created_at: at(0), started_at: at(30), completed_at: at(60) })
    insertStory(service, { epic_id: first.id, completed: true, started: true, created_at: at(0), started_at: at(50), completed_at: at(60) })
    for (const path of ['milestones', 'objectives']) {
      const res = await v3(service).get(`/${path}/${objective.id}/epics`)
      expect(res.status).toBe(200)
      expect(ids(res.body).sort()).toEqual([first.id, second.id].sort())
      const epic = res.body.find((e: { id: number }) => e.id === first.id)
      expect(epic).toMatchObject({ entity_type: 'epic', objective_ids: [objective.id], milestone_id: objective.id })
      expect(epic).not.toHaveProperty('comments')
      expect(epic.stats).toMatchObject({ num_stories_total: 2, average_cycle_time: 1200, average_lead_time: 3600 })
      expect(res.body.find((e: { id: number }) => e.id === second.id).stats).toMatchObject({ average_cycle_time: 0, average_lead_time: 0 })
    }
    const stats = (await v3(service).get(`/objectives/${objective.id}`)).body.stats
    expect(stats).toEqual({ average_cycle_time: 1200, average_lead_time: 3600, num_related_documents: 0 })
    expect((await v3(service).get('/milestones/99999999/epics')).status).toBe(404)
    expect((await v3(service).get('/milestones/abc/epics')).status).toBe(400)
  })
})

describe('objectives of a category', () => {
  let category: { id: number; name: string }
  let objectiveIds: number[]
  beforeAll(async () => {
    category = (await v3(service).post('/categories', { name: 'Objective holder' })).body
    objectiveIds = []
    for (const name of ['Cat A', 'Cat B', 'Cat C']) {
      objectiveIds.push((await v3(service).post('/objectives', { name, categories: [{ name: category.name }] })).body.id)
    }
    await v3(service).post('/objectives', { name: 'Not in the category' })
    await v3(service).put(`/objectives/${objectiveIds[1]}`, { archived: true })
    await v3(service).put(`/objectives/${objectiveIds[0]}`, { description: 'touched last' })
  })

  it('v3 lists them as objectives and as milestones', async () => {
    const objectives = await v3(service).get(`/categories/${category.id}/objectives`)
    expect(objectives.status).toBe(200)
    expect(ids(objectives.body)).toEqual(objectiveIds)
    expect(objectives.body[0].entity_type).toBe('objective')
    const milestones = await v3(service).get(`/categories/${category.id}/milestones`)
    expect(ids(milestones.body)).toEqual(objectiveIds)
    expect(milestones.body[0].entity_type).toBe('milestone')
    expect((await v3(service).get('/categories/99999999/objectives')).status).toBe(404)
    expect((await v3(service).get('/categories/99999999/milestones')).status).toBe(404)
    expect((await v3(service).get('/categories/abc/milestones')).status).toBe(400)
  })

  it('v4 lists them without archived ones by default, with slim references', async () => {
    const api = v4(service)
    const [a, b, c] = objectiveIds
    expect(ids(await walk(api, `/categories/${category.id}/objectives`))).toEqual([a, c])
    expect(ids(await walk(api, `/categories/${category.id}/objectives`, { filter: 'include_archived' }))).toEqual([a, b, c])
    expect(ids(await walk(api, `/categories/${category.id}/objectives`, { order_by: 'updated_at', order_dir: 'desc' }))).toEqual([a, c])
    const [first] = await walk(api, `/categories/${category.id}/objectives`, { limit: 1 })
    // The published ObjectiveSlim, exactly.
    expect(first).toEqual({
      entity_type: 'objective:slim',
      id: a,
      name: 'Cat A',
      uri: `${service.baseUrl}/api/v4/demo/objectives/${a}`,
      app_url: `${service.baseUrl}/demo/objective/${a}`,
    })
    const page = await api.get(`/categories/${category.id}/objectives`, { query: { fields: 'id,name', limit: 1 } })
    expect(page.body.entities).toEqual([{ id: a, name: 'Cat A' }])
    expect(page.body.next_page_url).toContain('fields=id%2Cname')
  })

  it('v4 answers 400 to bad list parameters, 404 for an unknown category, 401 to a v3 token', async () => {
    const api = v4(service)
    for (const query of [{ order_by: 'name' }, { filter: 'all' }, { fields: 'nope' }, { limit: 0 }]) {
      expect((await api.get(`/categories/${category.id}/objectives`, { query })).status).toBe(400)
    }
    expect((await api.get('/categories/99999999/objectives')).status).toBe(404)
    expect((await v4(service, service.tokens.v3).get(`/categories/${category.id}/objectives`)).status).toBe(401)
  })
})
