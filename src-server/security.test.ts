// Security of the service over every route (beyond auth.test.ts): no route answers
// without a valid token in the right place; read-only tokens and Observers never
// write (the data is compared whole before and after); members never reach admin
// routes; Observers never reach webhook integrations; webhook and token secrets are
// never returned; uploaded file names cannot escape and are served safely.
import { createHmac, randomUUID } from 'node:crypto'
import { readdirSync, type Dirent } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Tokens } from './auth.ts'
import { quoteName } from '../src-main/gateway/multipart.ts'
import { Bodies } from '../testing/fuzz/bodies.ts'
import { RawClient, WRITE_METHODS, errorBodyProblem, startRecordedService, type RawAnswer, type RawRequest, type RouteInfo } from '../testing/fuzz/harness.ts'
import type { MemberRecord } from './resources/members/member.ts'
import { newMember } from './workspace.ts'

const { service, routes } = await startRecordedService()
const bodies = new Bodies(service)
const tokens = new Tokens(service.ctx)
const members = service.ctx.col<MemberRecord>('member')
const admin = members.all().find((m) => m.role === 'admin')!
const clients: RawClient[] = []
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await service.close()
})

function clientWith(headers: Record<string, string>): RawClient {
  const c = new RawClient(service.baseUrl, headers)
  clients.push(c)
  return c
}
const adminV4 = clientWith({ authorization: `Bearer ${service.tokens.admin}` })
const adminV3 = clientWith({ 'shortcut-token': service.tokens.v3 })

type Api = 'v3' | 'v4' | 'media'
const apiOf = (r: RouteInfo): Api => (r.url.startsWith('/api/v4/') ? 'v4' : r.url.startsWith('/media/') ? 'media' : 'v3')

/** A request that would succeed with the right credentials: real ids, a valid body. */
function requestFor(route: RouteInfo): RawRequest {
  const path = bodies.path(route)
  if (route.method === 'POST' && route.url === '/api/v3/files') return { method: 'POST', path, ...multipart([['file0', 'a.txt', Buffer.from('hello')]]) }
  if (!WRITE_METHODS.has(route.method) || !route.schema.body) return { method: route.method, path }
  return { method: route.method, path, body: JSON.stringify(bodies.minimal(route.schema.body) ?? {}), contentType: 'application/json' }
}

