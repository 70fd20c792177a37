// v4 epics and the epic workflow: every operation's success and error paths,
// bulk semantics, search, and v3 and v4 views of one epic agreeing.
import { setTimeout } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3, walk } from '../../../testing/service.ts'
import { UUID_NOBODY, memberId, objectiveIds, recordActivity, teamIds, v4 } from '../../../testing/epic-fixtures.ts'

let service: RunningService
let ada: string
let max: string
let grace: string
let teams: string[]
let objectives: number[]
let states: { id: number; name: string; type: string }[]
const stateNamed = (name: string) => states.find((s) => s.name === name)!.id

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  ada = memberId(service, 'ada')
  max = memberId(service, 'max')
  grace = memberId(service, 'grace')
  teams = teamIds(service)
  objectives = objectiveIds(service)
  states = (await v4(service).get('/epic-workflow/states', { query: { limit: 100 } })).body.entities
})
afterAll(() => service.close())

const ids = (page: { entities: { id: unknown }[] }) => page.entities.map((e) => e.id)

describe('v4 epic workflow', () => {
  it('has To Do, In Progress and Done (and two more) with To Do the default', async () => {
    const res = await v4(service).get('/epic-workflow')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ entity_type: 'epic-workflow', default_epic_state: { entity_type: 'epic-state:slim', name: 'To Do', type: 'unstarted' } })
    expect(res.body.default_epic_state).not.toHaveProperty('uri')
    const names = res.body.epic_states.entities.map((s: { name: string; type: string }) => `${s.name}/${s.type}`)
    expect(names).toEqual(['To Do/unstarted', 'Planned/unstarted', 'In Progress/started', 'In Review/started', 'Done/done'])
    expect(res.body.epic_states).toMatchObject({ current_items: 5, total_items: 5, list_url: `${service.baseUrl}/api/v4/demo/epic-workflow/states` })
    expect(res.body.epic_states.entities[0]).toMatchObject({ entity_type: 'epic-state', position: 1, color: expect.stringMatching(/^#/) })
    const only = await v4(service).get('/epic-workflow', { query: { fields: 'id,default_epic_state' } })
    expect(Object.keys(only.body).sort()).toEqual(['default_epic_state', 'id'])
    expect((await v4(service).get('/epic-workflow', { query: { fields: 'nope' } })).status).toBe(400)
  })

  it('lists states by position in either direction, pages them, and reads one', async () => {
    const api = v4(service)
    const desc = await api.get('/epic-workflow/states', { query: { order_by: 'position', order_dir: 'desc', filter: 'all' } })
    expect(desc.body.entities.map((s: { position: number }) => s.position)).toEqual([5, 4, 3, 2, 1])
    const all = await walk(api, '/epic-workflow/states', { limit: 2 })
    expect(all.map((s) => s.name)).toEqual(['To Do', 'Planned', 'In Progress', 'In Review', 'Done'])
    expect((await api.get('/epic-workflow/states', { query: { filter: 'include_archived' } })).status).toBe(400)
    expect((await api.get('/epic-workflow/states', { query: { order_by: 'name' } })).status).toBe(400)
    const one = await api.get(`/epic-workflow/states/${stateNamed('Done')}`)
    expect(one.body).toMatchObject({ name: 'Done', type: 'done', uri: `${service.baseUrl}/api/v4/demo/epic-workflow/states/${stateNamed('Done')}` })
    expect((await api.get('/epic-workflow/states/999999')).status).toBe(404)
  })
})

describe('v4 epics: create, read, update, delete', () => {
  it('creates with defaults: the default state, the caller as requester, empty pages', async () => {
    const res = await v4(service).post('/epics', { name: 'Plain epic' })
    expect(res.status).toBe(201)
    const e = res.body
    expect(e).toMatchObject({
      entity_type: 'epic',
      name: 'Plain epic',
      description: '',
      archived: false,
      started: false,
      completed: false,
      started_at: null,
      completed_at: null,
      external_id: null,
      deadline: null,
      epic_state: { entity_type: 'epic-state:slim', name: 'To Do', type: 'unstarted' },
      requester: { entity_type: 'member:slim', id: ada, name: 'Ada Admin' },
      uri: `${service.baseUrl}/api/v4/demo/epics/${e.id}`,
      app_url: `${service.baseUrl}/demo/epic/${e.id}`,
    })
    for (const page of ['comments', 'followers', 'healths', 'labels', 'mentioned_members', 'mentioned_teams', 'objectives', 'owners', 'stories', 'teams']) {
      expect(e[page]).toMatchObject({ current_items: 0, total_items: 0, entities: [] })
      expect(e[page].list_url).toMatch(new RegExp(`/epics/${e.id}/[a-z-]+$`))
    }
    expect(e.created_at).toBe(e.updated_at)
  })

  it('creates with every field and reads it back', async () => {
    const body = {
      name: 'Everything epic',
      description: 'Ask @max about it, with the @' + 'nobody-here crew.',
      epic_state_id: stateNamed('In Progress'),
      external_id: 'ext-everything',
      deadline: '2030-01-31T00:00:00.000Z',
      planned_start_date: '2029-12-01T00:00:00.000Z',
      started_at_override: '2029-12-02T00:00:00.000Z',
      completed_at_override: '2030-02-01T00:00:00.000Z',
      requested_by_id: grace,
      follower_ids: [max, grace],
      owner_ids: [max],
      objective_ids: [objectives[0]],
      team_ids: [teams[0], teams[1]],
    }
    const made = await v4(service).post('/epics', body)
    expect(made.status).toBe(201)
    const read = await v4(service).get(`/epics/${made.body.id}`)
    expect(read.body).toEqual(made.body)
    expect(read.body).toMatchObject({
      description: body.description,
      external_id: 'ext-everything',
      deadline: body.deadline,
      planned_start_date: body.planned_start_date,
      started_at_override: body.started_at_override,
      completed_at_override: body.completed_at_override,
      started: true,
      completed: false,
      epic_state: { name: 'In Progress', type: 'started' },
      requester: { id: grace },
    })
    expect(read.body.started_at).toEqual(expect.any(String))
    expect(ids(read.body.followers)).toEqual([max, grace])
    expect(ids(read.body.owners)).toEqual([max])
    expect(ids(read.body.objectives)).toEqual([objectives[0]])
    expect(ids(read.body.teams)).toEqual([teams[0], teams[1]])
    expect(read.body.teams.entities[0]).toMatchObject({ entity_type: 'team:slim', app_url: expect.any(String), uri: expect.any(String) })
    expect(ids(read.body.mentioned_members)).toEqual([max])
  })

  it('returns only the fields asked for, and 400 for an unknown one', async () => {
    const made = await v4(service).post('/epics', { name: 'Fields' }, { query: { fields: 'id,name' } })
    expect(made.status).toBe(201)
    expect(Object.keys(made.body).sort()).toEqual(['id', 'name'])
    const read = await v4(service).get(`/epics/${made.body.id}`, { query: { fields: 'epic_state,updated_at' } })
    expect(Object.keys(read.body).sort()).toEqual(['epic_state', 'updated_at'])
    expect((await v4(service).get(`/epics/${made.body.id}`, { query: { fields: 'id,position' } })).status).toBe(400)
    // A bad fields name is refused before anything is written.
    const before = (await v4(service).get('/epics', { query: { filter: 'include_archived' } })).body.total_items
    expect((await v4(service).post('/epics', { name: 'x' }, { query: { fields: 'bogus' } })).status).toBe(400)
    expect((await v4(service).post('/epics/bulk', { epics: [{ name: 'x' }] }, { query: { fields: 'bogus' } })).status).toBe(400)
    expect((await v4(service).get('/epics', { query: { filter: 'include_archived' } })).body.total_items).toBe(before)
    expect((await v4(service).patch(`/epics/${made.body.id}`, { name: 'renamed' }, { query: { fields: 'bogus' } })).status).toBe(400)
    expect((await v4(service).patch('/epics/bulk', { epics: [{ id: made.body.id, name: 'renamed' }] }, { query: { fields: 'bogus' } })).status).toBe(400)
    expect((await v4(service).get(`/epics/${made.body.id}`)).body.name).toBe('Fields')
  })

  it.each([
    [{}, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'x', colour: 'red' }, 'colour'],
    [{ name: 'x', owner_ids: ['not-a-uuid'] }, 'owner_ids.0'],
    [{ name: 'x', epic_state_id: 'one' }, 'epic_state_id'],
    [{ name: 'x', deadline: 'tomorrow' }, 'deadline'],
    [{ name: 'x', completed_at_override: null }, 'completed_at_override'],
    [{ name: 'x', labels: [] }, 'labels'],
  ])('answers 400 to a schema mismatch %o', async (body, field) => {
    const res = await v4(service).post('/epics', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it.each([
    ['name', 256],
    ['description', 100_000],
    ['external_id', 128],
  ])('takes %s of exactly %i characters and answers 422 naming it past that', async (field, limit) => {
    const ok = await v4(service).post('/epics', { name: 'limits', [field]: 'n'.repeat(limit) })
    expect(ok.status).toBe(201)
    expect(ok.body[field]).toHaveLength(limit)
    const long = await v4(service).post('/epics', { name: 'limits', [field]: 'n'.repeat(limit + 1) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ [field]: `must be at most ${limit} characters` })
    const patched = await v4(service).patch(`/epics/${ok.body.id}`, { [field]: 'p'.repeat(limit + 1) })
    expect(patched.status).toBe(422)
    expect(Object.keys(patched.body.errors)).toEqual([field])
  })

  it.each([
    [{ epic_state_id: 999_999 }, 'epic_state_id'],
    [{ owner_ids: [UUID_NOBODY] }, 'owner_ids'],
    [{ follower_ids: [UUID_NOBODY] }, 'follower_ids'],
    [{ requested_by_id: UUID_NOBODY }, 'requested_by_id'],
    [{ team_ids: [UUID_NOBODY] }, 'team_ids'],
    [{ objective_ids: [999_999] }, 'objective_ids'],
  ])('answers 422 to a reference that does not exist %o', async (extra, field) => {
    const res = await v4(service).post('/epics', { name: 'bad ref', ...extra })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual([field])
    expect(res.body).toMatchObject({ tag: 'unprocessable', message: expect.any(String) })
  })

  it('refuses read-only, Observer and v3 tokens and anonymous callers', async () => {
    const ro = await v4(service, service.tokens.readonly).post('/epics', { name: 'ro' })
    expect(ro.status).toBe(403)
    expect(ro.body.tag).toBe('read_only_token')
    expect((await v4(service, service.tokens.observer).post('/epics', { name: 'obs' })).status).toBe(403)
    expect((await v4(service, service.tokens.v3).get('/epics')).status).toBe(401)
    expect((await anonymous(service, '/api/v4/demo').get('/epics')).status).toBe(401)
    // Read-only tokens and Observers still read.
    expect((await v4(service, service.tokens.readonly).get('/epics')).status).toBe(200)
    expect((await v4(service, service.tokens.observer).get('/epic-workflow')).status).toBe(200)
  })

  it('answers 404 for an epic that does not exist and 400 for a malformed id', async () => {
    const api = v4(service)
    expect((await api.get('/epics/999999')).status).toBe(404)
    expect((await api.patch('/epics/999999', { name: 'x' })).status).toBe(404)
    expect((await api.delete('/epics/999999')).status).toBe(404)
    expect((await api.get('/epics/abc')).status).toBe(400)
    expect((await api.get('/epics/0')).status).toBe(400)
    expect((await v4(service).get('/epics/1', { query: { limit: 3 } })).status).toBe(400)
  })

  it('patches with the replace, _add and _remove forms', async () => {
    const api = v4(service)
    const made = (await api.post('/epics', { name: 'Lists', owner_ids: [ada], team_ids: [teams[0]] })).body
    const p1 = await api.patch(`/epics/${made.id}`, {
      owner_ids_add: [max, grace],
      follower_ids: [grace],
      team_ids_remove: [teams[0]],
      objective_ids_add: [objectives[0], objectives[1]],
    })
    expect(p1.status).toBe(200)
    expect(ids(p1.body.owners)).toEqual([ada, max, grace])
    expect(ids(p1.body.followers)).toEqual([grace])
    expect(ids(p1.body.teams)).toEqual([])
    expect(ids(p1.body.objectives)).toEqual([objectives[0], objectives[1]])
    // Replace, then add, then remove, within one item.
    const p2 = await api.patch(`/epics/${made.id}`, {
      owner_ids: [max],
      owner_ids_add: [ada],
      owner_ids_remove: [max, UUID_NOBODY],
      objective_ids_remove: [objectives[0]],
    })
    expect(ids(p2.body.owners)).toEqual([ada])
    expect(ids(p2.body.objectives)).toEqual([objectives[1]])
    // Adding an id twice keeps one.
    expect(ids((await api.patch(`/epics/${made.id}`, { owner_ids_add: [ada, ada] })).body.owners)).toEqual([ada])
    const bad = await api.patch(`/epics/${made.id}`, { team_ids_add: [UUID_NOBODY] })
    expect(bad.status).toBe(422)
    expect(Object.keys(bad.body.errors)).toEqual(['team_ids_add'])
    expect(ids((await api.get(`/epics/${made.id}`)).body.owners)).toEqual([ada])
  })

  it('moves started and completed with the state type, and moves updated_at forward on every change', async () => {
    const api = v4(service)
    const made = (await api.post('/epics', { name: 'Flags' })).body
    const started = (await api.patch(`/epics/${made.id}`, { epic_state_id: stateNamed('In Progress') })).body
    expect(started).toMatchObject({ started: true, completed: false, completed_at: null })
    expect(started.started_at).toEqual(expect.any(String))
    expect(started.updated_at > made.updated_at).toBe(true)
    const review = (await api.patch(`/epics/${made.id}`, { epic_state_id: stateNamed('In Review') })).body
    expect(review.started_at).toBe(started.started_at)
    const done = (await api.patch(`/epics/${made.id}`, { epic_state_id: stateNamed('Done') })).body
    expect(done).toMatchObject({ started: true, completed: true, started_at: started.started_at })
    expect(done.completed_at).toEqual(expect.any(String))
    const reopened = (await api.patch(`/epics/${made.id}`, { epic_state_id: stateNamed('In Progress') })).body
    expect(reopened).toMatchObject({ started: true, completed: false, completed_at: null })
    const back = (await api.patch(`/epics/${made.id}`, { epic_state_id: stateNamed('Planned') })).body
    expect(back).toMatchObject({ started: false, completed: false, started_at: null, completed_at: null })
    // A patch that changes nothing leaves updated_at alone.
    expect((await api.patch(`/epics/${made.id}`, { name: 'Flags' })).body.updated_at).toBe(back.updated_at)
    const cleared = (await api.patch(`/epics/${made.id}`, { deadline: '2031-01-01T00:00:00Z', started_at_override: null })).body
    expect(cleared.deadline).toBe('2031-01-01T00:00:00Z')
    expect((await api.patch(`/epics/${made.id}`, { deadline: null })).body.deadline).toBeNull()
  })

  it('archives and unarchives: archived epics leave the default list', async () => {
    const api = v4(service)
    const made = (await api.post('/epics', { name: 'To archive' })).body
    const archived = await api.patch(`/epics/${made.id}`, { archived: true })
    expect(archived.body.archived).toBe(true)
    const visible = await walk(api, '/epics', { limit: 100 })
    expect(visible.some((e) => e.id === made.id)).toBe(false)
    expect(visible.every((e) => e.archived === false)).toBe(true)
    const all = await walk(api, '/epics', { limit: 100, filter: 'include_archived' })
    expect(all.some((e) => e.id === made.id)).toBe(true)
    await api.patch(`/epics/${made.id}`, { archived: false })
    expect((await walk(api, '/epics', { limit: 100 })).some((e) => e.id === made.id)).toBe(true)
  })

  it('deletes one epic only when archived unless force=true', async () => {
    const api = v4(service)
    const made = (await api.post('/epics', { name: 'Single delete' })).body
    const refused = await api.delete(`/epics/${made.id}`)
    expect(refused.status).toBe(422)
    expect(refused.body).toMatchObject({ tag: 'epic_not_archived', errors: { 'epic_ids[0]': `epic ${made.id} is not archived` } })
    expect((await api.get(`/epics/${made.id}`)).status).toBe(200)
    expect((await api.delete(`/epics/${made.id}`, undefined, { query: { force: true } })).status).toBe(204)
    expect((await api.get(`/epics/${made.id}`)).status).toBe(404)
    const other = (await api.post('/epics', { name: 'Archived delete' })).body
    await api.patch(`/epics/${other.id}`, { archived: true })
    expect((await api.delete(`/epics/${other.id}`)).status).toBe(204)
    expect((await v4(service, service.tokens.readonly).delete(`/epics/${made.id}`)).status).toBe(403)
  })
})

describe('v4 epic list and search', () => {
  it('orders by updated_at in either direction and by creation by default', async () => {
    const api = v4(service)
    const a = (await api.post('/epics', { name: 'Order A' })).body
    const b = (await api.post('/epics', { name: 'Order B' })).body
    // Timestamps have millisecond resolution: the touch must come after B's creation, not in the same millisecond.
    await setTimeout(5)
    await api.patch(`/epics/${a.id}`, { description: 'touched' })
    const desc = await walk(api, '/epics', { order_by: 'updated_at', order_dir: 'desc', limit: 100 })
    expect(desc[0].id).toBe(a.id)
    expect(desc[1].id).toBe(b.id)
    const times = desc.map((e) => e.updated_at)
    expect([...times].sort().reverse()).toEqual(times)
    const asc = await walk(api, '/epics', { order_by: 'updated_at', limit: 100 })
    expect(asc.at(-1).id).toBe(a.id)
    const byId = await walk(api, '/epics', { limit: 100 })
    expect(byId.map((e) => e.id)).toEqual([...byId.map((e) => e.id)].sort((x, y) => x - y))
  })

  it('pages with limit and cursor, and rejects bad list parameters', async () => {
    const api = v4(service)
    const first = await api.get('/epics', { query: { limit: 5, fields: 'id,name' } })
    expect(first.body).toMatchObject({ current_items: 5, current_page: 1 })
    expect(Object.keys(first.body.entities[0]).sort()).toEqual(['id', 'name'])
    const next = new URL(first.body.next_page_url)
    expect(next.searchParams.get('fields')).toBe('id,name')
    const second = await api.get('/epics', { query: Object.fromEntries(next.searchParams) })
    expect(second.body.current_page).toBe(2)
    expect(second.body.entities[0].id).not.toBe(first.body.entities[0].id)
    for (const query of [
      { limit: 0 },
      { limit: 101 },
      { order_by: 'name' },
      { filter: 'archived' },
      { fields: 'id,nope' },
      { cursor: next.searchParams.get('cursor')!, limit: 5 },
      { bogus: 1 },
    ]) {
      expect((await api.get('/epics', { query })).status, JSON.stringify(query)).toBe(400)
    }
  })

  it('searches names and descriptions, names first, and understands a few operators', async () => {
    const api = v4(service)
    const inName = (await api.post('/epics', { name: 'Zebra crossing redesign', external_id: 'search-ext-1', owner_ids: [max] })).body
    const inText = (
      await api.post('/epics', { name: 'Street furniture', description: 'Includes the zebra crossing near the school.', epic_state_id: stateNamed('Done') })
    ).body
    const archived = (await api.post('/epics', { name: 'Old zebra crossing', external_id: 'search-ext-2' })).body
    await api.patch(`/epics/${archived.id}`, { archived: true })

    const found = await api.get('/epics/search', { query: { query: 'zebra crossing' } })
    expect(found.status).toBe(200)
    expect(ids(found.body)).toEqual([inName.id, inText.id])
    expect(found.body.entities[0].entity_type).toBe('epic')
    expect(ids((await api.get('/epics/search', { query: { query: '"zebra crossing" is:archived' } })).body)).toEqual([archived.id])
    expect(ids((await api.get('/epics/search', { query: { query: 'external_id:search-ext-1' } })).body)).toEqual([inName.id])
    expect(ids((await api.get('/epics/search', { query: { query: 'external_id:search-ext-2 is:archived' } })).body)).toEqual([archived.id])
    expect(ids((await api.get('/epics/search', { query: { query: 'zebra state:Done' } })).body)).toEqual([inText.id])
    expect(ids((await api.get('/epics/search', { query: { query: 'zebra owner:max' } })).body)).toEqual([inName.id])
    expect(ids((await api.get('/epics/search', { query: { query: 'zebra !is:done' } })).body)).toEqual([inName.id])
    expect((await api.get('/epics/search', { query: { query: 'no-such-words-anywhere' } })).body).toMatchObject({ total_items: 0, entities: [] })
    expect((await api.get('/epics/search', { query: { query: 'zebra', fields: 'name' } })).body.entities[0]).toEqual({ name: inName.name })
  })

  it('pages search results with a cursor and rejects bad search parameters', async () => {
    const api = v4(service)
    await api.post('/epics/bulk', { epics: Array.from({ length: 5 }, (_, i) => ({ name: `Quokka ${i}` })) })
    const all = await walk(api, '/epics/search', { query: 'quokka', limit: 2 })
    expect(all).toHaveLength(5)
    expect(new Set(all.map((e) => e.id)).size).toBe(5)
    expect((await api.get('/epics/search')).status).toBe(400)
    expect((await api.get('/epics/search', { query: { query: '' } })).status).toBe(400)
    expect((await api.get('/epics/search', { query: { query: 'x', order_by: 'updated_at' } })).status).toBe(400)
    expect((await api.get('/epics/search', { query: { query: 'x', limit: 101 } })).status).toBe(400)
    expect((await api.get('/epics/search', { query: { query: 'is:sleeping' } })).status).toBe(400)
    expect((await v4(service, service.tokens.v3).get('/epics/search', { query: { query: 'x' } })).status).toBe(401)
  })
})

describe('v4 epic bulk operations', () => {
  it('creates several epics in one request and returns them as a list', async () => {
    const res = await v4(service).post('/epics/bulk', {
      epics: [
        { name: 'Bulk 1', external_id: 'bulk-1' },
        { name: 'Bulk 2', owner_ids: [max] },
      ],
    })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ current_items: 2, total_items: 2 })
    expect(res.body.entities.map((e: { name: string }) => e.name)).toEqual(['Bulk 1', 'Bulk 2'])
    expect(res.body).not.toHaveProperty('next_page_url')
    const fields = await v4(service).post('/epics/bulk', { epics: [{ name: 'Bulk 3' }] }, { query: { fields: 'id' } })
    expect(Object.keys(fields.body.entities[0])).toEqual(['id'])
  })

  it('creates nothing when one item fails, and names the item', async () => {
    const api = v4(service)
    const before = (await api.get('/epics', { query: { filter: 'include_archived' } })).body.total_items
    const res = await api.post('/epics/bulk', {
      epics: [
        { name: 'Fine', external_id: 'bulk-atomic' },
        { name: 'Broken', owner_ids: [UUID_NOBODY] },
      ],
    })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors)).toEqual(['epics[1].owner_ids'])
    expect(res.body.message).toMatch(/^epics\[1\]/)
    const long = await api.post('/epics/bulk', { epics: [{ name: 'Fine' }, { name: 'n'.repeat(257) }] })
    expect(long.status).toBe(422)
    expect(Object.keys(long.body.errors)).toEqual(['epics.1.name'])
    expect((await api.get('/epics', { query: { filter: 'include_archived' } })).body.total_items).toBe(before)
    expect((await api.get('/epics/search', { query: { query: 'external_id:bulk-atomic' } })).body.total_items).toBe(0)
    expect((await api.post('/epics/bulk', { epics: [] })).status).toBe(400)
    expect((await api.post('/epics/bulk', {})).status).toBe(400)
    expect((await api.post('/epics/bulk', { epics: Array.from({ length: 101 }, () => ({ name: 'x' })) })).status).toBe(400)
    expect((await v4(service, service.tokens.readonly).post('/epics/bulk', { epics: [{ name: 'x' }] })).status).toBe(403)
  })

  it('updates several epics with replace, _add and _remove forms and archived', async () => {
    const api = v4(service)
    const a = (await api.post('/epics', { name: 'BU a', owner_ids: [ada], follower_ids: [ada] })).body
    const b = (await api.post('/epics', { name: 'BU b', owner_ids: [ada, max], team_ids: [teams[0]] })).body
    const res = await api.patch('/epics/bulk', {
      epics: [
        { id: a.id, owner_ids: [max], follower_ids_add: [grace], objective_ids: [objectives[0]], epic_state_id: stateNamed('Done') },
        { id: b.id, owner_ids_remove: [ada], team_ids_add: [teams[1]], archived: true, name: 'BU b renamed' },
      ],
    })
    expect(res.status).toBe(200)
    const [ra, rb] = res.body.entities
    expect(ids(ra.owners)).toEqual([max])
    expect(ids(ra.followers)).toEqual([ada, grace])
    expect(ids(ra.objectives)).toEqual([objectives[0]])
    expect(ra).toMatchObject({ completed: true, epic_state: { name: 'Done' } })
    expect(ids(rb.owners)).toEqual([max])
    expect(ids(rb.teams)).toEqual([teams[0], teams[1]])
    expect(rb).toMatchObject({ archived: true, name: 'BU b renamed' })
    expect((await api.get(`/epics/${b.id}`)).body.archived).toBe(true)
  })

  it('updates nothing when one item fails, and names the item', async () => {
    const api = v4(service)
    const a = (await api.post('/epics', { name: 'BU atomic' })).body
    const missing = await api.patch('/epics/bulk', {
      epics: [
        { id: a.id, name: 'changed' },
        { id: 999_999, name: 'ghost' },
      ],
    })
    expect(missing.status).toBe(404)
    expect(Object.keys(missing.body.errors)).toEqual(['epics[1]'])
    const badState = await api.patch('/epics/bulk', {
      epics: [
        { id: a.id, name: 'changed' },
        { id: a.id, epic_state_id: 999_999 },
      ],
    })
    expect(badState.status).toBe(422)
    expect(Object.keys(badState.body.errors)).toEqual(['epics[1].epic_state_id'])
    const read = (await api.get(`/epics/${a.id}`)).body
    expect(read.name).toBe('BU atomic')
    expect(read.updated_at).toBe(a.updated_at)
    expect((await api.patch('/epics/bulk', { epics: [{ name: 'no id' }] })).status).toBe(400)
    expect((await api.patch('/epics/bulk', { epics: [{ id: a.id, owner_ids_plus: [] }] })).status).toBe(400)
  })

  it('deletes archived epics; refuses non-archived ones without force, deleting nothing', async () => {
    const api = v4(service)
    const archived = (await api.post('/epics', { name: 'BD archived' })).body
    const live = (await api.post('/epics', { name: 'BD live' })).body
    const live2 = (await api.post('/epics', { name: 'BD live 2' })).body
    await api.patch(`/epics/${archived.id}`, { archived: true })

    const refused = await api.delete('/epics/bulk', { epic_ids: [archived.id, live.id, live2.id] })
    expect(refused.status).toBe(422)
    expect(refused.body.tag).toBe('epic_not_archived')
    expect(refused.body.errors).toEqual({ 'epic_ids[1]': `epic ${live.id} is not archived`, 'epic_ids[2]': `epic ${live2.id} is not archived` })
    for (const e of [archived, live, live2]) expect((await api.get(`/epics/${e.id}`)).status).toBe(200)

    const missing = await api.delete('/epics/bulk', { epic_ids: [archived.id, 999_999] })
    expect(missing.status).toBe(404)
    expect(missing.body.errors).toEqual({ 'epic_ids[1]': 'no epic 999999' })
    expect((await api.get(`/epics/${archived.id}`)).status).toBe(200)

    expect((await api.delete('/epics/bulk', { epic_ids: [archived.id] })).status).toBe(204)
    expect((await api.get(`/epics/${archived.id}`)).status).toBe(404)
    expect((await api.delete('/epics/bulk', { epic_ids: [live.id, live2.id] }, { query: { force: true } })).status).toBe(204)
    expect((await api.get(`/epics/${live.id}`)).status).toBe(404)
    expect((await api.get(`/epics/${live2.id}`)).status).toBe(404)

    expect((await api.delete('/epics/bulk', { epic_ids: [] })).status).toBe(400)
    expect((await api.delete('/epics/bulk', { ids: [1] })).status).toBe(400)
    expect((await api.delete('/epics/bulk', { epic_ids: [1] }, { query: { force: 'maybe' } })).status).toBe(400)
    expect((await v4(service, service.tokens.observer).delete('/epics/bulk', { epic_ids: [1] })).status).toBe(403)
  })
})

