// v3 labels: the list, and the stories of a label.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3 } from '../../../testing/service.ts'
import { insertStory } from '../../../testing/story-fixtures.ts'
import { findOrCreateLabel } from './label.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

describe('v3 GET /labels', () => {
  it('lists the seeded labels in the v3 Label shape', async () => {
    const res = await v3(service).get('/labels')
    expect(res.status).toBe(200)
    const names = res.body.map((l: { name: string }) => l.name)
    expect(names).toEqual(expect.arrayContaining(['customer-request', 'performance', 'security', 'offline', 'tech-debt', 'ux']))
    const security = res.body.find((l: { name: string }) => l.name === 'security')
    expect(Object.keys(security).sort()).toEqual([
      'app_url',
      'archived',
      'color',
      'created_at',
      'description',
      'entity_type',
      'external_id',
      'global_id',
      'id',
      'name',
      'updated_at',
    ])
    expect(security.global_id).toBe(`${service.ctx.workspace.id}:label:${security.id}`)
    expect(security).toMatchObject({ entity_type: 'label', archived: false, color: '#e53935', app_url: `${service.baseUrl}/demo/label/${security.id}` })
    expect((await v3(service).get('/labels', { query: { slim: true } })).body).toEqual(res.body)
  })

  it('lists the labels an epic body created by name', async () => {
    const epic = await v3(service).post('/epics', { name: 'Labelled epic', labels: [{ name: 'made-by-an-epic', color: '#123456' }] })
    expect(epic.status).toBe(201)
    const made = (await v3(service).get('/labels')).body.find((l: { name: string }) => l.name === 'made-by-an-epic')
    expect(made).toMatchObject({ color: '#123456', id: epic.body.label_ids[0] })
  })

  it('answers 400 to a malformed slim flag and 401 without a token', async () => {
    expect((await v3(service).get('/labels', { query: { slim: 'very' } })).status).toBe(400)
    expect((await anonymous(service, '/api/v3').get('/labels')).status).toBe(401)
  })
})

describe('v3 POST /labels', () => {
  it('creates a label (201, the v3 Label) that the list then has', async () => {
    const res = await v3(service).post('/labels', { name: 'made-by-post', color: '#abcdef', description: 'Posted' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ entity_type: 'label', name: 'made-by-post', color: '#abcdef', description: 'Posted', archived: false, external_id: null })
    const listed = (await v3(service).get('/labels')).body.filter((l: { name: string }) => l.name === 'made-by-post')
    expect(listed).toEqual([res.body])
  })

  it('answers 422 naming the field for a name already taken; nothing is created', async () => {
    await v3(service).post('/labels', { name: 'taken-name' })
    const res = await v3(service).post('/labels', { name: 'taken-name', color: '#000000' })
    expect(res.status).toBe(422)
    expect(res.body).toMatchObject({ message: 'A label named "taken-name" already exists.', errors: { name: 'is already taken' } })
    expect((await v3(service).get('/labels')).body.filter((l: { name: string }) => l.name === 'taken-name')).toHaveLength(1)
  })

  it('answers 400 to a bad colour, an unknown field or no name; 422 past 128 characters; 403 read-only; 401 without a token', async () => {
    expect((await v3(service).post('/labels', { name: 'bad-colour', color: 'red' })).status).toBe(400)
    expect((await v3(service).post('/labels', { name: 'extra', kind: 'x' })).status).toBe(400)
    expect((await v3(service).post('/labels', { color: '#123456' })).status).toBe(400)
    const long = await v3(service).post('/labels', { name: 'l'.repeat(129) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toHaveProperty('name')
    expect((await v3(service, service.tokens.readonly).post('/labels', { name: 'read-only' })).status).toBe(403)
    expect((await anonymous(service, '/api/v3').post('/labels', { name: 'anonymous' })).status).toBe(401)
  })
})

describe('v3 GET /labels/{id}/stories', () => {
  it('lists the stories carrying the label in board order, descriptions when asked', async () => {
    const label = service.ctx.tx(() => findOrCreateLabel(service.ctx, { name: 'label-stories-test' }))
    const other = service.ctx.tx(() => findOrCreateLabel(service.ctx, { name: 'another-label' }))
    const b = insertStory(service, { label_ids: [other.id, label.id], position: 2, description: 'B' })
    const a = insertStory(service, { label_ids: [label.id], position: 1, description: 'A' })
    insertStory(service, { label_ids: [other.id] })
    const res = await v3(service).get(`/labels/${label.id}/stories`)
    expect(res.status).toBe(200)
    expect(res.body.map((s: { id: number }) => s.id)).toEqual([a.id, b.id])
    expect(res.body[1].labels.map((l: { name: string }) => l.name)).toEqual(['another-label', 'label-stories-test'])
    expect(res.body[0]).not.toHaveProperty('description')
    const described = await v3(service).get(`/labels/${label.id}/stories`, { query: { includes_description: true } })
    expect(described.body.map((s: { description: string }) => s.description)).toEqual(['A', 'B'])
    const none = service.ctx.tx(() => findOrCreateLabel(service.ctx, { name: 'unused-label' }))
    expect((await v3(service).get(`/labels/${none.id}/stories`)).body).toEqual([])
  })

  it('answers 404 for an unknown label, 400 for a malformed id or flag', async () => {
    expect((await v3(service).get('/labels/99999999/stories')).status).toBe(404)
    expect((await v3(service).get('/labels/abc/stories')).status).toBe(400)
    const label = service.ctx.col('label').ids()[0]
    expect((await v3(service).get(`/labels/${label}/stories`, { query: { includes_description: 'x' } })).status).toBe(400)
    expect((await anonymous(service, '/api/v3').get(`/labels/${label}/stories`)).status).toBe(401)
  })
})
