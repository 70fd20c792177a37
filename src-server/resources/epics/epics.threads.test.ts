// v3 epic comments (threads with nested replies) and epic health (current
// and history), and how both show in the v4 epic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3 } from '../../../testing/service.ts'
import { UUID_NOBODY, memberId, recordActivity, v4 } from '../../../testing/epic-fixtures.ts'

let service: RunningService
let ada: string
let max: string
let olga: string

beforeAll(async () => {
  service = await testService({ seed: 'demo' })
  ada = memberId(service, 'ada')
  max = memberId(service, 'max')
  olga = memberId(service, 'olga')
})
afterAll(() => service.close())

const newEpic = async (name = 'Threaded') => (await v3(service).post('/epics', { name })).body as { id: number; updated_at: string }

describe('v3 epic comments', () => {
  it('creates top-level comments and nested replies, and reads them as threads', async () => {
    const api = v3(service)
    const epic = await newEpic()
    const top = await api.post(`/epics/${epic.id}/comments`, { text: 'First, for @max' })
    expect(top.status).toBe(201)
    expect(top.body).toMatchObject({
      entity_type: 'threaded-comment',
      text: 'First, for @max',
      author_id: ada,
      deleted: false,
      comments: [],
      external_id: null,
      member_mention_ids: [max],
      mention_ids: [max],
      group_mention_ids: [],
      app_url: `${service.baseUrl}/demo/epic/${epic.id}#activity-${top.body.id}`,
    })
    const reply = await api.post(`/epics/${epic.id}/comments/${top.body.id}`, { text: 'A reply' })
    expect(reply.status).toBe(201)
    const deeper = await api.post(`/epics/${epic.id}/comments/${reply.body.id}`, { text: 'A reply to the reply', author_id: max })
    expect(deeper.body.author_id).toBe(max)
    const second = await api.post(`/epics/${epic.id}/comments`, { text: 'Second' })

    const list = await api.get(`/epics/${epic.id}/comments`)
    expect(list.status).toBe(200)
    expect(list.body.map((c: { id: number }) => c.id)).toEqual([top.body.id, second.body.id])
    expect(list.body[0].comments[0]).toMatchObject({ id: reply.body.id, text: 'A reply' })
    expect(list.body[0].comments[0].comments[0]).toMatchObject({ id: deeper.body.id, text: 'A reply to the reply', comments: [] })
    const one = await api.get(`/epics/${epic.id}/comments/${top.body.id}`)
    expect(one.body).toEqual(list.body[0])
    // The epic carries the same threads, and v4 lists every comment, replies included.
    expect((await api.get(`/epics/${epic.id}`)).body.comments).toEqual(list.body)
    const four = (await v4(service).get(`/epics/${epic.id}`)).body
    expect(four.comments.entities.map((c: { id: number }) => c.id)).toEqual([top.body.id, reply.body.id, deeper.body.id, second.body.id])
    expect(four.comments.entities[0]).toMatchObject({
      entity_type: 'threaded-comment:slim',
      text: 'First, for @max',
      deleted: false,
      app_url: top.body.app_url,
    })
  })

  it('keeps external_id and imported times, and moves the epic updated_at', async () => {
    const api = v3(service)
    const epic = await newEpic()
    const c = await api.post(`/epics/${epic.id}/comments`, {
      text: 'Imported',
      external_id: 'cmt-1',
      created_at: '2023-05-05T10:00:00.000Z',
      updated_at: '2023-05-06T10:00:00.000Z',
    })
    expect(c.body).toMatchObject({ external_id: 'cmt-1', created_at: '2023-05-05T10:00:00.000Z', updated_at: '2023-05-06T10:00:00.000Z' })
    expect((await api.get(`/epics/${epic.id}`)).body.updated_at > epic.updated_at).toBe(true)
  })

  it('edits the text of a comment', async () => {
    const api = v3(service)
    const epic = await newEpic()
    const c = (await api.post(`/epics/${epic.id}/comments`, { text: 'Typo hree' })).body
    const res = await api.put(`/epics/${epic.id}/comments/${c.id}`, { text: 'Typo here, @max' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: c.id, text: 'Typo here, @max', member_mention_ids: [max] })
    expect(res.body.updated_at > c.updated_at).toBe(true)
    expect((await api.get(`/epics/${epic.id}/comments/${c.id}`)).body.text).toBe('Typo here, @max')
    expect((await api.put(`/epics/${epic.id}/comments/${c.id}`, {})).status).toBe(400)
    expect((await api.put(`/epics/${epic.id}/comments/${c.id}`, { text: 'x', author_id: max })).status).toBe(400)
  })

  it('deletes a comment; one with replies stays as a deleted placeholder until its replies go', async () => {
    const api = v3(service)
    const epic = await newEpic()
    const leaf = (await api.post(`/epics/${epic.id}/comments`, { text: 'Leaf' })).body
    expect((await api.delete(`/epics/${epic.id}/comments/${leaf.id}`)).status).toBe(204)
    expect((await api.get(`/epics/${epic.id}/comments/${leaf.id}`)).status).toBe(404)

    const parent = (await api.post(`/epics/${epic.id}/comments`, { text: 'Parent' })).body
    const r1 = (await api.post(`/epics/${epic.id}/comments/${parent.id}`, { text: 'Reply 1' })).body
    const r2 = (await api.post(`/epics/${epic.id}/comments/${parent.id}`, { text: 'Reply 2' })).body
    expect((await api.delete(`/epics/${epic.id}/comments/${parent.id}`)).status).toBe(204)
    const placeholder = (await api.get(`/epics/${epic.id}/comments/${parent.id}`)).body
    expect(placeholder).toMatchObject({ id: parent.id, deleted: true, text: '' })
    expect(placeholder.comments.map((c: { id: number }) => c.id)).toEqual([r1.id, r2.id])
    const slim = (await v4(service).get(`/epics/${epic.id}`)).body.comments.entities[0]
    expect(slim).toMatchObject({ id: parent.id, deleted: true })
    // A deleted comment takes no replies and no edits.
    expect((await api.post(`/epics/${epic.id}/comments/${parent.id}`, { text: 'late' })).status).toBe(404)
    expect((await api.put(`/epics/${epic.id}/comments/${parent.id}`, { text: 'revive' })).status).toBe(404)
    expect((await api.delete(`/epics/${epic.id}/comments/${parent.id}`)).status).toBe(404)

    await api.delete(`/epics/${epic.id}/comments/${r1.id}`)
    expect((await api.get(`/epics/${epic.id}/comments/${parent.id}`)).status).toBe(200)
    await api.delete(`/epics/${epic.id}/comments/${r2.id}`)
    expect((await api.get(`/epics/${epic.id}/comments/${parent.id}`)).status).toBe(404)
    expect((await api.get(`/epics/${epic.id}/comments`)).body).toEqual([])
  })

  it('answers 404 for a missing epic or a comment of another epic', async () => {
    const api = v3(service)
    const a = await newEpic('A')
    const b = await newEpic('B')
    const c = (await api.post(`/epics/${a.id}/comments`, { text: 'on A' })).body
    expect((await api.get(`/epics/${b.id}/comments/${c.id}`)).status).toBe(404)
    expect((await api.put(`/epics/${b.id}/comments/${c.id}`, { text: 'x' })).status).toBe(404)
    expect((await api.delete(`/epics/${b.id}/comments/${c.id}`)).status).toBe(404)
    expect((await api.post(`/epics/${b.id}/comments/${c.id}`, { text: 'x' })).status).toBe(404)
    expect((await api.get('/epics/999999/comments')).status).toBe(404)
    expect((await api.post('/epics/999999/comments', { text: 'x' })).status).toBe(404)
    expect((await api.get(`/epics/${a.id}/comments/999999`)).status).toBe(404)
    expect((await api.get(`/epics/${a.id}/comments/abc`)).status).toBe(400)
  })

  it('validates bodies: 400 for mismatches, 422 for text and external_id past their limits or an unknown author', async () => {
    const api = v3(service)
    const epic = await newEpic()
    expect((await api.post(`/epics/${epic.id}/comments`, {})).status).toBe(400)
    expect((await api.post(`/epics/${epic.id}/comments`, { text: 5 })).status).toBe(400)
    expect((await api.post(`/epics/${epic.id}/comments`, { text: 'x', author_id: 'ada' })).status).toBe(400)
    expect((await api.post(`/epics/${epic.id}/comments`, { text: 'x', deleted: true })).status).toBe(400)
    const exact = await api.post(`/epics/${epic.id}/comments`, { text: 't'.repeat(100_000), external_id: 'e'.repeat(128) })
    expect(exact.status).toBe(201)
    const long = await api.post(`/epics/${epic.id}/comments`, { text: 't'.repeat(100_001) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ text: 'must be at most 100000 characters' })
    expect((await api.post(`/epics/${epic.id}/comments`, { text: 'x', external_id: 'e'.repeat(129) })).body.errors).toEqual({
      external_id: 'must be at most 128 characters',
    })
    expect((await api.put(`/epics/${epic.id}/comments/${exact.body.id}`, { text: 't'.repeat(100_001) })).status).toBe(422)
    const nobody = await api.post(`/epics/${epic.id}/comments`, { text: 'x', author_id: UUID_NOBODY })
    expect(nobody.status).toBe(422)
    expect(Object.keys(nobody.body.errors)).toEqual(['author_id'])
  })

  it('lets Observers comment and change their own comments only; read-only tokens never write', async () => {
    const epic = await newEpic()
    const observer = v3(service, service.tokens.observer)
    const own = await observer.post(`/epics/${epic.id}/comments`, { text: 'Observing' })
    expect(own.status).toBe(201)
    expect(own.body.author_id).toBe(olga)
    expect((await observer.post(`/epics/${epic.id}/comments/${own.body.id}`, { text: 'Observing more' })).status).toBe(201)
    expect((await observer.put(`/epics/${epic.id}/comments/${own.body.id}`, { text: 'Observed' })).status).toBe(200)
    const others = (await v3(service).post(`/epics/${epic.id}/comments`, { text: 'Admin says' })).body
    const edit = await observer.put(`/epics/${epic.id}/comments/${others.id}`, { text: 'hijack' })
    expect(edit.status).toBe(403)
    expect(edit.body.tag).toBe('observer')
    expect((await observer.delete(`/epics/${epic.id}/comments/${others.id}`)).status).toBe(403)
    expect((await v3(service).get(`/epics/${epic.id}/comments/${others.id}`)).body.text).toBe('Admin says')
    // Others (not Observers) may tidy any comment.
    expect((await v3(service, service.tokens.member).put(`/epics/${epic.id}/comments/${own.body.id}`, { text: 'tidied' })).status).toBe(200)

    const ro = v3(service, service.tokens.readonly)
    expect((await ro.post(`/epics/${epic.id}/comments`, { text: 'no' })).status).toBe(403)
    expect((await ro.put(`/epics/${epic.id}/comments/${others.id}`, { text: 'no' })).status).toBe(403)
    expect((await ro.delete(`/epics/${epic.id}/comments/${others.id}`)).status).toBe(403)
    expect((await ro.get(`/epics/${epic.id}/comments`)).status).toBe(200)
    expect((await anonymous(service, '/api/v3').get(`/epics/${epic.id}/comments`)).status).toBe(401)
  })

  it('emits comment activity that names the epic', async () => {
    const api = v3(service)
    const epic = await newEpic('Comment events')
    const rec = recordActivity(service)
    try {
      const c = (await api.post(`/epics/${epic.id}/comments`, { text: 'hello' })).body
      await api.put(`/epics/${epic.id}/comments/${c.id}`, { text: 'hello again' })
      await api.delete(`/epics/${epic.id}/comments/${c.id}`)
      expect(rec.events.map((e) => `${e.entity_type}:${e.action}`)).toEqual(['epic-comment:create', 'epic-comment:update', 'epic-comment:delete'])
      expect(rec.events[0].references).toEqual([{ id: epic.id, entity_type: 'epic', name: 'Comment events' }])
    } finally {
      rec.stop()
    }
  })
})