describe('v3 and v4 views of one epic', () => {
  it('agree on every shared field, whichever generation wrote last', async () => {
    const made = (
      await v4(service).post('/epics', {
        name: 'Shared epic',
        description: 'Seen by both @grace',
        external_id: 'shared-1',
        owner_ids: [max],
        follower_ids: [grace],
        team_ids: [teams[0]],
        objective_ids: [objectives[0]],
        epic_state_id: stateNamed('In Progress'),
        deadline: '2031-05-01T00:00:00.000Z',
      })
    ).body
    await v3(service).put(`/epics/${made.id}`, { labels: [{ name: 'shared-label' }], group_ids: [teams[0], teams[1]] })
    await v3(service).post(`/epics/${made.id}/comments`, { text: 'From v3' })
    await v3(service).post(`/epics/${made.id}/health`, { status: 'At Risk' })

    const four = (await v4(service).get(`/epics/${made.id}`)).body
    const three = (await v3(service).get(`/epics/${made.id}`)).body
    for (const f of [
      'id',
      'name',
      'description',
      'archived',
      'started',
      'started_at',
      'completed',
      'completed_at',
      'deadline',
      'external_id',
      'created_at',
      'updated_at',
      'planned_start_date',
      'app_url',
    ]) {
      expect(four[f], f).toEqual(three[f])
    }
    expect(four.epic_state.id).toBe(three.epic_state_id)
    expect(ids(four.owners)).toEqual(three.owner_ids)
    expect(ids(four.followers)).toEqual(three.follower_ids)
    expect(ids(four.teams)).toEqual(three.group_ids)
    expect(ids(four.objectives)).toEqual(three.objective_ids)
    expect(ids(four.labels)).toEqual(three.label_ids)
    expect(four.labels.entities[0]).toMatchObject({ entity_type: 'label:slim', name: 'shared-label' })
    expect(four.requester.id).toBe(three.requested_by_id)
    expect(ids(four.mentioned_members)).toEqual(three.member_mention_ids)
    expect(ids(four.comments)).toEqual(three.comments.map((c: { id: number }) => c.id))
    expect(four.healths.entities[0]).toMatchObject({ entity_type: 'health:slim', id: three.health.id, status: 'At Risk' })
    expect(three.state).toBe('in progress')
  })
})

