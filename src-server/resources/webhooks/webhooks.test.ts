// Webhook integrations over v3, and deliveries checked by an independent
// receiver: a plain node:http server that verifies Payload-Signature itself.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { anonymous, testService, v3, v4 } from '../../../testing/service.ts'

interface Received {
  headers: IncomingHttpHeaders
  raw: Buffer
  body: any
  at: number
}

type Answer = number | 'reset' | 'hang'

/** Records every POST; `answer(n)` decides the reply to the n-th (0-based). */
class Receiver {
  readonly received: Received[] = []
  answer: (n: number) => Answer = () => 200
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    const receiver = new Receiver(server, `http://127.0.0.1:${port}/hook`)
    server.on('request', (req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const raw = Buffer.concat(chunks)
        const answer = receiver.answer(receiver.received.length)
        receiver.received.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')), at: Date.now() })
        if (answer === 'reset') req.socket.destroy()
        else if (answer !== 'hang') res.writeHead(answer).end()
      })
    })
    return receiver
  }

  async waitFor(count: number, timeoutMs = 5000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${this.received.length} of ${count} deliveries`)
      await sleep(10)
    }
    return this.received
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The receiver's own check: HMAC-SHA-256 over the bytes that arrived, hex, compared in constant time. */
function signedWith(r: Received, secret: string): boolean {
  const header = r.headers['payload-signature']
  if (typeof header !== 'string') return false
  const expected = createHmac('sha256', secret).update(r.raw).digest()
  const given = Buffer.from(header, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

let service: RunningService
let adminId: string
const receivers: Receiver[] = []

beforeAll(async () => {
  service = await testService({ seed: 'demo', webhookRetry: { attempts: 3, baseDelayMs: 40 } })
  adminId = (await v3(service).get('/member')).body.id
})
afterEach(async () => {
  // Every integration hears every event: each test starts with none.
  const api = v3(service)
  for (const w of (await api.get('/integrations/webhook')).body) await api.delete(`/integrations/webhook/${w.id}`)
  await Promise.all(receivers.splice(0).map((r) => r.close()))
})
afterAll(() => service.close())

async function receiverWithIntegration(body: Record<string, unknown> = {}): Promise<{ receiver: Receiver; id: number }> {
  const receiver = await Receiver.start()
  receivers.push(receiver)
  const made = await v3(service).post('/integrations/webhook', { webhook_url: receiver.url, ...body })
  expect(made.status).toBe(201)
  return { receiver, id: made.body.id }
}

function emitEpicUpdate(id = 4242, changes: Record<string, { old?: unknown; new?: unknown }> = { name: { old: 'Old', new: 'New' } }) {
  service.ctx.emit({ entity_type: 'epic', action: 'update', id, name: 'New', member_id: adminId, changes })
}

describe('v3 webhook integrations', () => {
  it('creates with a secret it never returns, reads, lists, updates and deletes', async () => {
    const api = v3(service)
    const made = await api.post('/integrations/webhook', { webhook_url: 'https://example.com/hook', secret: 's3cret' })
    expect(made.status).toBe(201)
    expect(Object.keys(made.body).sort()).toEqual([
      'created_at',
      'creator_id',
      'disabled',
      'entity_type',
      'has_secret',
      'id',
      'type',
      'updated_at',
      'webhook_url',
    ])
    expect(made.body).toMatchObject({
      entity_type: 'integration',
      webhook_url: 'https://example.com/hook',
      disabled: false,
      type: 'generic',
      creator_id: adminId,
      has_secret: true,
    })
    expect(Number.isInteger(made.body.id)).toBe(true)
    const id = made.body.id

    const read = await api.get(`/integrations/webhook/${id}`)
    expect(read.status).toBe(200)
    expect(read.body).toEqual(made.body)
    const listed = await api.get('/integrations/webhook')
    expect(listed.body).toEqual([made.body])
    expect(JSON.stringify([made.body, read.body, listed.body])).not.toContain('s3cret')

    const edited = await api.put(`/integrations/webhook/${id}`, { webhook_url: 'http://example.org/other', disabled: true })
    expect(edited.status).toBe(200)
    expect(edited.body).toMatchObject({ webhook_url: 'http://example.org/other', disabled: true, has_secret: true })
    expect(Date.parse(edited.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.body.updated_at))
    expect((await api.put(`/integrations/webhook/${id}`, { secret: null })).body.has_secret).toBe(false)
    expect((await api.put(`/integrations/webhook/${id}`, { secret: 'again' })).body.has_secret).toBe(true)
    expect((await api.get(`/integrations/webhook/${id}`)).body).toMatchObject({ webhook_url: 'http://example.org/other', disabled: true, has_secret: true })

    const gone = await api.delete(`/integrations/webhook/${id}`)
    expect(gone.status).toBe(204)
    expect(gone.body).toBe('')
    expect((await api.get(`/integrations/webhook/${id}`)).status).toBe(404)
    expect((await api.delete(`/integrations/webhook/${id}`)).status).toBe(404)
    expect((await api.get('/integrations/webhook')).body).toEqual([])
  })

  it('creates without a secret (has_secret false) and records the calling member as creator', async () => {
    const member = v3(service, service.tokens.member)
    const memberId = (await member.get('/member')).body.id
    const made = await member.post('/integrations/webhook', { webhook_url: 'http://127.0.0.1:9/hook' })
    expect(made.status).toBe(201)
    expect(made.body).toMatchObject({ has_secret: false, creator_id: memberId })
    expect(memberId).not.toBe(adminId)
  })

  it('takes a webhook_url of exactly 2048 characters and answers 422 naming it past that', async () => {
    const base = 'https://example.com/'
    const api = v3(service)
    expect((await api.post('/integrations/webhook', { webhook_url: base + 'a'.repeat(2048 - base.length) })).status).toBe(201)
    const long = await api.post('/integrations/webhook', { webhook_url: base + 'a'.repeat(2049 - base.length) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ webhook_url: 'must be at most 2048 characters' })
  })

  it('takes a secret of exactly 128 characters and answers 422 naming it past that', async () => {
    const api = v3(service)
    expect((await api.post('/integrations/webhook', { webhook_url: 'https://example.com/', secret: 's'.repeat(128) })).status).toBe(201)
    const long = await api.post('/integrations/webhook', { webhook_url: 'https://example.com/', secret: 's'.repeat(129) })
    expect(long.status).toBe(422)
    expect(long.body.errors).toEqual({ secret: 'must be at most 128 characters' })
    const made = (await api.get('/integrations/webhook')).body[0]
    const longUpdate = await api.put(`/integrations/webhook/${made.id}`, { secret: 's'.repeat(129) })
    expect(longUpdate.status).toBe(422)
    expect(longUpdate.body.errors).toEqual({ secret: 'must be at most 128 characters' })
  })

  it.each([
    [{}, 'webhook_url'],
    [{ webhook_url: 42 }, 'webhook_url'],
    [{ webhook_url: 'ftp://example.com/hook' }, 'webhook_url'],
    [{ webhook_url: 'javascript:alert(1)' }, 'webhook_url'],
    [{ webhook_url: 'not a url' }, 'webhook_url'],
    [{ webhook_url: '' }, 'webhook_url'],
    [{ webhook_url: 'https://example.com/', secret: '' }, 'secret'],
    [{ webhook_url: 'https://example.com/', secret: 7 }, 'secret'],
    [{ webhook_url: 'https://example.com/', events: ['epic'] }, 'events'],
  ])('answers 400 naming the field to a bad creation %o', async (body, field) => {
    const res = await v3(service).post('/integrations/webhook', body)
    expect(res.status).toBe(400)
    expect(res.body.tag).toBe('bad_request')
    expect(Object.keys(res.body.errors)).toContain(field)
    expect((await v3(service).get('/integrations/webhook')).body).toEqual([])
  })

  it.each([
    [{ webhook_url: 'mailto:someone@example.com' }, 'webhook_url'],
    [{ disabled: 'yes' }, 'disabled'],
    [{ secret: '' }, 'secret'],
    [{ has_secret: false }, 'has_secret'],
  ])('answers 400 naming the field to a bad update %o', async (body, field) => {
    const api = v3(service)
    const made = await api.post('/integrations/webhook', { webhook_url: 'https://example.com/', secret: 'keep' })
    const res = await api.put(`/integrations/webhook/${made.body.id}`, body)
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.errors)).toContain(field)
    expect((await api.get(`/integrations/webhook/${made.body.id}`)).body).toEqual(made.body)
  })

  it('answers 400 to malformed ids and 404 to unknown ones', async () => {
    const api = v3(service)
    for (const bad of ['abc', '0', '-3', '1.5']) {
      expect((await api.get(`/integrations/webhook/${bad}`)).status).toBe(400)
      expect((await api.delete(`/integrations/webhook/${bad}`)).status).toBe(400)
    }
    expect((await api.get('/integrations/webhook/999999')).status).toBe(404)
    expect((await api.put('/integrations/webhook/999999', { disabled: true })).status).toBe(404)
    const missing = await api.delete('/integrations/webhook/999999')
    expect(missing.status).toBe(404)
    expect(missing.body.tag).toBe('not_found')
  })

  it('answers 401 without a valid token', async () => {
    const anon = anonymous(service, '/api/v3')
    expect((await anon.get('/integrations/webhook')).status).toBe(401)
    expect((await anon.post('/integrations/webhook', { webhook_url: 'https://example.com/' })).status).toBe(401)
    expect((await anon.delete('/integrations/webhook/1')).status).toBe(401)
    expect((await v3(service, 'not-a-token').get('/integrations/webhook')).status).toBe(401)
  })

  it('lets a read-only token read but not create, change or delete', async () => {
    const made = await v3(service).post('/integrations/webhook', { webhook_url: 'https://example.com/' })
    const ro = v3(service, service.tokens.readonly)
    expect((await ro.get('/integrations/webhook')).body).toEqual([made.body])
    expect((await ro.get(`/integrations/webhook/${made.body.id}`)).status).toBe(200)
    for (const res of [
      await ro.post('/integrations/webhook', { webhook_url: 'https://example.com/ro' }),
      await ro.put(`/integrations/webhook/${made.body.id}`, { disabled: true }),
      await ro.delete(`/integrations/webhook/${made.body.id}`),
    ]) {
      expect(res.status).toBe(403)
      expect(res.body.tag).toBe('read_only_token')
    }
    expect((await v3(service).get('/integrations/webhook')).body).toEqual([made.body])
  })

  it('refuses Observers everything, reads included', async () => {
    const made = await v3(service).post('/integrations/webhook', { webhook_url: 'https://example.com/' })
    const obs = v3(service, service.tokens.observer)
    for (const res of [
      await obs.get('/integrations/webhook'),
      await obs.get(`/integrations/webhook/${made.body.id}`),
      await obs.post('/integrations/webhook', { webhook_url: 'https://example.com/obs' }),
      await obs.put(`/integrations/webhook/${made.body.id}`, { disabled: true }),
      await obs.delete(`/integrations/webhook/${made.body.id}`),
    ]) {
      expect(res.status).toBe(403)
      expect(res.body.tag).toBe('observer')
    }
    expect((await v3(service).get('/integrations/webhook')).body).toEqual([made.body])
  })
})

describe('webhook deliveries', () => {
  it('POSTs a v1 event signed with hex HMAC-SHA-256 of the raw body', async () => {
    const { receiver } = await receiverWithIntegration({ secret: 'receiver-secret' })
    emitEpicUpdate(4242, { name: { old: 'Old', new: 'New' }, owner_ids: { old: ['a', 'b'], new: ['b', 'c'] }, archived: { old: false, new: true } })
    const [got] = await receiver.waitFor(1)
    expect(got.headers['content-type']).toMatch(/^application\/json/)
    expect(signedWith(got, 'receiver-secret')).toBe(true)
    expect(signedWith(got, 'another-secret')).toBe(false)
    expect(got.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      changed_at: expect.any(String),
      primary_id: 4242,
      member_id: adminId,
      version: 'v1',
      actions: [
        {
          id: 4242,
          entity_type: 'epic',
          action: 'update',
          name: 'New',
          app_url: `${service.baseUrl}/demo/epic/4242`,
          changes: { name: { old: 'Old', new: 'New' }, owner_ids: { adds: ['c'], removes: ['a'] }, archived: { old: false, new: true } },
        },
      ],
      references: [],
    })
    expect(Number.isNaN(Date.parse(got.body.changed_at))).toBe(false)
  })

  it('sends no signature when the integration has no secret, and nothing to disabled or deleted ones', async () => {
    const plain = await receiverWithIntegration()
    const disabled = await receiverWithIntegration({ secret: 'x' })
    const deleted = await receiverWithIntegration({ secret: 'y' })
    await v3(service).put(`/integrations/webhook/${disabled.id}`, { disabled: true })
    await v3(service).delete(`/integrations/webhook/${deleted.id}`)
    emitEpicUpdate()
    const [got] = await plain.receiver.waitFor(1)
    expect(got.headers['payload-signature']).toBeUndefined()
    await sleep(150)
    expect(disabled.receiver.received).toEqual([])
    expect(deleted.receiver.received).toEqual([])
  })

  it('delivers each event to every enabled integration, in order, with the signature of each', async () => {
    const a = await receiverWithIntegration({ secret: 'alpha' })
    const b = await receiverWithIntegration({ secret: 'beta' })
    for (let i = 1; i <= 5; i++) emitEpicUpdate(100 + i)
    const [ra, rb] = await Promise.all([a.receiver.waitFor(5), b.receiver.waitFor(5)])
    expect(ra.map((r) => r.body.primary_id)).toEqual([101, 102, 103, 104, 105])
    expect(rb.map((r) => r.body.primary_id)).toEqual([101, 102, 103, 104, 105])
    expect(ra.every((r) => signedWith(r, 'alpha'))).toBe(true)
    expect(rb.every((r) => signedWith(r, 'beta'))).toBe(true)
    // One event, one id, whichever integration it went to.
    expect(ra.map((r) => r.body.id)).toEqual(rb.map((r) => r.body.id))
    expect(new Set(ra.map((r) => r.body.id)).size).toBe(5)
  })

  it('retries a failed delivery with exponential backoff, resending the same bytes', async () => {
    const { receiver } = await receiverWithIntegration({ secret: 'retry' })
    receiver.answer = (n) => (n < 2 ? 503 : 204)
    emitEpicUpdate()
    const got = await receiver.waitFor(3)
    expect(got.every((r) => r.raw.equals(got[0].raw) && signedWith(r, 'retry'))).toBe(true)
    // baseDelayMs 40: waits of 40 ms then 80 ms.
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(35)
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(75)
    await sleep(400)
    expect(receiver.received).toHaveLength(3)
  })

  it('retries after a dropped connection, and gives up after the configured attempts', async () => {
    const dropped = await receiverWithIntegration()
    dropped.receiver.answer = (n) => (n === 0 ? 'reset' : 200)
    const failing = await receiverWithIntegration()
    failing.receiver.answer = () => 500
    emitEpicUpdate()
    await dropped.receiver.waitFor(2)
    // One attempt and three retries (40, 80, 160 ms), then no more.
    await failing.receiver.waitFor(4)
    await sleep(500)
    expect(failing.receiver.received).toHaveLength(4)
    expect(dropped.receiver.received).toHaveLength(2)
  })

  it('stops retrying once the integration is deleted', async () => {
    const { receiver, id } = await receiverWithIntegration()
    receiver.answer = () => 500
    emitEpicUpdate()
    await receiver.waitFor(1)
    await v3(service).delete(`/integrations/webhook/${id}`)
    const atDelete = receiver.received.length
    await sleep(400)
    // At most an attempt already on the wire when the delete landed.
    expect(receiver.received.length).toBeLessThanOrEqual(atDelete + 1)
  })

  it('goes on to later events after one is given up, and keeps a failing receiver from holding up others', async () => {
    const slow = await receiverWithIntegration()
    slow.receiver.answer = (n) => (n < 4 ? 500 : 200)
    const healthy = await receiverWithIntegration()
    emitEpicUpdate(1)
    emitEpicUpdate(2)
    await healthy.receiver.waitFor(2, 1000)
    // The healthy receiver had both before the failing one gave up on the first.
    expect(slow.receiver.received.length).toBeLessThan(4)
    const got = await slow.receiver.waitFor(5)
    expect(got.map((r) => r.body.primary_id)).toEqual([1, 1, 1, 1, 2])
  })

  it('names the referenced entities of id changes in references', async () => {
    const { receiver } = await receiverWithIntegration()
    const category = await v3(service).post('/categories', { name: 'Webhook refs' })
    service.ctx.emit({
      entity_type: 'objective',
      action: 'update',
      id: 77,
      name: 'Objective',
      member_id: adminId,
      changes: { category_ids: { old: [], new: [category.body.id, 987654] } },
      references: [{ id: 'abc', entity_type: 'custom', name: 'Passed through' }],
    })
    const [got] = await receiver.waitFor(1)
    expect(got.body.actions[0].changes).toEqual({ category_ids: { adds: [category.body.id, 987654] } })
    // Ids that no longer exist are left out; the emitter's own references follow.
    expect(got.body.references).toEqual([
      { id: category.body.id, entity_type: 'category', name: 'Webhook refs' },
      { id: 'abc', entity_type: 'custom', name: 'Passed through' },
    ])
  })

  it('never slows the request: an integration that never answers does not hold up writes', async () => {
    const { receiver } = await receiverWithIntegration()
    receiver.answer = () => 'hang'
    emitEpicUpdate()
    await receiver.waitFor(1)
    const started = Date.now()
    const res = await v3(service).post('/integrations/webhook', { webhook_url: 'https://example.com/while-hanging' })
    expect(res.status).toBe(201)
    expect(Date.now() - started).toBeLessThan(500)
  })
})

describe('webhook events of real writes', () => {
  it('signs and sends epic create, update, move, archive and delete, made through v3 and v4', async () => {
    const { receiver } = await receiverWithIntegration({ secret: 'epics' })
    const made = await v4(service).post('/epics', { name: 'Webhook epic' })
    expect(made.status).toBe(201)
    const id = made.body.id
    expect((await v3(service).put(`/epics/${id}`, { name: 'Webhook epic, renamed' })).status).toBe(200)
    const states = (await v3(service).get('/epic-workflow')).body.epic_states as { id: number; name: string; type: string }[]
    const from = (await v3(service).get(`/epics/${id}`)).body.epic_state_id
    const to = states.find((s) => s.id !== from)!
    expect((await v3(service).put(`/epics/${id}`, { epic_state_id: to.id })).status).toBe(200)
    expect((await v4(service).patch('/epics/bulk', { epics: [{ id, archived: true }] })).status).toBe(200)
    expect((await v3(service).delete(`/epics/${id}`)).status).toBe(204)

    const got = (await receiver.waitFor(5)).filter((r) => r.body.primary_id === id)
    expect(got.every((r) => signedWith(r, 'epics'))).toBe(true)
    expect(got.map((r) => r.body.actions[0].action)).toEqual(['create', 'update', 'update', 'update', 'delete'])
    for (const r of got) expect(r.body).toMatchObject({ version: 'v1', member_id: adminId, actions: [{ id, entity_type: 'epic' }] })
    expect(got[0].body.actions[0].name).toBe('Webhook epic')
    expect(got[1].body.actions[0].changes.name).toEqual({ old: 'Webhook epic', new: 'Webhook epic, renamed' })
    // The move names both states in references.
    expect(got[2].body.actions[0].changes.epic_state_id).toEqual({ old: from, new: to.id })
    const fromState = states.find((s) => s.id === from)!
    expect(got[2].body.references).toEqual(
      expect.arrayContaining([
        { id: to.id, entity_type: 'epic-state', name: to.name, type: to.type },
        { id: from, entity_type: 'epic-state', name: fromState.name, type: fromState.type },
      ]),
    )
    expect(got[3].body.actions[0].changes.archived).toEqual({ old: false, new: true })
    expect(got[4].body.actions[0].name).toBe('Webhook epic, renamed')
  })

  it('sends doc create, update and delete', async () => {
    const { receiver } = await receiverWithIntegration({ secret: 'docs' })
    const made = await v3(service).post('/documents', { title: 'Webhook doc', content: '<p>One</p>' })
    expect(made.status).toBe(201)
    const id = made.body.id
    expect((await v3(service).put(`/documents/${id}`, { title: 'Webhook doc, edited' })).status).toBe(200)
    expect((await v3(service).delete(`/documents/${id}`)).status).toBe(204)
    const got = (await receiver.waitFor(3)).filter((r) => r.body.primary_id === id)
    expect(got.every((r) => signedWith(r, 'docs'))).toBe(true)
    expect(got.map((r) => [r.body.actions[0].entity_type, r.body.actions[0].action])).toEqual([
      ['doc', 'create'],
      ['doc', 'update'],
      ['doc', 'delete'],
    ])
    expect(got[1].body.actions[0].changes.title).toEqual({ old: 'Webhook doc', new: 'Webhook doc, edited' })
  })

  it('answers the write at once while the receiver hangs', async () => {
    const { receiver } = await receiverWithIntegration()
    receiver.answer = () => 'hang'
    const started = Date.now()
    for (let i = 0; i < 5; i++) expect((await v4(service).post('/epics', { name: `Quick ${i}` })).status).toBe(201)
    expect(Date.now() - started).toBeLessThan(1000)
    await receiver.waitFor(1)
  })
})

describe('webhook deliveries on close', () => {
  it('stop when the service closes: no retry goes out afterwards', async () => {
    const other = await testService({ webhookRetry: { attempts: 5, baseDelayMs: 100 } })
    const receiver = await Receiver.start()
    receivers.push(receiver)
    receiver.answer = () => 500
    await v3(other).post('/integrations/webhook', { webhook_url: receiver.url })
    const memberId = (await v3(other).get('/member')).body.id
    other.ctx.emit({ entity_type: 'epic', action: 'create', id: 1, name: 'Closing', member_id: memberId })
    await receiver.waitFor(1)
    await other.close()
    await sleep(500)
    expect(receiver.received).toHaveLength(1)
  })
})