describe('v3 epic health', () => {
  it('starts at No Health, then reports the newest update as current and keeps the history newest first', async () => {
    const api = v3(service)
    const epic = await newEpic('Healthy')
    const none = await api.get(`/epics/${epic.id}/health`)
    expect(none.status).toBe(200)
    expect(none.body).toMatchObject({ entity_type: 'health', status: 'No Health', id: null, epic_id: epic.id })
    // What the published Health has as optional strings and integers is left out, never null.
    expect(none.body).not.toHaveProperty('author_id')
    expect(none.body).not.toHaveProperty('objective_id')
    expect((await api.get(`/epics/${epic.id}/health-history`)).body).toEqual([])

    const first = await api.post(`/epics/${epic.id}/health`, { status: 'On Track', text: 'Good start' })
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ entity_type: 'health', status: 'On Track', text: 'Good start', author_id: ada, epic_id: epic.id })
    expect(first.body).not.toHaveProperty('objective_id')
    expect(first.body.id).toMatch(/^[0-9a-f-]{36}$/)
    const second = (await api.post(`/epics/${epic.id}/health`, { status: 'At Risk' })).body
    const third = (await v3(service, service.tokens.member).post(`/epics/${epic.id}/health`, { status: 'Off Track', text: 'Slipping' })).body
    expect(third.author_id).toBe(max)
    expect(second.text).toBe('')

    expect((await api.get(`/epics/${epic.id}/health`)).body).toEqual(third)
    const history = (await api.get(`/epics/${epic.id}/health-history`)).body
    expect(history.map((h: { id: string }) => h.id)).toEqual([third.id, second.id, first.body.id])
    expect(history[0].created_at > history[1].created_at && history[1].created_at > history[2].created_at).toBe(true)
    expect((await api.get(`/epics/${epic.id}`)).body.health).toEqual(third)
    const four = (await v4(service).get(`/epics/${epic.id}`)).body.healths
    expect(four.entities.map((h: { id: string }) => h.id)).toEqual([third.id, second.id, first.body.id])
    expect(four.entities[0]).toEqual({
      entity_type: 'health:slim',
      id: third.id,
      status: 'Off Track',
      created_at: third.created_at,
      updated_at: third.updated_at,
    })
    const reset = (await api.post(`/epics/${epic.id}/health`, { status: 'No Health' })).body
    expect((await api.get(`/epics/${epic.id}/health`)).body.id).toBe(reset.id)
  })

  it('answers 400 for a status outside the enumeration, 404 for a missing epic, 403 for read-only and Observer tokens', async () => {
    const api = v3(service)
    const epic = await newEpic()
    expect((await api.post(`/epics/${epic.id}/health`, { status: 'Great' })).status).toBe(400)
    expect((await api.post(`/epics/${epic.id}/health`, {})).status).toBe(400)
    expect((await api.post(`/epics/${epic.id}/health`, { status: 'On Track', mood: 'fine' })).status).toBe(400)
    expect((await api.post('/epics/999999/health', { status: 'On Track' })).status).toBe(404)
    expect((await api.get('/epics/999999/health')).status).toBe(404)
    expect((await api.get('/epics/999999/health-history')).status).toBe(404)
    expect((await v3(service, service.tokens.readonly).post(`/epics/${epic.id}/health`, { status: 'On Track' })).status).toBe(403)
    expect((await v3(service, service.tokens.observer).post(`/epics/${epic.id}/health`, { status: 'On Track' })).status).toBe(403)
    expect((await api.get(`/epics/${epic.id}/health-history`)).body).toEqual([])
  })
})

describe('seeded epics', () => {
  it('come with believable threads and health history in the demo workspace', async () => {
    const api = v3(service)
    // The seeded ones come first (list order is creation order); tests above added more.
    const all = ((await api.get('/epics')).body as { id: number; name: string; owner_ids: string[] }[]).slice(0, 30)
    expect(new Set(all.map((e) => e.name)).size).toBe(30)
    expect(all.every((e) => e.owner_ids.length >= 1)).toBe(true)
    const full = await Promise.all(all.slice(0, 12).map(async (e) => (await api.get(`/epics/${e.id}`)).body))
    expect(full.some((e) => e.comments.some((c: { comments: unknown[] }) => c.comments.length > 0))).toBe(true)
    expect(full.some((e) => e.health.id !== null)).toBe(true)
    expect(full[0].description).toMatch(/^## Why/)
  })

  it('seed 10,000 epics fast', async () => {
    const started = Date.now()
    const big = await testService({ seed: { epics: 10_000 } })
    try {
      expect(Date.now() - started).toBeLessThan(10_000)
      const first = await v4(big).get('/epics', { query: { limit: 1, filter: 'include_archived' } })
      expect(first.body.total_items).toBe(10_000)
    } finally {
      await big.close()
    }
  })
})
