// Entity (story) templates: v3 list/create/read/update/delete, the feature
// switch, and v4 read/update/delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3, v4 } from '../../../testing/service.ts'
import { customFields } from '../custom-fields/field.ts'
import type { MemberRecord } from '../members/member.ts'
import { insertStory } from '../../../testing/story-fixtures.ts'
import { stories } from '../stories/story.ts'

let service: RunningService
let people: MemberRecord[]
let adminId: string
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  people = service.ctx.col<MemberRecord>('member').all()
  adminId = (await v3(service).get('/member')).body.id
})
afterAll(() => service.close())

const NOBODY = '00000000-0000-4000-8000-000000000000'
const field = (name: string) => customFields(service.ctx).byName(name)[0]
const firstId = (kind: Parameters<RunningService['ctx']['col']>[0]) => service.ctx.col(kind).ids()[0]

describe('v3 GET /entity-templates', () => {
  it('lists the seeded templates with their story contents', async () => {
    const res = await v3(service).get('/entity-templates')
    expect(res.status).toBe(200)
    expect(res.body.map((t: { name: string }) => t.name)).toEqual(['Bug report', 'Feature request'])
    const [bug, feature] = res.body
    expect(bug).toMatchObject({ entity_type: 'entity-template', author_id: expect.any(String), last_used_at: bug.created_at })
    expect(bug.story_contents).toMatchObject({ entity_type: 'story', story_type: 'bug', name: 'Bug: ' })
    expect(bug.story_contents.custom_fields.map((c: { value: string }) => c.value)).toEqual(['Sev 3', 'Medium'])
    expect(bug.story_contents.tasks).toMatchObject([{ description: 'Reproduce on the latest build', complete: false, position: 1 }, { position: 2 }])
    expect(feature.story_contents.labels.map((l: { name: string }) => l.name)).toEqual(['customer-request', 'ux'])
    expect(feature.story_contents.labels[0]).toMatchObject({ entity_type: 'label' })
    expect(feature.story_contents).not.toHaveProperty('epic_id')
    expect((await anonymous(service, '/api/v3').get('/entity-templates')).status).toBe(401)
  })
})