/** A form as the app's gateway sends it (file names quoted the way browsers quote them). */
function multipart(parts: [field: string, filename: string, bytes: Buffer][]): { body: Buffer; contentType: string } {
  const boundary = `b${randomUUID()}`
  const chunks = parts.flatMap(([field, filename, bytes]) => [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name=${quoteName(field)}; filename=${quoteName(filename)}\r\nContent-Type: text/plain\r\n\r\n`,
    ),
    bytes,
    Buffer.from('\r\n'),
  ])
  return { body: Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Sends the route's request through the client, with extra query text when given. */
function call(client: RawClient, route: RouteInfo, query = ''): Promise<RawAnswer> {
  const req = requestFor(route)
  return client.send({ ...req, path: query ? `${req.path}${req.path.includes('?') ? '&' : '?'}${query}` : req.path })
}

/** The database as rows, for comparing before and after (list snapshots and last-used times are bookkeeping). */
function snapshot(): string {
  const db = service.ctx.db
  const rows = (sql: string) => JSON.stringify(db.prepare(sql).all())
  return [
    rows('SELECT kind, id, data, name, archived, external_id, parent, position FROM entities ORDER BY kind, id'),
    rows('SELECT * FROM relations ORDER BY kind, a, b'),
    rows('SELECT secret, id, kind, member_id, description, disabled FROM tokens ORDER BY id'),
    rows('SELECT id, content_type, size, hex(bytes) AS bytes FROM file_blobs ORDER BY id'),
    rows('SELECT * FROM meta ORDER BY key'),
    rows('SELECT * FROM seq ORDER BY name'),
  ].join('\n')
}

/** Every v3 list (GET routes without parameters), as the API answers them. */
async function v3Lists(): Promise<string> {
  const lists = routes.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v3/') && !r.url.includes(':'))
  const out: string[] = []
  for (const r of lists) out.push(`${r.url} ${(await adminV3.send({ method: 'GET', path: r.url })).text}`)
  return out.join('\n')
}

/** The answer is a refusal with this status, the error body, and one of the tags. */
function refusedAs(answer: RawAnswer, status: number, ...tags: string[]): boolean {
  const body = answer.json as { tag?: string } | undefined
  return answer.status === status && errorBodyProblem(answer.json, status) === undefined && (tags.length === 0 || tags.includes(body?.tag ?? ''))
}

const describeAnswer = (r: RouteInfo, a: RawAnswer) => `${r.method} ${r.url} -> ${a.status} ${a.text.slice(0, 120)}`

describe('no route answers without a valid token in the right place', () => {
  // A member who is then disabled, with a token of each kind.
  const gone = members.insert(newMember(service.ctx, 'admin', 'Dora Disabled', 'dora', 'dora@example.com'))
  const goneV4 = tokens.create('v4_rw', gone.id, 'of a disabled member').secret
  const goneV3 = tokens.create('v3', gone.id, 'of a disabled member').secret
  members.update({ ...gone, disabled: true, state: 'disabled' })
  // Tokens that were disabled.
  const offV4 = tokens.create('v4_rw', admin.id, 'disabled v4')
  const offV3 = tokens.create('v3', admin.id, 'disabled v3')
  tokens.disable(offV4.id)
  tokens.disable(offV3.id)
  const adminRw = service.tokens.admin
  const v3Token = service.tokens.v3

  /** Credentials that must not open a route of each API, by what is wrong with them. */
  const WRONG: Record<Api, [string, Record<string, string>, string?][]> = {
    v4: [
      ['no credentials', {}],
      ['a v3 token as Bearer', { authorization: `Bearer ${v3Token}` }],
      ['a disabled token', { authorization: `Bearer ${offV4.secret}` }],
      ["a disabled member's token", { authorization: `Bearer ${goneV4}` }],
      ['a v4 token in Shortcut-Token', { 'shortcut-token': adminRw }],
      ['a v4 token in Service-Token', { 'service-token': adminRw }],
      ['a v4 token in the token parameter', {}, `token=${adminRw}`],
      ['a v3 token in Shortcut-Token', { 'shortcut-token': v3Token }],
      ['a token without the Bearer scheme', { authorization: adminRw }],
      ['a token with another scheme', { authorization: `Token ${adminRw}` }],
      ['Basic credentials', { authorization: `Basic ${Buffer.from(`${adminRw}:`).toString('base64')}` }],
      ['a token with a character more', { authorization: `Bearer ${adminRw}x` }],
      ['a token with a character less', { authorization: `Bearer ${adminRw.slice(0, -1)}` }],
      ['an empty Bearer', { authorization: 'Bearer ' }],
      ['two tokens', { authorization: `Bearer ${adminRw} ${adminRw}` }],
    ],
    v3: [
      ['no credentials', {}],
      ['a disabled token', { 'shortcut-token': offV3.secret }],
      ['a disabled token as the token parameter', {}, `token=${offV3.secret}`],
      ["a disabled member's token", { 'shortcut-token': goneV3 }],
      ["a disabled member's v4 token", { 'service-token': goneV4 }],
      ['a disabled v4 token', { 'shortcut-token': offV4.secret }],
      ['a v3 token as Bearer', { authorization: `Bearer ${v3Token}` }],
      ['a v4 token as Bearer', { authorization: `Bearer ${adminRw}` }],
      ['an empty Shortcut-Token', { 'shortcut-token': '' }],
      ['a token with a character more', { 'shortcut-token': `${v3Token}x` }],
      ['an empty token parameter', {}, 'token='],
    ],
    media: [
      ['no credentials', {}],
      ['a disabled token', { 'shortcut-token': offV3.secret }],
      ['a disabled Bearer token', { authorization: `Bearer ${offV4.secret}` }],
      ["a disabled member's token", { 'shortcut-token': goneV3 }],
      ["a disabled member's Bearer token", { authorization: `Bearer ${goneV4}` }],
      ['a token with a character more', { authorization: `Bearer ${adminRw}x` }],
    ],
  }

  for (const api of ['v4', 'v3', 'media'] as const) {
    it.each(WRONG[api].map(([what, headers, query]) => [what, headers, query] as const))(
      `refuses every ${api} route with 401 and the error body: %s`,
      async (_what, headers, query) => {
        const before = snapshot()
        const client = clientWith(headers)
        const failures: string[] = []
        const mine = routes.filter((r) => apiOf(r) === api)
        expect(mine.length).toBeGreaterThan(0)
        for (const r of mine) {
          const answer = await call(client, r, query)
          if (!refusedAs(answer, 401, 'unauthorized')) failures.push(describeAnswer(r, answer))
        }
        expect(failures).toEqual([])
        expect(snapshot()).toBe(before)
      },
    )
  }

  it('opens the same requests with the right credentials (the sweeps above are not vacuous)', async () => {
    // Reads only: a GET of every route answers something other than 401 with a valid token.
    for (const r of routes.filter((x) => x.method === 'GET')) {
      const answer = await call(apiOf(r) === 'v4' ? adminV4 : adminV3, r)
      expect(answer.status, describeAnswer(r, answer)).not.toBe(401)
    }
  })
})

describe('read-only tokens and Observers never write', () => {
  const writes = routes.filter((r) => WRITE_METHODS.has(r.method))
  const adminReadOnly = tokens.create('v4_ro', admin.id, 'admin read-only').secret
  const observerV3 = tokens.create('v3', members.all().find((m) => m.role === 'observer')!.id, 'observer v3').secret

  const sweeps: [string, (r: RouteInfo) => RawClient, (r: RouteInfo) => boolean, number, string][] = [
    [
      "a member's read-only token",
      (r) => clientWith(apiOf(r) === 'v4' ? { authorization: `Bearer ${service.tokens.readonly}` } : { 'shortcut-token': service.tokens.readonly }),
      () => true,
      403,
      'read_only_token',
    ],
    [
      "an admin's read-only token",
      (r) => clientWith(apiOf(r) === 'v4' ? { authorization: `Bearer ${adminReadOnly}` } : { 'service-token': adminReadOnly }),
      () => true,
      403,
      'read_only_token',
    ],
    [
      "an Observer's token",
      (r) => clientWith(apiOf(r) === 'v4' ? { authorization: `Bearer ${service.tokens.observer}` } : { 'shortcut-token': observerV3 }),
      (r) => r.config.observerWrites !== true,
      403,
      'observer',
    ],
  ]

  it.each(sweeps)('refuses every write route with %s, and nothing changes', async (_what, clientFor, applies, status, tag) => {
    const beforeRows = snapshot()
    const beforeLists = await v3Lists()
    const failures: string[] = []
    const swept = writes.filter(applies)
    expect(swept.length).toBeGreaterThan(40)
    for (const r of swept) {
      const answer = await call(clientFor(r), r)
      // Admin routes check the role first: a member's token is refused for that.
      if (!refusedAs(answer, status, tag, ...(r.config.admin ? ['admin_required'] : []))) failures.push(describeAnswer(r, answer))
    }
    expect(failures).toEqual([])
    expect(await v3Lists()).toBe(beforeLists)
    expect(snapshot()).toBe(beforeRows)
  })

  it('lets Observers write only where the spec allows it (epic comments, favourites)', () => {
    const allowed = routes.filter((r) => r.config.observerWrites).map((r) => `${r.method} ${r.url}`)
    expect(allowed.length).toBeGreaterThan(0)
    for (const route of allowed) expect(route).toMatch(/\/comments|\/favorite$/)
  })
})

describe('roles', () => {
  it('refuses members every admin route, and every route under /admin/ is one', async () => {
    const adminRoutes = routes.filter((r) => r.config.admin)
    expect(adminRoutes.map((r) => r.url)).toEqual(expect.arrayContaining(routes.filter((r) => r.url.includes('/admin/')).map((r) => r.url)))
    expect(adminRoutes.length).toBeGreaterThanOrEqual(2)
    const before = snapshot()
    for (const [what, secret] of [
      ['member', service.tokens.member],
      ['member read-only', service.tokens.readonly],
      ['observer', service.tokens.observer],
    ] as const) {
      const client = clientWith({ authorization: `Bearer ${secret}` })
      for (const r of adminRoutes) {
        const answer = await call(client, r)
        // A read-only token may be refused for writing first; either way it is a 403.
        expect(answer.status, `${what}: ${describeAnswer(r, answer)}`).toBe(403)
        expect(errorBodyProblem(answer.json, 403)).toBeUndefined()
        if (what === 'member') expect((answer.json as { tag: string }).tag).toBe('admin_required')
      }
    }
    expect(snapshot()).toBe(before)
  })

  it('refuses Observers every webhook integration route, reads included', async () => {
    const hooks = routes.filter((r) => r.url.includes('/integrations/webhook'))
    expect(hooks.length).toBe(5)
    const observer = clientWith({ 'shortcut-token': tokens.create('v3', members.all().find((m) => m.role === 'observer')!.id, 'observer').secret })
    const observerBearer = clientWith({ authorization: `Bearer ${service.tokens.observer}` })
    const before = snapshot()
    for (const r of hooks) {
      for (const client of [observer, observerBearer]) {
        const answer = await call(client, r)
        // v3 routes take Shortcut-Token; with Bearer the Observer is not even authenticated.
        expect(answer.status, describeAnswer(r, answer)).toBe(client === observer ? 403 : 401)
        expect(errorBodyProblem(answer.json, answer.status)).toBeUndefined()
      }
    }
    expect(snapshot()).toBe(before)
  })
})

describe('secrets are never returned', () => {
  it('shows no webhook secret and no token secret in any answer of any read route', async () => {
    const secretA = `whsec-${randomUUID()}`
    const secretB = `whsec-${randomUUID()}`
    const created = await adminV3.send({
      method: 'POST',
      path: '/api/v3/integrations/webhook',
      body: JSON.stringify({ webhook_url: 'http://127.0.0.1:9/a', secret: secretA }),
      contentType: 'application/json',
    })
    expect(created.status).toBe(201)
    const other = await adminV3.send({
      method: 'POST',
      path: '/api/v3/integrations/webhook',
      body: JSON.stringify({ webhook_url: 'http://127.0.0.1:9/b' }),
      contentType: 'application/json',
    })
    const updated = await adminV3.send({
      method: 'PUT',
      path: `/api/v3/integrations/webhook/${(other.json as { id: number }).id}`,
      body: JSON.stringify({ secret: secretB, disabled: true }),
      contentType: 'application/json',
    })
    expect(updated.status).toBe(200)
    // Both are disabled from here on, so nothing is delivered to the closed port.
    await adminV3.send({
      method: 'PUT',
      path: `/api/v3/integrations/webhook/${(created.json as { id: number }).id}`,
      body: JSON.stringify({ disabled: true }),
      contentType: 'application/json',
    })
    expect((created.json as { has_secret: boolean }).has_secret).toBe(true)

    const secrets = [secretA, secretB, ...Object.values(service.tokens), ...tokens.all().map((t) => t.secret)]
    const answers: [string, string][] = [
      ['POST webhook', created.text],
      ['PUT webhook', updated.text],
    ]
    for (const r of routes.filter((x) => x.method === 'GET')) {
      const answer = await call(apiOf(r) === 'v4' ? adminV4 : adminV3, r)
      answers.push([`GET ${r.url}`, answer.text])
    }
    // The lists carry both integrations.
    expect(answers.find(([l]) => l === 'GET /api/v3/integrations/webhook')![1]).toContain(`"has_secret":true`)
    const leaks = answers.flatMap(([l, text]) => secrets.filter((s) => text.includes(s)).map((s) => `${l} shows ${s.slice(0, 10)}...`))
    expect(leaks).toEqual([])
  })

  it('signs deliveries with the secret and never puts it in the payload', async () => {
    const secret = `whsec-${randomUUID()}`
    const received: { body: string; signature?: string }[] = []
    const sink = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        received.push({ body, signature: req.headers['payload-signature'] as string | undefined })
        res.writeHead(204).end()
      })
    })
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`
      const hook = await adminV3.send({
        method: 'POST',
        path: '/api/v3/integrations/webhook',
        body: JSON.stringify({ webhook_url: url, secret }),
        contentType: 'application/json',
      })
      expect(hook.status).toBe(201)
      expect(
        (
          await adminV3.send({
            method: 'POST',
            path: '/api/v3/epics',
            body: JSON.stringify({ name: `signed ${randomUUID()}` }),
            contentType: 'application/json',
          })
        ).status,
      ).toBe(201)
      for (let i = 0; i < 100 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(received.length).toBeGreaterThan(0)
      for (const d of received) {
        expect(d.body).not.toContain(secret)
        expect(d.signature).toBe(createHmac('sha256', secret).update(d.body, 'utf8').digest('hex'))
      }
      await adminV3.send({ method: 'DELETE', path: `/api/v3/integrations/webhook/${(hook.json as { id: number }).id}` })
    } finally {
      sink.closeAllConnections()
      await new Promise<void>((r) => sink.close(() => r()))
    }
  })
})

