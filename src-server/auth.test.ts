// Auth and rate limit over every route of the service: no route answers
// without a valid token, and every route counts against the limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Tokens } from './auth.ts'
import type { RunningService } from './index.ts'
import type { MemberRecord } from './resources/members/member.ts'
import { Client, anonymous, testService, v3, v4, v4Root } from '../testing/service.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

const apiRoutes = () => service.app.outpostRoutes.filter((r) => r.url.startsWith('/api/') || r.url.startsWith('/media/'))

function concrete(url: string): string {
  return url.replace(':workspace', service.workspace).replace(/:[A-Za-z_-]+/g, (p) => (p === ':name' ? 'get-epics' : '1'))
}

describe('authentication', () => {
  it('sees the whole API surface', () => {
    // A floor, not an exact count: it catches a resource that registered nothing.
    expect(apiRoutes().length).toBeGreaterThan(20)
  })

  it('answers 401 with the error body on every route without a token', async () => {
    const anon = anonymous(service)
    const failures: string[] = []
    for (const r of apiRoutes()) {
      const res = await anon.call(r.method, concrete(r.url))
      if (res.status !== 401 || typeof res.body.message !== 'string' || res.body.tag !== 'unauthorized') failures.push(`${r.method} ${r.url} -> ${res.status}`)
    }
    expect(failures).toEqual([])
  })

  it('answers 401 on every route for an unknown token, in every header form', async () => {
    const failures: string[] = []
    for (const r of apiRoutes()) {
      const headers: Record<string, string> = r.url.startsWith('/api/v4/')
        ? { authorization: 'Bearer svc_rw_not-a-token' }
        : { 'shortcut-token': 'not-a-token' }
      const res = await new Client(service.baseUrl, headers, '').call(r.method, concrete(r.url))
      if (res.status !== 401) failures.push(`${r.method} ${r.url} -> ${res.status}`)
    }
    expect(failures).toEqual([])
  })

  it('refuses a v3 token on every v4 route', async () => {
    const failures: string[] = []
    for (const r of apiRoutes().filter((x) => x.url.startsWith('/api/v4/'))) {
      const res = await new Client(service.baseUrl, { authorization: `Bearer ${service.tokens.v3}` }, '').call(r.method, concrete(r.url))
      if (res.status !== 401) failures.push(`${r.method} ${r.url} -> ${res.status}`)
    }
    expect(failures).toEqual([])
  })

  it('accepts the v3 token as Shortcut-Token, Service-Token and the deprecated token parameter', async () => {
    const base = service.baseUrl
    const token = service.tokens.v3
    expect((await new Client(base, { 'shortcut-token': token }, '/api/v3').get('/member')).status).toBe(200)
    expect((await new Client(base, { 'service-token': token }, '/api/v3').get('/member')).status).toBe(200)
    expect((await anonymous(service, '/api/v3').get('/member', { query: { token } })).status).toBe(200)
  })

  it('tells the token owner and its workspace on v3 GET /member, as the published MemberInfo has them', async () => {
    const me = await v3(service, service.tokens.member).get('/member')
    const max = (await v3(service).get('/members')).body.find((m: { profile: { mention_name: string } }) => m.profile.mention_name === 'max')
    const workflow = (await v4Root(service).get('/whoami')).body.default_workflow
    const w = service.ctx.workspace
    expect(me.body).toEqual({
      id: max.id,
      is_owner: false,
      mention_name: 'max',
      name: 'Max Member',
      organization2: { id: w.id },
      role: 'member',
      workspace2: {
        created_at: w.created_at,
        default_workflow_id: workflow.id,
        estimate_scale: [0, 1, 2, 4, 8],
        id: w.id,
        name: 'Outpost Demo',
        url_slug: 'demo',
        utc_offset: '+00:00',
      },
    })
    expect(Date.parse(me.body.workspace2.created_at)).not.toBeNaN()
  })

  it('accepts v4 tokens on v3 routes with the same rights', async () => {
    expect((await v3(service, service.tokens.member).get('/member')).body.name).toBe('Max Member')
    const ro = await v3(service, service.tokens.readonly).post('/categories', { name: 'From a read-only token' })
    expect(ro.status).toBe(403)
    expect(ro.body.tag).toBe('read_only_token')
  })

  it('refuses a Bearer token that is not sent as Bearer', async () => {
    const res = await new Client(service.baseUrl, { authorization: service.tokens.admin }, '/api/v4').get('/whoami')
    expect(res.status).toBe(401)
  })

  it('refuses a disabled token at once', async () => {
    const tokens = new Tokens(service.ctx)
    const admin = service.ctx
      .col<MemberRecord>('member')
      .all()
      .find((m) => m.role === 'admin')!
    const t = tokens.create('v4_rw', admin.id, 'to be disabled')
    expect((await v4Root(service, t.secret).get('/whoami')).status).toBe(200)
    expect((await v4(service).delete(`/admin/tokens/${t.id}`)).status).toBe(204)
    const after = await v4Root(service, t.secret).get('/whoami')
    expect(after.status).toBe(401)
    expect(after.body.message).toMatch(/disabled/)
  })

  it('answers 404 for another workspace slug', async () => {
    const res = await new Client(service.baseUrl, { authorization: `Bearer ${service.tokens.admin}` }, '/api/v4/elsewhere').get('/categories')
    expect(res.status).toBe(404)
    expect(res.body.message).toMatch(/elsewhere/)
  })
})