describe('v3 POST, GET, PUT and DELETE /entity-templates', () => {
  it('creates a template naming everything a story can carry, and reads it back', async () => {
    const epic = (await v3(service).post('/epics', { name: 'Templated epic' })).body
    const priority = field('Priority')
    const fileId = firstId('file') as number
    const linkedId = firstId('linked_file') as number
    const body = {
      name: 'Everything',
      story_contents: {
        name: 'A story',
        description: 'Text',
        story_type: 'chore',
        epic_id: epic.id,
        estimate: 3,
        deadline: '2030-01-01T00:00:00Z',
        external_links: ['https://example.com/a'],
        owner_ids: [people[0].id],
        follower_ids: [people[1].id],
        group_id: firstId('group'),
        iteration_id: firstId('iteration'),
        project_id: firstId('project'),
        workflow_state_id: firstId('workflow_state'),
        file_ids: [fileId],
        linked_file_ids: [linkedId],
        labels: [{ name: 'ux' }, { name: 'made-by-a-template', color: '#00ff00' }],
        custom_fields: [{ field_id: priority.id, value_id: priority.values[1].id }],
        tasks: [
          { description: 'Do it', owner_ids: [people[0].id] },
          { description: 'Check it', complete: true, external_id: 't-2' },
        ],
        sub_tasks: [{ name: 'Part one', workflow_state_id: firstId('workflow_state') }, { name: 'Part two' }],
      },
    }
    const made = await v3(service).post('/entity-templates', body)
    expect(made.status).toBe(201)
    const { labels: _labels, file_ids: _files, linked_file_ids: _linked, custom_fields: _cf, tasks: _tasks, sub_tasks: _sub, ...plain } = body.story_contents
    expect(made.body).toMatchObject({ name: 'Everything', author_id: adminId, entity_type: 'entity-template', last_used_at: made.body.created_at })
    const c = made.body.story_contents
    expect(c).toMatchObject({ ...plain, entity_type: 'story' })
    expect(c.labels.map((l: { name: string }) => l.name)).toEqual(['ux', 'made-by-a-template'])
    expect(c.label_ids).toEqual(c.labels.map((l: { id: number }) => l.id))
    expect((await v3(service).get('/labels')).body.find((l: { name: string }) => l.name === 'made-by-a-template').color).toBe('#00ff00')
    expect(c.custom_fields).toEqual([{ field_id: priority.id, value_id: priority.values[1].id, value: 'High' }])
    expect(c.files).toMatchObject([{ entity_type: 'file', id: fileId }])
    expect(c.linked_files).toMatchObject([{ entity_type: 'linked-file', id: linkedId }])
    expect(c.tasks).toEqual([
      { description: 'Do it', complete: false, owner_ids: [people[0].id], external_id: null, position: 1 },
      { description: 'Check it', complete: true, owner_ids: [], external_id: 't-2', position: 2 },
    ])
    // Sub-tasks as the published v3 StoryContents has them: no position (the list's order is theirs), no null state.
    expect(c.sub_tasks).toEqual([
      { name: 'Part one', owner_ids: [], workflow_state_id: firstId('workflow_state') },
      { name: 'Part two', owner_ids: [] },
    ])
    // v4 keeps each sub-task's position (spec part 1 §2.2); one without a workflow state leaves it out, never null.
    const v4SubTasks = (await v4(service).get(`/entity-templates/${made.body.id}`)).body.story_contents.sub_tasks
    expect(v4SubTasks.map((t: { name: string; position: number }) => [t.name, t.position])).toEqual([
      ['Part one', 1],
      ['Part two', 2],
    ])
    expect(v4SubTasks[0].workflow_state).toMatchObject({ entity_type: 'workflow-state:slim', id: firstId('workflow_state') })
    expect(v4SubTasks[1]).not.toHaveProperty('workflow_state')
    expect((await v3(service).get(`/entity-templates/${made.body.id}`)).body).toEqual(made.body)
  })

  it('takes another author, and a 128-character name; answers 422 past it', async () => {
    const other = await v3(service).post('/entity-templates', { name: 't'.repeat(128), author_id: people[1].id, story_contents: {} })
    expect(other.status).toBe(201)
    expect(other.body.author_id).toBe(people[1].id)
    const long = await v3(service).post('/entity-templates', { name: 't'.repeat(129), story_contents: {} })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ name: 'must be at most 128 characters' })
  })

  it('answers 422 naming what does not exist or cannot apply', async () => {
    const priority = field('Priority')
    const cases: [object, string][] = [
      [{ author_id: NOBODY }, 'author_id'],
      [{ story_contents: { epic_id: 99999999 } }, 'story_contents.epic_id'],
      [{ story_contents: { owner_ids: [NOBODY] } }, 'story_contents.owner_ids'],
      [{ story_contents: { group_id: NOBODY } }, 'story_contents.group_id'],
      [{ story_contents: { file_ids: [99999999] } }, 'story_contents.file_ids'],
      [
        { story_contents: { custom_fields: [{ field_id: priority.id, value_id: field('Severity').values[0].id }] } },
        'story_contents.custom_fields[0].value_id',
      ],
      [
        { story_contents: { custom_fields: [{ field_id: field('Technical Area').id, value_id: field('Technical Area').values[0].id }] } },
        'story_contents.custom_fields[0].field_id',
      ],
      [{ story_contents: { tasks: [{ description: 'x', owner_ids: [NOBODY] }] } }, 'story_contents.tasks[0].owner_ids'],
    ]
    for (const [extra, key] of cases) {
      const res = await v3(service).post('/entity-templates', { name: 'Broken', story_contents: {}, ...extra })
      expect(res.status, key).toBe(422)
      expect(Object.keys(res.body.errors)).toEqual([key])
    }
  })

  it.each([
    [{ story_contents: {} }, 'name'],
    [{ name: 'x' }, 'story_contents'],
    [{ name: 'x', story_contents: { story_type: 'epic' } }, 'story_contents.story_type'],
    [{ name: 'x', story_contents: { labels: [{ name: 'l', color: 'green' }] } }, 'story_contents.labels.0.color'],
    [{ name: 'x', story_contents: { estimate: 'three' } }, 'story_contents.estimate'],
    [{ name: 'x', story_contents: { colour: 'x' } }, 'story_contents.colour'],
    [{ name: 'x', story_contents: { tasks: [{}] } }, 'story_contents.tasks.0.description'],
  ])('answers 400 to %o', async (body, key) => {
    const res = await v3(service).post('/entity-templates', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(key)
  })

  it('PUT renames and merges story contents: keys sent replace, null unsets', async () => {
    const epic = (await v3(service).post('/epics', { name: 'Epic to unset' })).body
    const made = (
      await v3(service).post('/entity-templates', {
        name: 'Mergeable',
        story_contents: { description: 'Old', estimate: 5, epic_id: epic.id, labels: [{ name: 'ux' }] },
      })
    ).body
    const res = await v3(service).put(`/entity-templates/${made.id}`, {
      name: 'Merged',
      story_contents: { description: 'New', epic_id: null, labels: [{ name: 'security' }] },
    })
    expect(res.status).toBe(200)
    expect(res.body.name).toBe('Merged')
    expect(res.body.story_contents).toMatchObject({ description: 'New', estimate: 5 })
    expect(res.body.story_contents).not.toHaveProperty('epic_id')
    expect(res.body.story_contents.labels.map((l: { name: string }) => l.name)).toEqual(['security'])
    expect((await v3(service).put(`/entity-templates/${made.id}`, { name: 'Only the name' })).body.story_contents.description).toBe('New')
    expect((await v3(service).get(`/entity-templates/${made.id}`)).body.name).toBe('Only the name')
    expect((await v3(service).put(`/entity-templates/${made.id}`, { name: 't'.repeat(129) })).status).toBe(422)
    expect((await v3(service).put(`/entity-templates/${made.id}`, { story_contents: { project_id: 99999999 } })).status).toBe(422)
    expect((await v3(service).put(`/entity-templates/${made.id}`, { author_id: adminId })).status).toBe(400)
  })

  it('DELETE removes it, and stories made from it forget it', async () => {
    const made = (await v3(service).post('/entity-templates', { name: 'Short-lived', story_contents: {} })).body
    const story = insertStory(service, { story_template_id: made.id })
    expect((await v3(service).delete(`/entity-templates/${made.id}`)).status).toBe(204)
    expect((await v3(service).get(`/entity-templates/${made.id}`)).status).toBe(404)
    expect((await v3(service).delete(`/entity-templates/${made.id}`)).status).toBe(404)
    expect(stories(service.ctx).get(story.id)!.story_template_id).toBeNull()
  })

  it('answers 404 and 400 for unknown and malformed ids, 403 to read-only and Observer tokens', async () => {
    expect((await v3(service).get(`/entity-templates/${NOBODY}`)).status).toBe(404)
    expect((await v3(service).put(`/entity-templates/${NOBODY}`, { name: 'x' })).status).toBe(404)
    expect((await v3(service).get('/entity-templates/42')).status).toBe(400)
    const some = firstId('entity_template')
    for (const token of [service.tokens.readonly, service.tokens.observer]) {
      expect((await v3(service, token).post('/entity-templates', { name: 'x', story_contents: {} })).status).toBe(403)
      expect((await v3(service, token).put(`/entity-templates/${some}`, { name: 'x' })).status).toBe(403)
      expect((await v3(service, token).delete(`/entity-templates/${some}`)).status).toBe(403)
    }
  })
})