describe('file names with path traversal', () => {
  const marker = `escape-${randomUUID().slice(0, 8)}`
  const NAMES = [
    `../../${marker}-a.txt`,
    `..\\..\\${marker}-b.txt`,
    `/tmp/${marker}-c.txt`,
    `C:\\Windows\\${marker}-d.txt`,
    `${marker}-f\u0000.txt`,
    `%2e%2e%2f${marker}-g.txt`,
    `....//....//${marker}-h.txt`,
    `~/${marker}-i.txt`,
    `./${marker}-j/../../k.txt`,
    `${marker}-l.txt\r\nX-Injected: 1`,
    `${marker}-m";x=".txt`,
  ]
  /** What the service receives: browsers (and the gateway) percent-encode quotes and line breaks in a file name. */
  const sent = (name: string) => quoteName(name).slice(1, -1)

  /** Files whose name holds the marker under a directory, a few levels down (node_modules and .git skipped). */
  function findMarker(dir: string, depth: number): string[] {
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return []
    }
    return entries.flatMap((e) => {
      const path = join(dir, e.name)
      const here = e.name.includes(marker) ? [path] : []
      if (!e.isDirectory() || depth === 0 || e.name === 'node_modules' || e.name === '.git' || e.name === 'proc') return here
      return [...here, ...findMarker(path, depth - 1)]
    })
  }

  const serviceDir = dirname(service.ctx.db.name)
  const listServiceDir = () => readdirSync(serviceDir).sort()

  it('stores each name as a name, serves the bytes with a safe Content-Disposition, and writes no file anywhere', async () => {
    const before = listServiceDir()
    const failures: string[] = []
    for (const [i, name] of NAMES.entries()) {
      const bytes = Buffer.from(`content ${i}`)
      const upload = await adminV3.send({ method: 'POST', path: '/api/v3/files', ...multipart([['file0', name, bytes]]) })
      if (upload.status !== 201) {
        failures.push(`${JSON.stringify(name)}: upload answered ${upload.status} ${upload.text.slice(0, 100)}`)
        continue
      }
      const [file] = upload.json as { id: number; name: string; filename: string; url: string }[]
      if (file.name !== sent(name) || file.filename !== sent(name)) failures.push(`${JSON.stringify(name)}: stored as ${JSON.stringify(file.name)}`)
      // The url stays under the file's own path: no separator or dot segment from the name.
      const url = new URL(file.url)
      if (url.origin !== service.baseUrl || !url.pathname.startsWith(`/media/files/${file.id}/`) || url.pathname.split('/').length !== 5)
        failures.push(`${JSON.stringify(name)}: url ${file.url}`)
      const served = await adminV3.send({ method: 'GET', path: url.pathname })
      if (served.status !== 200 || served.text !== bytes.toString()) {
        failures.push(`${JSON.stringify(name)}: served ${served.status}`)
        continue
      }
      const problem = dispositionProblem(String(served.headers['content-disposition']), sent(name))
      if (problem) failures.push(`${JSON.stringify(name)}: ${problem}`)
      if (served.headers['x-content-type-options'] !== 'nosniff') failures.push(`${JSON.stringify(name)}: no nosniff`)
    }
    expect(failures).toEqual([])
    // Nothing escaped: the bytes live in SQLite, and no file carries the marker.
    expect(listServiceDir()).toEqual(before)
    expect(listServiceDir().every((f) => f.startsWith('service.db'))).toBe(true)
    const found = [...findMarker(tmpdir(), 3), ...findMarker(process.cwd(), 3), ...findMarker(dirname(process.cwd()), 1), ...findMarker('/', 1)]
    expect(found).toEqual([])
  })

  it('keeps a traversal name given on rename as a name, served safely', async () => {
    const upload = await adminV3.send({ method: 'POST', path: '/api/v3/files', ...multipart([['file0', 'plain.txt', Buffer.from('renamed')]]) })
    const [file] = upload.json as { id: number; url: string }[]
    const name = `../../${marker}-rename.txt`
    const renamed = await adminV3.send({ method: 'PUT', path: `/api/v3/files/${file.id}`, body: JSON.stringify({ name }), contentType: 'application/json' })
    expect(renamed.status).toBe(200)
    expect((renamed.json as { name: string }).name).toBe(name)
    const served = await adminV3.send({ method: 'GET', path: new URL(file.url).pathname })
    expect(served.status).toBe(200)
    expect(dispositionProblem(String(served.headers['content-disposition']), name)).toBeUndefined()
    expect(findMarker(tmpdir(), 3)).toEqual([])
  })

  it('serves every uploaded file at its url, however long its name', async () => {
    const failures: string[] = []
    for (const length of [50, 100, 101, 150, 255, 1024]) {
      const name = `${'n'.repeat(length - 4)}.txt`
      const upload = await adminV3.send({ method: 'POST', path: '/api/v3/files', ...multipart([['file0', name, Buffer.from('long')]]) })
      const [file] = upload.json as { url: string }[]
      const served = await adminV3.send({ method: 'GET', path: new URL(file.url).pathname })
      if (served.status !== 200)
        failures.push(`a ${length}-character name: ${new URL(file.url).pathname.length}-character url answered ${served.status} ${served.text.slice(0, 80)}`)
    }
    expect(failures).toEqual([])
  })
})

/** Why a Content-Disposition header is unsafe for the name, or undefined. */
function dispositionProblem(header: string, name: string): string | undefined {
  if (/[\r\n\0]/.test(header)) return `control characters in ${JSON.stringify(header)}`
  const m = /^(inline|attachment); filename="([^"]*)"; filename\*=UTF-8''([A-Za-z0-9!#$&+.^_`|~%-]*)$/.exec(header)
  if (!m) return `not a plain disposition: ${JSON.stringify(header)}`
  const ascii = m[2]
  if (/[/\\]/.test(ascii) || /[^\x20-\x7e]/.test(ascii)) return `a path separator or non-ASCII in the fallback name ${JSON.stringify(ascii)}`
  if (decodeURIComponent(m[3]) !== name) return `filename* does not decode to the name: ${m[3]}`
  return undefined
}