describe('v4 epic activity', () => {
  it('emits create, update (with old and new values), archive, move and delete', async () => {
    const api = v4(service)
    const rec = recordActivity(service)
    try {
      const made = (await api.post('/epics', { name: 'Evented' })).body
      await api.patch(`/epics/${made.id}`, { name: 'Evented 2', owner_ids: [max] })
      await api.patch(`/epics/${made.id}`, { epic_state_id: stateNamed('In Progress') })
      await api.patch(`/epics/${made.id}`, { archived: true })
      await api.patch(`/epics/${made.id}`, { archived: true })
      await api.delete(`/epics/${made.id}`)
      const mine = rec.events.filter((e) => e.id === made.id)
      expect(mine.map((e) => e.action)).toEqual(['create', 'update', 'update', 'update', 'delete'])
      expect(mine.every((e) => e.entity_type === 'epic' && e.member_id === ada)).toBe(true)
      expect(mine[1].changes).toMatchObject({ name: { old: 'Evented', new: 'Evented 2' }, owner_ids: { old: [], new: [max] } })
      expect(mine[2].changes).toMatchObject({ epic_state_id: { old: stateNamed('To Do'), new: stateNamed('In Progress') }, started: { old: false, new: true } })
      expect(mine[3].changes).toEqual({ archived: { old: false, new: true } })
      expect(mine[4].name).toBe('Evented 2')
    } finally {
      rec.stop()
    }
  })
})