describe('v3 PUT /entity-templates/disable and /enable', () => {
  it('answers 403 DisabledFeatureError on every template route while disabled', async () => {
    const some = firstId('entity_template')
    try {
      expect((await v3(service).put('/entity-templates/disable')).status).toBe(204)
      const refused = [
        await v3(service).get('/entity-templates'),
        await v3(service).post('/entity-templates', { name: 'x', story_contents: {} }),
        await v3(service).get(`/entity-templates/${some}`),
        await v3(service).put(`/entity-templates/${some}`, { name: 'x' }),
        await v3(service).delete(`/entity-templates/${some}`),
        await v4(service).get(`/entity-templates/${some}`),
        await v4(service).patch(`/entity-templates/${some}`, { name: 'x' }),
        await v4(service).delete(`/entity-templates/${some}`),
      ]
      for (const res of refused) {
        expect(res.status).toBe(403)
        expect(res.body.tag).toBe('disabled_feature_error')
      }
    } finally {
      expect((await v3(service).put('/entity-templates/enable')).status).toBe(204)
    }
    expect((await v3(service).get(`/entity-templates/${some}`)).status).toBe(200)
    expect((await v3(service).put('/entity-templates/enable')).status).toBe(204)
  })

  it('answers 403 to read-only and Observer tokens, 401 without one', async () => {
    for (const path of ['/entity-templates/disable', '/entity-templates/enable']) {
      expect((await v3(service, service.tokens.readonly).put(path)).status).toBe(403)
      expect((await v3(service, service.tokens.observer).put(path)).status).toBe(403)
      expect((await anonymous(service, '/api/v3').put(path)).status).toBe(401)
    }
    expect(service.ctx.featureEnabled('entity_templates')).toBe(true)
  })
})

