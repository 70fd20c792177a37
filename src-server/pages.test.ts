// v4 lists: the envelope, the parameter rules, and a walk over 1,000 items
// while other clients insert and update, which must neither skip nor repeat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from './index.ts'
import { testService, v4, walk } from '../testing/service.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService()
  const api = v4(service)
  for (let batch = 0; batch < 10; batch++) {
    const categories = Array.from({ length: 100 }, (_, i) => ({ name: `Category ${String(batch * 100 + i).padStart(4, '0')}` }))
    const res = await api.post('/categories/bulk', { categories })
    expect(res.status).toBe(201)
  }
})
afterAll(() => service.close())

describe('v4 list envelope', () => {
  it('pages with limit and an absolute next_page_url on the request origin carrying only the cursor', async () => {
    const page = await v4(service).get('/categories', { query: { limit: 25, order_by: 'name' } })
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({ current_items: 25, current_page: 1, total_items: 1000, total_pages: 40 })
    expect(page.body.entities[0].name).toBe('Category 0000')
    const next = new URL(page.body.next_page_url)
    expect(next.origin).toBe(service.baseUrl)
    expect([...next.searchParams.keys()]).toEqual(['cursor'])
    const second = await v4(service).get('/categories', { query: Object.fromEntries(next.searchParams) })
    expect(second.body).toMatchObject({ current_items: 25, current_page: 2 })
    expect(second.body.entities[0].name).toBe('Category 0025')
  })

  it('defaults to 10 items and omits next_page_url on the last page', async () => {
    const first = await v4(service).get('/categories')
    expect(first.body.current_items).toBe(10)
    const last = await v4(service).get('/categories', { query: { limit: 100, order_by: 'name', order_dir: 'desc' } })
    expect(last.body.entities[0].name).toBe('Category 0999')
    const all = await walk(v4(service), '/categories', { limit: 100 })
    expect(all).toHaveLength(1000)
    const tail = await v4(service).get('/categories', { query: { limit: 100 } })
    expect(tail.body.next_page_url).toBeDefined()
  })

  it('carries fields into next_page_url and returns only those fields', async () => {
    const page = await v4(service).get('/categories', { query: { limit: 2, fields: 'id,name' } })
    expect(Object.keys(page.body.entities[0]).sort()).toEqual(['id', 'name'])
    const next = new URL(page.body.next_page_url)
    expect(next.searchParams.get('fields')).toBe('id,name')
    const second = await v4(service).get('/categories', { query: Object.fromEntries(next.searchParams) })
    expect(Object.keys(second.body.entities[0]).sort()).toEqual(['id', 'name'])
  })

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ order_by: 'created_at' }, 'order_by'],
    [{ order_dir: 'up' }, 'order_dir'],
    [{ filter: 'everything' }, 'filter'],
    [{ fields: 'name,colour' }, 'fields'],
    [{ fields: ',' }, 'fields'],
    [{ page: 2 }, 'page'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
  ])('answers 400 naming the parameter for %o', async (query, field) => {
    const res = await v4(service).get('/categories', { query })
    expect(res.status).toBe(400)
    expect(res.body.tag).toBe('bad_request')
    expect(Object.keys(res.body.errors)).toContain(field)
  })

  it('refuses a cursor sent with anything but fields', async () => {
    const page = await v4(service).get('/categories', { query: { limit: 5 } })
    const cursor = new URL(page.body.next_page_url).searchParams.get('cursor')!
    const res = await v4(service).get('/categories', { query: { cursor, limit: 5 } })
    expect(res.status).toBe(400)
    expect(res.body.errors).toHaveProperty('limit')
    expect((await v4(service).get('/categories', { query: { cursor, fields: 'id' } })).status).toBe(200)
  })

  it('refuses a cursor from another list', async () => {
    const page = await v4(service).get('/categories', { query: { limit: 5 } })
    const cursor = new URL(page.body.next_page_url).searchParams.get('cursor')!
    const res = await v4(service).get('/admin/tokens', { query: { cursor } })
    expect(res.status).toBe(400)
    expect(res.body.errors).toHaveProperty('cursor')
  })
})

describe('walking while others write', () => {
  it.each(['updated_at', 'name'])('neither skips nor repeats an item ordered by %s', async (orderBy) => {
    const api = v4(service)
    const before = new Set((await walk(api, '/categories', { limit: 100, filter: 'include_archived' })).map((c) => c.id))
    const seen: number[] = []
    let page = await api.get('/categories', { query: { limit: 37, order_by: orderBy, order_dir: 'desc', filter: 'include_archived' } })
    let n = 0
    for (;;) {
      expect(page.status).toBe(200)
      seen.push(...page.body.entities.map((c: { id: number }) => c.id))
      // Another client inserts one item and renames one already seen and one not yet seen.
      n++
      const created = await api.post('/categories', { name: `Concurrent ${orderBy} ${n}` })
      expect(created.status).toBe(201)
      const ids = [...before]
      await api.patch(`/categories/${seen[0]}`, { name: `Renamed seen ${orderBy} ${n}` })
      await api.patch(`/categories/${ids[(n * 7919) % ids.length]}`, { name: `Renamed later ${orderBy} ${n}` })
      if (!page.body.next_page_url) break
      page = await api.get('/categories', { query: Object.fromEntries(new URL(page.body.next_page_url).searchParams) })
    }
    expect(new Set(seen).size).toBe(seen.length)
    for (const id of before) expect(seen).toContain(id)
  })
})
