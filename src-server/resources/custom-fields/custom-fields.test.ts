// Custom fields over v3 and v4: reads, updates of the values list (replace,
// add, remove), moves, conflicts (409), limits (422), bulk forms, deletes,
// and the stories that have a value set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3, v4, walk } from '../../../testing/service.ts'
import { at, insertStory } from '../../../testing/story-fixtures.ts'
import { customFields, type CustomFieldRecord } from './field.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

const NOBODY = '00000000-0000-4000-8000-000000000000'
let serial = 0

/** A field of our own, so tests that change or delete fields do not meet each other. */
function insertField(values: string[] = ['One', 'Two', 'Three']): CustomFieldRecord {
  const ctx = service.ctx
  const now = ctx.now()
  const position = customFields(ctx).count() + 1
  return ctx.tx(() =>
    customFields(ctx).insert({
      id: ctx.uuid(),
      name: `Field ${++serial}`,
      description: '',
      canonical_name: null,
      enabled: true,
      field_type: 'enum',
      fixed_position: false,
      icon_set_identifier: null,
      position,
      story_types: [],
      values: values.map((value, i) => ({ id: ctx.uuid(), value, position: i, color_key: null, enabled: true })),
      created_at: now,
      updated_at: now,
    }),
  )
}

const valueNames = (f: { values: { value: string }[] }) => f.values.map((v) => v.value)

describe('v3 reads', () => {
  it('lists the seeded fields in position order, in the v3 shape', async () => {
    const res = await v3(service).get('/custom-fields')
    expect(res.status).toBe(200)
    expect(res.body.slice(0, 4).map((f: { name: string }) => f.name)).toEqual(['Priority', 'Severity', 'Product Area', 'Technical Area'])
    const priority = res.body[0]
    expect(Object.keys(priority).sort()).toEqual([
      'canonical_name',
      'created_at',
      'description',
      'enabled',
      'entity_type',
      'field_type',
      'icon_set_identifier',
      'id',
      'name',
      'position',
      'updated_at',
      'values',
    ])
    expect(priority).toMatchObject({ entity_type: 'custom-field', field_type: 'enum', canonical_name: 'priority', enabled: true, position: 1 })
    expect(priority.values[0]).toMatchObject({ entity_type: 'custom-field-enum-value', value: 'Highest', position: 0, color_key: 'red', enabled: true })
    expect(res.body[3].enabled).toBe(false)
    expect((await v3(service).get(`/custom-fields/${priority.id}`)).body).toEqual(priority)
  })

  it('leaves out what a field does not have (never null or ""), as the published v3 CustomField types it; v4 says null', async () => {
    const f = insertField()
    const bare = (await v3(service).get(`/custom-fields/${f.id}`)).body
    for (const key of ['canonical_name', 'description', 'icon_set_identifier']) expect(bare).not.toHaveProperty(key)
    expect((await v3(service).get('/custom-fields')).body.find((x: { id: string }) => x.id === f.id)).toEqual(bare)
    expect((await v4(service).get(`/custom-fields/${f.id}`)).body).toMatchObject({ canonical_name: null, description: '', icon_set_identifier: null })
    // Set, then cleared: the description goes away again.
    expect((await v3(service).put(`/custom-fields/${f.id}`, { description: 'Set', icon_set_identifier: 'star' })).body).toMatchObject({
      description: 'Set',
      icon_set_identifier: 'star',
    })
    expect((await v3(service).put(`/custom-fields/${f.id}`, { description: '' })).body).not.toHaveProperty('description')
  })

  it('answers 404 for an unknown field, 400 for a malformed id, 401 without a token', async () => {
    expect((await v3(service).get(`/custom-fields/${NOBODY}`)).status).toBe(404)
    expect((await v3(service).get('/custom-fields/123')).status).toBe(400)
    expect((await anonymous(service, '/api/v3').get('/custom-fields')).status).toBe(401)
  })
})