describe('v4 entity templates', () => {
  it('reads one with slim references, and with fields', async () => {
    const team = firstId('group') as string
    const made = (
      await v3(service).post('/entity-templates', {
        name: 'Slim refs',
        story_contents: {
          group_id: team,
          owner_ids: [people[0].id],
          labels: [{ name: 'ux' }],
          tasks: [{ description: 'T', owner_ids: [people[0].id] }],
          workflow_state_id: firstId('workflow_state'),
        },
      })
    ).body
    const res = await v4(service).get(`/entity-templates/${made.id}`)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      entity_type: 'entity-template',
      id: made.id,
      name: 'Slim refs',
      uri: `${service.baseUrl}/api/v4/demo/entity-templates/${made.id}`,
      author: { entity_type: 'member:slim', id: adminId },
      story_contents: {
        entity_type: 'story',
        team: { entity_type: 'team:slim', id: team },
        owners: [{ entity_type: 'member:slim', id: people[0].id }],
        labels: [{ entity_type: 'label:slim', name: 'ux' }],
        tasks: [{ description: 'T', complete: false, position: 1, owners: [{ id: people[0].id }] }],
        workflow_state: { entity_type: 'workflow-state:slim', workflow_name: 'Engineering' },
      },
    })
    expect(res.body.story_contents).not.toHaveProperty('epic')
    expect((await v4(service).get(`/entity-templates/${made.id}`, { query: { fields: 'id,name' } })).body).toEqual({ id: made.id, name: 'Slim refs' })
    expect((await v4(service).get(`/entity-templates/${NOBODY}`)).status).toBe(404)
  })

  it('PATCH renames and edits lists with replace, _add and _remove forms', async () => {
    const label = (name: string) => service.ctx.col('label').byName(name)[0].id as number
    const priority = field('Priority')
    const made = (
      await v3(service).post('/entity-templates', {
        name: 'Patchable',
        story_contents: {
          labels: [{ name: 'ux' }, { name: 'security' }],
          estimate: 2,
          external_links: ['https://a.example'],
          custom_fields: [{ field_id: priority.id, value_id: priority.values[0].id }],
        },
      })
    ).body
    const res = await v4(service).patch(`/entity-templates/${made.id}`, {
      name: 'Patched',
      story_contents: {
        label_ids_add: [label('offline')],
        label_ids_remove: [label('ux')],
        owner_ids_add: [people[2].id],
        external_links_add: ['https://b.example'],
        custom_fields_add: [{ field_id: priority.id, value_id: priority.values[3].id }],
        estimate: null,
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.name).toBe('Patched')
    const c = res.body.story_contents
    expect(c.labels.map((l: { name: string }) => l.name)).toEqual(['security', 'offline'])
    expect(c.owners.map((o: { id: string }) => o.id)).toEqual([people[2].id])
    expect(c.external_links).toEqual(['https://a.example', 'https://b.example'])
    expect(c.custom_fields).toEqual([{ field_id: priority.id, value_id: priority.values[3].id }])
    expect(c).not.toHaveProperty('estimate')
    const removed = await v4(service).patch(
      `/entity-templates/${made.id}`,
      { story_contents: { custom_fields_remove: [{ field_id: priority.id, value_id: priority.values[3].id }], label_ids: [] } },
      { query: { fields: 'story_contents' } },
    )
    expect(removed.body.story_contents.custom_fields).toEqual([])
    expect(removed.body.story_contents.labels).toEqual([])
    const v3view = (await v3(service).get(`/entity-templates/${made.id}`)).body
    expect(v3view).toMatchObject({ name: 'Patched', story_contents: { label_ids: [], owner_ids: [people[2].id] } })
  })

  it('PATCH answers 422 past the name limit or for unknown ids, 400 to schema mismatches, 404 and 403', async () => {
    const some = firstId('entity_template')
    const long = await v4(service).patch(`/entity-templates/${some}`, { name: 't'.repeat(129) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ name: 'must be at most 128 characters' })
    expect((await v4(service).patch(`/entity-templates/${some}`, { story_contents: { label_ids_add: [99999999] } })).body.errors).toEqual({
      'story_contents.label_ids': 'no label 99999999',
    })
    expect((await v4(service).patch(`/entity-templates/${some}`, { story_contents: { labels: [{ name: 'v3 form' }] } })).status).toBe(400)
    expect((await v4(service).patch(`/entity-templates/${some}`, { name: 5 })).status).toBe(400)
    expect((await v4(service).patch(`/entity-templates/${some}`, { name: 'x' }, { query: { fields: 'nope' } })).status).toBe(400)
    expect((await v4(service).patch(`/entity-templates/${NOBODY}`, { name: 'x' })).status).toBe(404)
    expect((await v4(service, service.tokens.readonly).patch(`/entity-templates/${some}`, { name: 'ro' })).status).toBe(403)
    expect((await v4(service, service.tokens.v3).patch(`/entity-templates/${some}`, { name: 'v3' })).status).toBe(401)
  })

  it('DELETE removes it', async () => {
    const made = (await v3(service).post('/entity-templates', { name: 'Deleted on v4', story_contents: {} })).body
    expect((await v4(service, service.tokens.readonly).delete(`/entity-templates/${made.id}`)).status).toBe(403)
    expect((await v4(service).delete(`/entity-templates/${made.id}`)).status).toBe(204)
    expect((await v4(service).delete(`/entity-templates/${made.id}`)).status).toBe(404)
    expect((await v3(service).get(`/entity-templates/${made.id}`)).status).toBe(404)
    expect((await v4(service).delete('/entity-templates/nope')).status).toBe(400)
  })
})