describe('whoami and tokens', () => {
  it('tells who is calling, with scopes by token kind', async () => {
    const rw = await v4Root(service).get('/whoami')
    expect(rw.status).toBe(200)
    expect(rw.body.member.name).toBe('Ada Admin')
    // The whole v4 Member, as the published Whoami has it, not a slim reference.
    const ada = (await v3(service).get('/members')).body.find((m: { profile: { name: string } }) => m.profile.name === 'Ada Admin')
    expect(rw.body.member).toMatchObject({
      entity_type: 'member',
      id: ada.id,
      mention_name: 'ada',
      email_address: 'ada@example.com',
      role: 'admin',
      disabled: false,
      agent: { assignable: true, mentionable: true },
      teams: { entities: expect.any(Array), list_url: expect.stringContaining(`/members/${ada.id}/teams`) },
      uri: `${service.baseUrl}/api/v4/demo/members/${ada.id}`,
    })
    expect(rw.body.workspace.slug).toBe(service.workspace)
    expect(rw.body.authorization.scopes).toEqual(['read', 'write'])
    const ro = await v4Root(service, service.tokens.readonly).get('/whoami')
    expect(ro.body.authorization.scopes).toEqual(['read'])
    expect((await v4Root(service).get('/whoami', { query: { fields: 'member' } })).body).toEqual({ member: rw.body.member })
    expect((await v4Root(service).get('/whoami', { query: { fields: 'secret' } })).status).toBe(400)
  })

  it('lists tokens for admins only, never with their secrets', async () => {
    const list = await v4(service).get('/admin/tokens', { query: { limit: 100 } })
    expect(list.status).toBe(200)
    expect(list.body.entities.length).toBeGreaterThanOrEqual(5)
    const text = JSON.stringify(list.body)
    for (const secret of Object.values(service.tokens)) expect(text).not.toContain(secret)
    expect((await v4(service, service.tokens.member).get('/admin/tokens')).status).toBe(403)
    expect((await v4(service, service.tokens.member).delete(`/admin/tokens/${list.body.entities[0].id}`)).status).toBe(403)
  })

  it('keeps disabled tokens out of the default list and in include_disabled', async () => {
    const tokens = new Tokens(service.ctx)
    const admin = service.ctx
      .col<MemberRecord>('member')
      .all()
      .find((m) => m.role === 'admin')!
    const t = tokens.create('v4_ro', admin.id, 'listed then disabled')
    await v4(service).delete(`/admin/tokens/${t.id}`)
    const ids = async (filter?: string) =>
      (await v4(service).get('/admin/tokens', { query: { limit: 100, filter } })).body.entities.map((e: { id: string }) => e.id)
    expect(await ids()).not.toContain(t.id)
    expect(await ids('include_disabled')).toContain(t.id)
  })

  it('answers 404 and 400 for unknown and malformed token ids and bad list parameters', async () => {
    expect((await v4(service).delete('/admin/tokens/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect((await v4(service).delete('/admin/tokens/nope')).status).toBe(400)
    expect((await v4(service).get('/admin/tokens', { query: { limit: 101 } })).status).toBe(400)
    expect((await v4(service).get('/admin/tokens', { query: { filter: 'everything' } })).status).toBe(400)
  })

  it('lists members in v3, and answers 404 and 400 for unknown and malformed ids', async () => {
    const members = await v3(service).get('/members')
    expect(members.status).toBe(200)
    const ada = members.body.find((m: { profile: { name: string } }) => m.profile.name === 'Ada Admin')
    expect(ada.role).toBe('admin')
    expect(ada).toMatchObject({ global_id: `${service.ctx.workspace.id}:member:${ada.id}`, created_without_invite: false })
    expect((await v3(service).get(`/members/${ada.id}`)).body.profile.mention_name).toBe('ada')
    expect((await v3(service).get('/members/00000000-0000-4000-8000-000000000000')).status).toBe(404)
    expect((await v3(service).get('/members/12')).status).toBe(400)
  })
})

describe('rate limit', () => {
  it('answers 429 with Retry-After on every route once a token is over its limit', async () => {
    const limited = await testService({ seed: 'demo', rateLimit: { max: 1, windowMs: 60_000 } })
    try {
      const tokens = new Tokens(limited.ctx)
      const admin = limited.ctx
        .col<MemberRecord>('member')
        .all()
        .find((m) => m.role === 'admin')!
      const failures: string[] = []
      const routes = limited.app.outpostRoutes.filter((r) => r.url.startsWith('/api/') || r.url.startsWith('/media/'))
      for (const r of routes) {
        const v4route = r.url.startsWith('/api/v4/')
        const t = tokens.create(v4route ? 'v4_rw' : 'v3', admin.id, 'rate limit sweep')
        const headers: Record<string, string> = v4route ? { authorization: `Bearer ${t.secret}` } : { 'shortcut-token': t.secret }
        const client = new Client(limited.baseUrl, headers, '')
        const url = r.url.replace(':workspace', limited.workspace).replace(/:[A-Za-z_-]+/g, '1')
        await client.call(r.method, url)
        const second = await client.call(r.method, url)
        if (second.status !== 429 || second.body.tag !== 'rate_limited' || !(Number(second.headers['retry-after']) >= 1))
          failures.push(`${r.method} ${r.url} -> ${second.status}`)
      }
      expect(failures).toEqual([])
    } finally {
      await limited.close()
    }
  })

  it('counts per token, in a sliding window, and does not count refused requests', async () => {
    let now = 1_000_000
    const limited = await testService({ rateLimit: { max: 3, windowMs: 60_000 }, clock: () => now })
    try {
      const a = v4Root(limited)
      const b = v4Root(limited, limited.tokens.member)
      for (let i = 0; i < 3; i++) expect((await a.get('/whoami')).status).toBe(200)
      const refused = await a.get('/whoami')
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('60')
      expect((await b.get('/whoami')).status).toBe(200)
      now += 59_999
      expect((await a.get('/whoami')).status).toBe(429)
      now += 1
      // The first three have left the window; the refused ones never entered it.
      for (let i = 0; i < 3; i++) expect((await a.get('/whoami')).status).toBe(200)
      expect((await a.get('/whoami')).status).toBe(429)
    } finally {
      await limited.close()
    }
  })
})
