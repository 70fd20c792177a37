// Categories over v3 and v4: every operation's success and error paths.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { testService, v3, v4, walk } from '../../../testing/service.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

describe('v3 categories', () => {
  it('creates, reads, updates, archives and deletes', async () => {
    const api = v3(service)
    const made = await api.post('/categories', { name: 'Research', color: '#336699', external_id: 'ext-research' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ entity_type: 'category', name: 'Research', color: '#336699', external_id: 'ext-research', archived: false })
    const id = made.body.id
    // The published v3 Category's global_id and type: a category groups objectives (formerly milestones).
    expect(made.body).toMatchObject({ global_id: `${service.ctx.workspace.id}:category:${id}`, type: 'milestone' })
    expect((await api.get(`/categories/${id}`)).body.name).toBe('Research')
    const renamed = await api.put(`/categories/${id}`, { name: 'Research & Development', color: null })
    expect(renamed.body).toMatchObject({ name: 'Research & Development', color: null })
    expect(Date.parse(renamed.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.body.updated_at))
    expect((await api.put(`/categories/${id}`, { archived: true })).body.archived).toBe(true)
    const listed = (await api.get('/categories')).body.find((c: { id: number }) => c.id === id)
    expect(listed.archived).toBe(true)
    expect(listed).toMatchObject({ global_id: made.body.global_id, type: 'milestone' })
    expect((await api.delete(`/categories/${id}`)).status).toBe(204)
    expect((await api.get(`/categories/${id}`)).status).toBe(404)
    expect((await api.delete(`/categories/${id}`)).status).toBe(404)
  })

  it('answers 422 naming the field for a name past 128 characters, and takes exactly 128', async () => {
    const api = v3(service)
    expect((await api.post('/categories', { name: 'a'.repeat(128) })).status).toBe(201)
    const long = await api.post('/categories', { name: 'b'.repeat(129) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ name: 'must be at most 128 characters' })
    expect((await api.post('/categories', { name: 'ext', external_id: 'e'.repeat(129) })).body.errors).toHaveProperty('external_id')
  })

  it('answers 422 when renaming to an existing name, and creating one', async () => {
    const api = v3(service)
    const a = await api.post('/categories', { name: 'Alpha' })
    await api.post('/categories', { name: 'Beta' })
    const clash = await api.put(`/categories/${a.body.id}`, { name: 'Beta' })
    expect(clash.status).toBe(422)
    expect(clash.body.errors).toEqual({ name: 'is already taken' })
    expect((await api.post('/categories', { name: 'Alpha' })).status).toBe(422)
    // Renaming to its own name is no clash.
    expect((await api.put(`/categories/${a.body.id}`, { name: 'Alpha' })).status).toBe(200)
  })

  it.each([
    [{ name: 'No colour', color: 'red' }, 'color'],
    [{ name: 'No colour', color: 'rgb(1,2,3)' }, 'color'],
    [{ name: 42 }, 'name'],
    [{}, 'name'],
    [{ name: 'x', archived: 'yes' }, 'archived'],
  ])('answers 400 to a schema mismatch %o', async (body, field) => {
    const res = await v3(service).post('/categories', body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('answers 400 to a malformed id and 403 to read-only and Observer tokens', async () => {
    expect((await v3(service).get('/categories/abc')).status).toBe(400)
    expect((await v3(service, service.tokens.readonly).post('/categories', { name: 'ro' })).status).toBe(403)
    const obs = await v3(service, service.tokens.observer).post('/categories', { name: 'obs' })
    expect(obs.status).toBe(403)
    expect(obs.body.tag).toBe('observer')
  })
})

describe('colours', () => {
  it('takes any CSS hexadecimal colour, as the spec says (the published description allows #rrggbb only)', async () => {
    const api = v3(service)
    for (const color of ['#abc', '#abcd', '#a1b2c3', '#a1b2c3d4']) {
      const made = await api.post('/categories', { name: `Colour ${color}`, color })
      expect(made.status).toBe(201)
      expect((await api.get(`/categories/${made.body.id}`)).body.color).toBe(color)
    }
    expect((await api.post('/categories', { name: 'Named colour', color: 'red' })).status).toBe(400)
  })
})

describe('v4 categories', () => {
  it('creates, reads with fields, patches and deletes', async () => {
    const api = v4(service)
    const made = await api.post('/categories', { name: 'Ops', color: '#abc' }, { query: { fields: 'id,name,uri' } })
    expect(made.status).toBe(201)
    expect(Object.keys(made.body).sort()).toEqual(['id', 'name', 'uri'])
    expect(made.body.uri).toBe(`${service.baseUrl}/api/v4/demo/categories/${made.body.id}`)
    const full = await api.get(`/categories/${made.body.id}`)
    expect(full.body).toMatchObject({ entity_type: 'category', color: '#abc', archived: false })
    expect((await api.patch(`/categories/${made.body.id}`, { archived: true, external_id: 'ops' })).body).toMatchObject({ archived: true, external_id: 'ops' })
    expect((await api.get(`/categories/${made.body.id}`, { query: { fields: 'nope' } })).status).toBe(400)
    expect((await api.delete(`/categories/${made.body.id}`)).status).toBe(204)
    expect((await api.get(`/categories/${made.body.id}`)).status).toBe(404)
    expect((await api.patch(`/categories/${made.body.id}`, { name: 'gone' })).status).toBe(404)
  })

  it('keeps archived categories out of the default list', async () => {
    const api = v4(service)
    const made = await api.post('/categories', { name: 'Soon archived' })
    await api.patch(`/categories/${made.body.id}`, { archived: true })
    const ids = (await walk(api, '/categories', { limit: 100 })).map((c) => c.id)
    expect(ids).not.toContain(made.body.id)
    expect((await walk(api, '/categories', { limit: 100, filter: 'include_archived' })).map((c) => c.id)).toContain(made.body.id)
  })

  it('orders by name and updated_at in both directions', async () => {
    const names = (await walk(v4(service), '/categories', { limit: 100, order_by: 'name' })).map((c) => c.name)
    expect(names).toEqual([...names].sort())
    const stamps = (await walk(v4(service), '/categories', { limit: 100, order_by: 'updated_at', order_dir: 'desc' })).map((c) => c.updated_at)
    expect(stamps).toEqual([...stamps].sort().reverse())
  })

  it('bulk-creates, bulk-updates and bulk-deletes, all or nothing', async () => {
    const api = v4(service)
    const made = await api.post('/categories/bulk', { categories: [{ name: 'Bulk 1' }, { name: 'Bulk 2', color: '#010203' }] })
    expect(made.status).toBe(201)
    expect(made.body.entities.map((c: { name: string }) => c.name)).toEqual(['Bulk 1', 'Bulk 2'])
    const [one, two] = made.body.entities.map((c: { id: number }) => c.id)

    const clash = await api.post('/categories/bulk', { categories: [{ name: 'Bulk 3' }, { name: 'Bulk 1' }] })
    expect(clash.status).toBe(422)
    expect(clash.body.errors).toEqual({ 'categories[1].name': 'is already taken' })
    expect((await walk(api, '/categories', { limit: 100 })).map((c) => c.name)).not.toContain('Bulk 3')

    const updated = await api.patch('/categories/bulk', {
      categories: [
        { id: one, name: 'Bulk One' },
        { id: two, archived: true },
      ],
    })
    expect(updated.status).toBe(200)
    expect(updated.body.entities).toMatchObject([
      { id: one, name: 'Bulk One' },
      { id: two, archived: true },
    ])

    const missing = await api.patch('/categories/bulk', { categories: [{ id: one, name: 'Not applied' }, { id: 999_999 }] })
    expect(missing.status).toBe(404)
    expect((await api.get(`/categories/${one}`)).body.name).toBe('Bulk One')

    expect((await api.delete('/categories/bulk', { category_ids: [one, 999_999] })).status).toBe(404)
    expect((await api.get(`/categories/${one}`)).status).toBe(200)
    expect((await api.delete('/categories/bulk', { category_ids: [one, two] })).status).toBe(204)
    expect((await api.get(`/categories/${two}`)).status).toBe(404)
  })

  it.each([
    ['post', '/categories/bulk', { categories: [] }],
    ['post', '/categories/bulk', { categories: Array.from({ length: 101 }, (_, i) => ({ name: `Too many ${i}` })) }],
    ['patch', '/categories/bulk', { categories: [{ name: 'no id' }] }],
    ['delete', '/categories/bulk', { category_ids: ['one'] }],
    ['delete', '/categories/bulk', {}],
  ] as const)('answers 400 to a malformed bulk body (%s %s)', async (method, path, body) => {
    const res = await v4(service)[method](path, body)
    expect(res.status).toBe(400)
  })

  it('answers 422 for a name past the limit in a patch, and 403 for a read-only token', async () => {
    const made = await v4(service).post('/categories', { name: 'Limit check' })
    const res = await v4(service).patch(`/categories/${made.body.id}`, { name: 'x'.repeat(129) })
    expect(res.status).toBe(422)
    expect(res.body.errors).toHaveProperty('name')
    const ro = await v4(service, service.tokens.readonly).patch(`/categories/${made.body.id}`, { name: 'ro' })
    expect(ro.status).toBe(403)
    expect(ro.body.tag).toBe('read_only_token')
    expect((await v4(service, service.tokens.readonly).get(`/categories/${made.body.id}`)).status).toBe(200)
  })
})

describe('fields on writes', () => {
  it('refuses an unknown field name before writing anything', async () => {
    const api = v4(service)
    const res = await api.post('/categories', { name: 'Never written' }, { query: { fields: 'nope' } })
    expect(res.status).toBe(400)
    const names = (await walk(api, '/categories', { limit: 100, filter: 'include_archived' })).map((c) => c.name)
    expect(names).not.toContain('Never written')
  })
})

describe('nullable strings past their limit', () => {
  it('answers 422 naming the field, not 400', async () => {
    const made = await v4(service).post('/categories', { name: 'Nullable limit' })
    const res = await v4(service).patch(`/categories/${made.body.id}`, { external_id: 'x'.repeat(129) })
    expect(res.status).toBe(422)
    expect(res.body.errors).toEqual({ external_id: 'must be at most 128 characters' })
    expect((await v4(service).patch(`/categories/${made.body.id}`, { external_id: null })).body.external_id).toBeNull()
  })
})

describe('v4 answer shapes', () => {
  it('wraps one entity as {$schema, entity} and a list as {$schema, entities, ...}', async () => {
    const made = await v4(service).post('/categories', { name: 'Wrapped' })
    expect(Object.keys(made.raw).sort()).toEqual(['$schema', 'entity'])
    expect(made.raw.$schema).toBe(`${service.baseUrl}/api/v4/schemas/post-categories`)
    expect(made.raw.entity.name).toBe('Wrapped')
    const one = await v4(service).get(`/categories/${made.body.id}`)
    expect(one.raw.$schema).toBe(`${service.baseUrl}/api/v4/schemas/get-categories-id`)
    const list = await v4(service).get('/categories')
    expect(list.raw.$schema).toBe(`${service.baseUrl}/api/v4/schemas/get-categories`)
    expect((await v4(service).get('/categories/999999')).raw).not.toHaveProperty('$schema')
  })
})
