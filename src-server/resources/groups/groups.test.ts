// v3 groups (teams): list, create, read, update, their stories, and the
// workspace switch that turns teams off and on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import type { Activity } from '../../context.ts'
import { anonymous, testService, v3 } from '../../../testing/service.ts'
import type { MemberRecord } from '../members/member.ts'
import { insertStory } from '../../../testing/story-fixtures.ts'

let service: RunningService
let memberIds: string[]
let workflowId: number
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  memberIds = service.ctx
    .col<MemberRecord>('member')
    .all()
    .map((m) => m.id)
  workflowId = service.ctx.col('workflow').ids()[0] as number
})
afterAll(() => service.close())

const NOBODY = '00000000-0000-4000-8000-000000000000'
let serial = 0
const mention = () => `team-${++serial}`

describe('v3 GET /groups', () => {
  it('lists the seeded teams with members, workflows and counts', async () => {
    const res = await v3(service).get('/groups')
    expect(res.status).toBe(200)
    const names = res.body.map((g: { name: string }) => g.name)
    expect(names).toEqual(expect.arrayContaining(['Mobile', 'Web', 'Infrastructure']))
    const web = res.body.find((g: { name: string }) => g.name === 'Web')
    expect(web).toMatchObject({
      entity_type: 'group',
      mention_name: 'web',
      color: '#1e88e5',
      color_key: 'blue',
      archived: false,
      display_icon: null,
      workflow_ids: [workflowId],
      app_url: `${service.baseUrl}/demo/settings/team/${web.id}`,
    })
    expect(web.global_id).toBe(`${service.ctx.workspace.id}:group:${web.id}`)
    expect(new Set(res.body.map((g: { global_id: string }) => g.global_id)).size).toBe(res.body.length)
    expect(web.member_ids.length).toBeGreaterThan(1)
    for (const key of ['num_epics_started', 'num_stories', 'num_stories_backlog', 'num_stories_started']) expect(Number.isInteger(web[key])).toBe(true)
    const stories = (await v3(service).get(`/groups/${web.id}/stories`)).body
    expect(web.num_stories).toBe(stories.filter((s: { archived: boolean }) => !s.archived).length)
    expect(res.body.find((g: { name: string }) => g.name === 'Growth Experiments').archived).toBe(true)
  })
})