describe('v3 PUT /custom-fields/{id}', () => {
  it('changes the field and replaces its values: reorders, edits, creates and deletes', async () => {
    const f = insertField(['One', 'Two', 'Three'])
    const [one, two, three] = f.values
    const story = insertStory(service, { custom_fields: [{ field_id: f.id, value_id: three.id }] })
    const res = await v3(service).put(`/custom-fields/${f.id}`, {
      name: `${f.name} renamed`,
      description: 'Described',
      enabled: false,
      icon_set_identifier: 'star',
      values: [
        { id: two.id, value: 'Deux', color_key: 'green' },
        { id: one.id, enabled: false },
        { value: 'Four', color_key: 'red' },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ name: `${f.name} renamed`, description: 'Described', enabled: false, icon_set_identifier: 'star' })
    expect(res.body.values).toMatchObject([
      { id: two.id, value: 'Deux', position: 0, color_key: 'green', enabled: true },
      { id: one.id, value: 'One', position: 1, enabled: false },
      { value: 'Four', position: 2, color_key: 'red', enabled: true },
    ])
    expect((await v3(service).get(`/custom-fields/${f.id}`)).body).toEqual(res.body)
    // The story lost the deleted value.
    const stories = await walk(v4(service), `/custom-fields/${f.id}/stories`)
    expect(stories.map((s) => s.id)).not.toContain(story.id)
  })

  it('moves a field with after_id and before_id', async () => {
    const a = insertField()
    const b = insertField()
    const order = async () => (await v3(service).get('/custom-fields')).body.map((x: { id: string }) => x.id).filter((id: string) => id === a.id || id === b.id)
    expect(await order()).toEqual([a.id, b.id])
    const moved = await v3(service).put(`/custom-fields/${b.id}`, { before_id: a.id })
    expect(moved.status).toBe(200)
    expect(await order()).toEqual([b.id, a.id])
    await v3(service).put(`/custom-fields/${b.id}`, { after_id: a.id })
    expect(await order()).toEqual([a.id, b.id])
    const positions = (await v3(service).get('/custom-fields')).body.map((x: { position: number }) => x.position)
    expect(positions).toEqual(positions.map((_: number, i: number) => i + 1))
  })

  it('answers 409 DataConflictError to conflicts', async () => {
    const f = insertField(['Red', 'Blue'])
    const other = insertField(['Green'])
    const cases: [object, Record<string, string>][] = [
      [{ values: [{ id: f.values[0].id }, { value: 'red' }] }, { values: 'duplicate value "red"' }],
      [{ values: [{ id: f.values[0].id, value: 'Blue' }, { id: f.values[1].id }] }, { values: 'duplicate value "Blue"' }],
      [{ values: [{ id: other.values[0].id }] }, { 'values[0].id': 'is not a value of this field' }],
      [{ values: [{ id: f.values[0].id }, { id: f.values[0].id }] }, { 'values[1].id': 'appears twice' }],
      [{ name: 'priority' }, { name: 'is already taken' }],
      [{ after_id: f.id }, { after_id: 'is the custom field itself' }],
      [{ before_id: f.id }, { before_id: 'is the custom field itself' }],
    ]
    for (const [body, errors] of cases) {
      const res = await v3(service).put(`/custom-fields/${f.id}`, body)
      expect(res.status, JSON.stringify(body)).toBe(409)
      expect(res.body).toMatchObject({ tag: 'data_conflict_error', errors })
    }
    expect(valueNames((await v3(service).get(`/custom-fields/${f.id}`)).body)).toEqual(['Red', 'Blue'])
  })

  it('takes strings at their limits and answers 422 naming the field past them', async () => {
    const f = insertField()
    const ok = await v3(service).put(`/custom-fields/${f.id}`, {
      name: `n${serial}`.padEnd(63, 'n'),
      description: 'd'.repeat(1024),
      icon_set_identifier: 'i'.repeat(63),
    })
    expect(ok.status).toBe(200)
    for (const [field, limit] of [
      ['name', 63],
      ['description', 1024],
      ['icon_set_identifier', 63],
    ] as const) {
      const res = await v3(service).put(`/custom-fields/${f.id}`, { [field]: 'x'.repeat(limit + 1) })
      expect(res.status).toBe(422)
      expect(res.body.errors).toEqual({ [field]: `must be at most ${limit} characters` })
    }
    const value = await v3(service).put(`/custom-fields/${f.id}`, { values: [{ value: 'v'.repeat(64) }] })
    expect(value.status).toBe(422)
    expect(value.body.errors).toEqual({ 'values.0.value': 'must be at most 63 characters' })
  })

  it('answers 422 for a new value without text and for an unknown neighbour', async () => {
    const f = insertField()
    const blank = await v3(service).put(`/custom-fields/${f.id}`, { values: [{ color_key: 'red' }] })
    expect(blank.status).toBe(422)
    expect(blank.body.errors).toEqual({ 'values[0].value': 'is required to create a value' })
    const away = await v3(service).put(`/custom-fields/${f.id}`, { after_id: NOBODY })
    expect(away.status).toBe(422)
    expect(Object.keys(away.body.errors)).toEqual(['after_id'])
  })

  it.each([
    [{ after_id: NOBODY, before_id: NOBODY }, 'after_id'],
    [{ values: [{ value: 'x', color_key: 'mauve' }] }, 'values.0.color_key'],
    [{ values: [{ value: 'x', label: 'y' }] }, 'values.0.label'],
    [{ values: [{ value: '' }] }, 'values.0.value'],
    [{ enabled: 'yes' }, 'enabled'],
    [{ field_type: 'text' }, 'field_type'],
  ])('answers 400 to %o', async (body, field) => {
    const f = insertField()
    const res = await v3(service).put(`/custom-fields/${f.id}`, body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('answers 404 for an unknown field and 403 to read-only and Observer tokens', async () => {
    expect((await v3(service).put(`/custom-fields/${NOBODY}`, { name: 'x' })).status).toBe(404)
    const f = insertField()
    expect((await v3(service, service.tokens.readonly).put(`/custom-fields/${f.id}`, { name: 'ro' })).status).toBe(403)
    expect((await v3(service, service.tokens.observer).put(`/custom-fields/${f.id}`, { name: 'obs' })).status).toBe(403)
    expect((await v3(service, service.tokens.readonly).delete(`/custom-fields/${f.id}`)).status).toBe(403)
  })
})

describe('v3 DELETE /custom-fields/{id}', () => {
  it('deletes the field; stories and templates forget it; positions close up', async () => {
    const f = insertField()
    const story = insertStory(service, { custom_fields: [{ field_id: f.id, value_id: f.values[0].id }], label_ids: [] })
    expect((await v3(service).delete(`/custom-fields/${f.id}`)).status).toBe(204)
    expect((await v3(service).get(`/custom-fields/${f.id}`)).status).toBe(404)
    expect((await v3(service).delete(`/custom-fields/${f.id}`)).status).toBe(404)
    const stored = service.ctx.col<{ id: number; custom_fields: unknown[]; created_at: string; updated_at: string }>('story').get(story.id)!
    expect(stored.custom_fields).toEqual([])
    const positions = (await v3(service).get('/custom-fields')).body.map((x: { position: number }) => x.position)
    expect(positions).toEqual(positions.map((_: number, i: number) => i + 1))
  })
})

describe('v4 custom fields', () => {
  it('reads one field with value references and with fields', async () => {
    const f = insertField(['A', 'B'])
    const res = await v4(service).get(`/custom-fields/${f.id}`)
    expect(res.status).toBe(200)
    const uri = `${service.baseUrl}/api/v4/demo/custom-fields/${f.id}`
    expect(res.body).toMatchObject({ entity_type: 'custom-field', id: f.id, uri, fixed_position: false, story_types: [], field_type: 'enum' })
    expect(res.body.values[1]).toEqual({
      entity_type: 'custom-field-value',
      color_key: null,
      enabled: true,
      field: { entity_type: 'custom-field:slim', id: f.id, name: f.name, uri },
      id: f.values[1].id,
      position: 1,
      value: 'B',
    })
    expect((await v4(service).get(`/custom-fields/${f.id}`, { query: { fields: 'id,values' } })).body).toEqual({ id: f.id, values: res.body.values })
    expect((await v4(service).get(`/custom-fields/${f.id}`, { query: { fields: 'colour' } })).status).toBe(400)
    expect((await v4(service).get(`/custom-fields/${NOBODY}`)).status).toBe(404)
    expect((await v4(service).get('/custom-fields/nope')).status).toBe(400)
    expect((await v4(service, service.tokens.v3).get(`/custom-fields/${f.id}`)).status).toBe(401)
  })

  it('lists fields by position, name or updated_at', async () => {
    const names = (await walk(v4(service), '/custom-fields', { order_by: 'name', limit: 100 })).map((f) => f.name)
    expect(names).toEqual([...names].sort())
    expect((await v4(service).get('/custom-fields', { query: { filter: 'exclude_archived' } })).status).toBe(400)
  })

  it('PATCH adds and removes values, leaving the others as they are', async () => {
    const f = insertField(['Keep', 'Drop'])
    const res = await v4(service).patch(`/custom-fields/${f.id}`, {
      values_add: [{ value: 'New', color_key: 'blue' }],
      values_remove: [f.values[1].id],
      description: 'patched',
    })
    expect(res.status).toBe(200)
    expect(valueNames(res.body)).toEqual(['Keep', 'New'])
    expect(res.body.values[1]).toMatchObject({ position: 1, color_key: 'blue' })
    expect(res.body.description).toBe('patched')
    const edited = await v4(service).patch(`/custom-fields/${f.id}`, { values_add: [{ id: f.values[0].id, value: 'Kept' }] }, { query: { fields: 'values' } })
    expect(valueNames(edited.body)).toEqual(['Kept', 'New'])
    const replaced = await v4(service).patch(`/custom-fields/${f.id}`, { values: [{ value: 'Only' }] })
    expect(valueNames(replaced.body)).toEqual(['Only'])
  })

  it('PATCH answers 409 to conflicts, 422 past limits, 400 to mixed forms, 404 and 403', async () => {
    const f = insertField(['A', 'B'])
    expect((await v4(service).patch(`/custom-fields/${f.id}`, { values_add: [{ value: 'a' }] })).status).toBe(409)
    const gone = await v4(service).patch(`/custom-fields/${f.id}`, { values_remove: [NOBODY] })
    expect(gone.status).toBe(409)
    expect(gone.body.errors).toEqual({ 'values_remove[0]': 'is not a value of this field' })
    expect((await v4(service).patch(`/custom-fields/${f.id}`, { after_id: f.id })).status).toBe(409)
    expect((await v4(service).patch(`/custom-fields/${f.id}`, { name: 'n'.repeat(64) })).body.errors).toEqual({ name: 'must be at most 63 characters' })
    expect((await v4(service).patch(`/custom-fields/${f.id}`, { values: [], values_add: [{ value: 'x' }] })).status).toBe(400)
    expect((await v4(service).patch(`/custom-fields/${f.id}`, { values_remove: ['x'] })).status).toBe(400)
    expect((await v4(service).patch(`/custom-fields/${NOBODY}`, { name: 'x' })).status).toBe(404)
    expect((await v4(service, service.tokens.readonly).patch(`/custom-fields/${f.id}`, { name: 'ro' })).status).toBe(403)
    expect(valueNames((await v4(service).get(`/custom-fields/${f.id}`)).body)).toEqual(['A', 'B'])
  })

  it('bulk PATCH updates every field or none', async () => {
    const a = insertField()
    const b = insertField()
    const res = await v4(service).patch('/custom-fields/bulk', {
      custom_fields: [
        { id: a.id, name: `${a.name} bulk` },
        { id: b.id, enabled: false },
      ],
    })
    expect(res.status).toBe(200)
    expect(res.body.entities).toMatchObject([
      { id: a.id, name: `${a.name} bulk` },
      { id: b.id, enabled: false },
    ])
    const failed = await v4(service).patch('/custom-fields/bulk', {
      custom_fields: [
        { id: a.id, name: 'Rolled back' },
        { id: b.id, after_id: b.id },
      ],
    })
    expect(failed.status).toBe(409)
    expect(failed.body.errors).toEqual({ 'custom_fields[1].after_id': 'is the custom field itself' })
    expect((await v4(service).get(`/custom-fields/${a.id}`)).body.name).toBe(`${a.name} bulk`)
    const missing = await v4(service).patch('/custom-fields/bulk', { custom_fields: [{ id: NOBODY, name: 'x' }] })
    expect(missing.status).toBe(404)
    expect((await v4(service).patch('/custom-fields/bulk', { custom_fields: [] })).status).toBe(400)
    expect((await v4(service).patch('/custom-fields/bulk', { custom_fields: [{ id: a.id, description: 'd'.repeat(1025) }] })).status).toBe(422)
    expect((await v4(service, service.tokens.readonly).patch('/custom-fields/bulk', { custom_fields: [{ id: a.id }] })).status).toBe(403)
  })

  it('DELETE one and bulk DELETE, all or nothing', async () => {
    const a = insertField()
    const b = insertField()
    const c = insertField()
    expect((await v4(service).delete(`/custom-fields/${a.id}`)).status).toBe(204)
    expect((await v4(service).get(`/custom-fields/${a.id}`)).status).toBe(404)
    expect((await v4(service).delete(`/custom-fields/${a.id}`)).status).toBe(404)
    const refused = await v4(service).delete('/custom-fields/bulk', { custom_field_ids: [b.id, NOBODY] })
    expect(refused.status).toBe(404)
    expect((await v4(service).get(`/custom-fields/${b.id}`)).status).toBe(200)
    expect((await v4(service).delete('/custom-fields/bulk', { custom_field_ids: [b.id, c.id] })).status).toBe(204)
    expect((await v4(service).get(`/custom-fields/${c.id}`)).status).toBe(404)
    expect((await v4(service).delete('/custom-fields/bulk', {})).status).toBe(400)
    expect((await v4(service, service.tokens.readonly).delete('/custom-fields/bulk', { custom_field_ids: [NOBODY] })).status).toBe(403)
  })

  it('lists the stories with a value set: archived only when asked, in each order', async () => {
    const f = insertField(['X', 'Y'])
    const s1 = insertStory(service, { custom_fields: [{ field_id: f.id, value_id: f.values[0].id }], position: 2, created_at: at(1), updated_at: at(9) })
    const s2 = insertStory(service, { custom_fields: [{ field_id: f.id, value_id: f.values[1].id }], position: 1, created_at: at(2), updated_at: at(8) })
    const s3 = insertStory(service, {
      custom_fields: [{ field_id: f.id, value_id: f.values[1].id }],
      archived: true,
      position: 3,
      created_at: at(3),
      updated_at: at(7),
    })
    insertStory(service)
    const ids = async (query = {}) => (await walk(v4(service), `/custom-fields/${f.id}/stories`, query)).map((s) => s.id)
    expect(await ids()).toEqual([s1.id, s2.id])
    expect(await ids({ filter: 'include_archived' })).toEqual([s1.id, s2.id, s3.id])
    expect(await ids({ order_by: 'position' })).toEqual([s2.id, s1.id])
    expect(await ids({ order_by: 'updated_at', filter: 'include_archived' })).toEqual([s3.id, s2.id, s1.id])
    expect(await ids({ order_by: 'created_at', order_dir: 'desc' })).toEqual([s2.id, s1.id])
    const [story] = await walk(v4(service), `/custom-fields/${f.id}/stories`, { limit: 1 })
    expect(story.custom_field_values.entities).toEqual([
      { entity_type: 'custom-field-value:slim', field: expect.objectContaining({ id: f.id }), id: f.values[0].id, value: 'X' },
    ])
    expect((await v4(service).get(`/custom-fields/${f.id}/stories`, { query: { order_by: 'name' } })).status).toBe(400)
    expect((await v4(service).get(`/custom-fields/${NOBODY}/stories`)).status).toBe(404)
  })
})