describe('v3 POST /groups', () => {
  it('creates a team; its members list it in their group_ids', async () => {
    const body = {
      name: 'Platform',
      mention_name: mention(),
      description: 'APIs',
      color: '#abcdef',
      color_key: 'slate',
      member_ids: memberIds.slice(0, 2),
      workflow_ids: [workflowId],
      display_icon_id: NOBODY,
    }
    const made = await v3(service).post('/groups', body)
    expect(made.status).toBe(201)
    const { display_icon_id: _icon, ...fields } = body
    expect(made.body).toMatchObject({ ...fields, archived: false, num_stories: 0, entity_type: 'group' })
    expect(made.body.display_icon).toMatchObject({ entity_type: 'icon', id: NOBODY, url: expect.stringContaining(NOBODY) })
    expect((await v3(service).get(`/groups/${made.body.id}`)).body).toEqual(made.body)
    const member = await v3(service).get(`/members/${memberIds[0]}`)
    expect(member.body.group_ids).toContain(made.body.id)
  })

  it('takes names of 63 characters and answers 422 naming the field past that', async () => {
    expect((await v3(service).post('/groups', { name: 'n'.repeat(63), mention_name: 'm'.repeat(63) })).status).toBe(201)
    const name = await v3(service).post('/groups', { name: 'n'.repeat(64), mention_name: mention() })
    expect(name.status).toBe(422)
    expect(name.body.errors).toEqual({ name: 'must be at most 63 characters' })
    const men = await v3(service).post('/groups', { name: 'ok', mention_name: 'm'.repeat(64) })
    expect(men.status).toBe(422)
    expect(men.body.errors).toEqual({ mention_name: 'must be at most 63 characters' })
  })

  it('answers 422 when the mention name is taken by a team or a member', async () => {
    for (const taken of ['web', 'ada']) {
      const res = await v3(service).post('/groups', { name: 'Clash', mention_name: taken })
      expect(res.status).toBe(422)
      expect(res.body.errors).toEqual({ mention_name: 'is already taken' })
    }
  })

  it('takes only mention names of the published pattern (lowercase letters, digits, - _ .), else 400 naming the field', async () => {
    const ok = await v3(service).post('/groups', { name: 'Pattern', mention_name: `a-b_c.${++serial}` })
    expect(ok.status).toBe(201)
    for (const bad of ['WEB', 'two words', 'team@home', 'équipe', '😀']) {
      const res = await v3(service).post('/groups', { name: 'Bad mention', mention_name: bad })
      expect(res.status, bad).toBe(400)
      expect(res.body).toMatchObject({ tag: 'bad_request', errors: { mention_name: expect.stringContaining('lowercase letters') } })
    }
    const put = await v3(service).put(`/groups/${ok.body.id}`, { mention_name: 'Capital' })
    expect(put.status).toBe(400)
    expect(Object.keys(put.body.errors)).toEqual(['mention_name'])
    expect((await v3(service).get(`/groups/${ok.body.id}`)).body.mention_name).toBe(`a-b_c.${serial}`)
  })

  it('answers 422 naming members and workflows that do not exist', async () => {
    const res = await v3(service).post('/groups', { name: 'Ghosts', mention_name: mention(), member_ids: [NOBODY], workflow_ids: [99999999] })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual(['member_ids', 'workflow_ids'])
  })

  it.each([
    [{ mention_name: 'x' }, 'name'],
    [{ name: 'x' }, 'mention_name'],
    [{ name: 'x', mention_name: 'y1', color: 'red' }, 'color'],
    [{ name: 'x', mention_name: 'y2', color_key: 'mauve' }, 'color_key'],
    [{ name: 'x', mention_name: 'y3', member_ids: ['not-a-uuid'] }, 'member_ids.0'],
    [{ name: 'x', mention_name: 'y4', archived: true }, 'archived'],
    [{ name: '', mention_name: 'y5' }, 'name'],
  ])('answers 400 to %o', async (body, field) => {
    const res = await v3(service).post('/groups', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('answers 403 to read-only and Observer tokens, 401 without one', async () => {
    expect((await v3(service, service.tokens.readonly).post('/groups', { name: 'ro', mention_name: mention() })).status).toBe(403)
    expect((await v3(service, service.tokens.observer).post('/groups', { name: 'obs', mention_name: mention() })).status).toBe(403)
    expect((await anonymous(service, '/api/v3').post('/groups', { name: 'anon', mention_name: mention() })).status).toBe(401)
  })
})

describe('v3 GET and PUT /groups/{id}', () => {
  it('updates fields, archives, and unsets colour and icon', async () => {
    const made = (await v3(service).post('/groups', { name: 'Before', mention_name: mention(), color: '#111111', display_icon_id: NOBODY })).body
    const renamed = await v3(service).put(`/groups/${made.id}`, {
      name: 'After',
      mention_name: `${made.mention_name}-x`,
      description: 'Changed',
      color: null,
      color_key: 'fuchsia',
      member_ids: [memberIds[2]],
      workflow_ids: [],
      default_workflow_id: workflowId,
      display_icon_id: null,
    })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({
      name: 'After',
      mention_name: `${made.mention_name}-x`,
      description: 'Changed',
      color: null,
      color_key: 'fuchsia',
      member_ids: [memberIds[2]],
      workflow_ids: [],
      default_workflow_id: workflowId,
      display_icon: null,
    })
    expect(renamed.body.updated_at >= made.updated_at).toBe(true)
    expect((await v3(service).put(`/groups/${made.id}`, { archived: true })).body.archived).toBe(true)
    // archived: null leaves it as it is.
    expect((await v3(service).put(`/groups/${made.id}`, { archived: null, description: 'still archived' })).body.archived).toBe(true)
    const read = await v3(service).get(`/groups/${made.id}`)
    expect(read.body).toMatchObject({ name: 'After', archived: true, description: 'still archived' })
    // Keeping its own mention name is no clash.
    expect((await v3(service).put(`/groups/${made.id}`, { mention_name: `${made.mention_name}-x` })).status).toBe(200)
  })

  it('answers 422 for a taken mention name, a long name and unknown members', async () => {
    const made = (await v3(service).post('/groups', { name: 'Clasher', mention_name: mention() })).body
    expect((await v3(service).put(`/groups/${made.id}`, { mention_name: 'mobile' })).body.errors).toEqual({ mention_name: 'is already taken' })
    const long = await v3(service).put(`/groups/${made.id}`, { name: 'n'.repeat(64) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ name: 'must be at most 63 characters' })
    expect((await v3(service).put(`/groups/${made.id}`, { member_ids: [NOBODY] })).status).toBe(422)
    expect((await v3(service).put(`/groups/${made.id}`, { default_workflow_id: 99999999 })).status).toBe(422)
  })

  it('answers 404 for an unknown team, 400 for a malformed id or body, 403 to read-only tokens', async () => {
    expect((await v3(service).get(`/groups/${NOBODY}`)).status).toBe(404)
    expect((await v3(service).put(`/groups/${NOBODY}`, { name: 'x' })).status).toBe(404)
    expect((await v3(service).get('/groups/not-a-uuid')).status).toBe(400)
    const team = service.ctx.col('group').ids()[0]
    expect((await v3(service).put(`/groups/${team}`, { color_key: 'mauve' })).status).toBe(400)
    expect((await v3(service).put(`/groups/${team}`, { nickname: 'x' })).status).toBe(400)
    expect((await v3(service, service.tokens.readonly).put(`/groups/${team}`, { name: 'ro' })).status).toBe(403)
  })
})

describe('v3 GET /groups/{id}/stories', () => {
  it('lists the team stories in board order, with limit and offset', async () => {
    const team = (await v3(service).post('/groups', { name: 'Storied', mention_name: mention() })).body
    const made = [3, 1, 2].map((position) => insertStory(service, { group_id: team.id, position }))
    insertStory(service, { group_id: null })
    const byPosition = [made[1].id, made[2].id, made[0].id]
    const all = await v3(service).get(`/groups/${team.id}/stories`)
    expect(all.status).toBe(200)
    expect(all.body.map((s: { id: number }) => s.id)).toEqual(byPosition)
    expect(all.body[0]).toMatchObject({ entity_type: 'story', group_id: team.id })
    expect(all.body[0]).not.toHaveProperty('description')
    expect((await v3(service).get(`/groups/${team.id}/stories`, { query: { limit: 2 } })).body.map((s: { id: number }) => s.id)).toEqual(byPosition.slice(0, 2))
    expect((await v3(service).get(`/groups/${team.id}/stories`, { query: { limit: 1, offset: 1 } })).body.map((s: { id: number }) => s.id)).toEqual([
      byPosition[1],
    ])
    expect((await v3(service).get(`/groups/${team.id}/stories`, { query: { offset: 5 } })).body).toEqual([])
    expect((await v3(service).get(`/groups/${team.id}`)).body.num_stories).toBe(3)
  })

  it('answers 400 to a limit outside 1..1000 or a negative offset, 404 for an unknown team', async () => {
    const team = service.ctx.col('group').ids()[0]
    for (const query of [{ limit: 0 }, { limit: 1001 }, { offset: -1 }, { limit: 'ten' }]) {
      expect((await v3(service).get(`/groups/${team}/stories`, { query })).status).toBe(400)
    }
    expect((await v3(service).get(`/groups/${team}/stories`, { query: { limit: 1000 } })).status).toBe(200)
    expect((await v3(service).get(`/groups/${NOBODY}/stories`)).status).toBe(404)
  })
})

describe('v3 PUT /groups/disable and /groups/enable', () => {
  it('refuses team writes with 403 UnusableEntitlementError while disabled; reads go on', async () => {
    const team = (await v3(service).post('/groups', { name: 'Switchable', mention_name: mention() })).body
    try {
      const off = await v3(service).put('/groups/disable')
      expect(off.status).toBe(204)
      const create = await v3(service).post('/groups', { name: 'Refused', mention_name: mention() })
      expect(create.status).toBe(403)
      expect(create.body.tag).toBe('unusable_entitlement_error')
      expect((await v3(service).put(`/groups/${team.id}`, { name: 'Refused' })).body.tag).toBe('unusable_entitlement_error')
      expect((await v3(service).get('/groups')).status).toBe(200)
      expect((await v3(service).get(`/groups/${team.id}`)).body.name).toBe('Switchable')
      expect((await v3(service).get(`/groups/${team.id}/stories`)).status).toBe(200)
      // Disabling twice is no error.
      expect((await v3(service).put('/groups/disable')).status).toBe(204)
    } finally {
      expect((await v3(service).put('/groups/enable')).status).toBe(204)
    }
    expect((await v3(service).put(`/groups/${team.id}`, { name: 'Allowed' })).body.name).toBe('Allowed')
    expect((await v3(service).post('/groups', { name: 'Allowed too', mention_name: mention() })).status).toBe(201)
  })

  it('answers 403 to read-only and Observer tokens, 401 without one', async () => {
    for (const path of ['/groups/disable', '/groups/enable']) {
      expect((await v3(service, service.tokens.readonly).put(path)).status).toBe(403)
      expect((await v3(service, service.tokens.observer).put(path)).status).toBe(403)
      expect((await anonymous(service, '/api/v3').put(path)).status).toBe(401)
    }
    expect(service.ctx.featureEnabled('groups')).toBe(true)
  })

  it('emits activity for team changes', async () => {
    const events: Activity[] = []
    const listen = (a: Activity) => events.push(a)
    service.ctx.activity.on('activity', listen)
    try {
      const team = (await v3(service).post('/groups', { name: 'Noisy', mention_name: mention() })).body
      await v3(service).put(`/groups/${team.id}`, { name: 'Noisier' })
      expect(events.map((e) => [e.entity_type, e.action, e.id])).toEqual([
        ['group', 'create', team.id],
        ['group', 'update', team.id],
      ])
      expect(events[1].changes).toEqual({ name: { old: 'Noisy', new: 'Noisier' } })
    } finally {
      service.ctx.activity.off('activity', listen)
    }
  })
})
