// String limits (spec part 2 §8), table-driven over every limited string field of
// every create and update operation: exactly N characters are accepted (2xx) and
// stored, N+1 are refused with 422 naming the field. The table is derived from the
// routes' own schemas, and checked to hold every limit the spec lists.
import { afterAll, describe, expect, it } from 'vitest'
import { BULK_MAX, LIMITS } from '../../src-shared/api/common.ts'
import { WEBHOOK_SECRET_MAX } from '../../src-shared/api/v3/webhooks.ts'
import { Bodies, stringFields, uniqueText, type FieldPath } from './bodies.ts'
import { RawClient, answerProblem, describeExchange, startRecordedService, type RawAnswer, type RouteInfo } from './harness.ts'

const { service, routes } = await startRecordedService()
const client = new RawClient(service.baseUrl, { authorization: `Bearer ${service.tokens.admin}`, 'shortcut-token': service.tokens.v3 })
afterAll(async () => {
  await client.close()
  await service.close()
})

/** One limited string field of one operation. */
interface Row {
  route: RouteInfo
  field: FieldPath
  limit: number
  /** Free text; a patterned field (a team's mention name) takes only the characters its pattern allows. */
  plain: boolean
}

const writes = routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && r.schema.body)
const rows: Row[] = writes.flatMap((route) =>
  stringFields(route.schema.body).flatMap(({ field, limit, plain }) => (limit === undefined ? [] : [{ route, field, limit, plain }])),
)
// The update body's secret is nullable without a maxLength: the handler checks it.
const webhookUpdate = routes.find((r) => r.method === 'PUT' && r.url === '/api/v3/integrations/webhook/:id')!
rows.push({ route: webhookUpdate, field: ['secret'], limit: WEBHOOK_SECRET_MAX, plain: true })

/** The limits of spec part 2 §8 and an operation of each that must enforce it. */
const SPEC_LIMITS: [string, string, number][] = [
  ['POST /api/v3/categories', 'name', LIMITS.categoryName],
  ['POST /api/v3/categories', 'external_id', LIMITS.externalId],
  ['PUT /api/v3/categories/:id', 'name', LIMITS.categoryName],
  ['POST /api/v4/:workspace/categories', 'name', LIMITS.categoryName],
  ['PATCH /api/v4/:workspace/categories/:id', 'external_id', LIMITS.externalId],
  ['PUT /api/v3/custom-fields/:id', 'name', LIMITS.customFieldName],
  ['PUT /api/v3/custom-fields/:id', 'description', LIMITS.customFieldDescription],
  ['PUT /api/v3/custom-fields/:id', 'icon_set_identifier', LIMITS.iconSetIdentifier],
  ['PATCH /api/v4/:workspace/custom-fields/:id', 'name', LIMITS.customFieldName],
  ['POST /api/v3/documents', 'title', LIMITS.docTitle],
  ['POST /api/v4/:workspace/documents', 'title', LIMITS.docTitle],
  ['POST /api/v4/:workspace/documents', 'description', LIMITS.docDescription],
  ['POST /api/v3/epics', 'name', LIMITS.epicName],
  ['POST /api/v3/epics', 'description', LIMITS.epicDescription],
  ['POST /api/v3/epics', 'external_id', LIMITS.externalId],
  ['POST /api/v4/:workspace/epics', 'name', LIMITS.epicName],
  ['PATCH /api/v4/:workspace/epics/:id', 'description', LIMITS.epicDescription],
  ['POST /api/v3/epics/:id/comments', 'text', LIMITS.commentText],
  ['POST /api/v3/epics/:id/comments', 'external_id', LIMITS.externalId],
  ['POST /api/v3/entity-templates', 'name', LIMITS.entityTemplateName],
  ['POST /api/v3/groups', 'name', LIMITS.groupName],
  ['POST /api/v3/groups', 'mention_name', LIMITS.groupMentionName],
  ['POST /api/v3/milestones', 'name', LIMITS.milestoneName],
  ['POST /api/v3/milestones', 'description', LIMITS.milestoneDescription],
  ['POST /api/v3/linked-files', 'name', LIMITS.linkedFileName],
  ['POST /api/v3/linked-files', 'thumbnail_url', LIMITS.url],
  ['POST /api/v3/linked-files', 'url', LIMITS.url],
  ['PUT /api/v3/files/:id', 'name', LIMITS.fileName],
]

const label = (r: Row) => `${r.route.method} ${r.route.url} ${r.field.join('.')} (${r.limit})`

const bodies = new Bodies(service)
const text = uniqueText

async function send(row: Row, value: string): Promise<{ answer: RawAnswer; exchange: string }> {
  const body = bodies.with(row.route, row.field, value)
  const req = { method: row.route.method, path: bodies.path(row.route), body: JSON.stringify(body), contentType: 'application/json' }
  const answer = await client.send(req)
  return { answer, exchange: describeExchange({ ...req, body: req.body.slice(0, 200) }, answer) }
}

/** `epics[0].name` (handler errors) and `epics.0.name` (schema errors) both name epics → 0 → name. */
const normalise = (key: string) => key.replace(/\[(\d+)\]/g, '.$1')

// A webhook integration to update (none is seeded), disabled: nothing is delivered.
const hook = await client.send({
  method: 'POST',
  path: '/api/v3/integrations/webhook',
  body: JSON.stringify({ webhook_url: 'http://127.0.0.1:9/hook' }),
  contentType: 'application/json',
})
await client.send({
  method: 'PUT',
  path: `/api/v3/integrations/webhook/${(hook.json as { id: number }).id}`,
  body: JSON.stringify({ disabled: true }),
  contentType: 'application/json',
})

describe('string limits of spec part 2 §8', () => {
  it('the table holds every limit the spec lists, on the operations that take it', () => {
    const present = new Set(rows.map((r) => `${r.route.method} ${r.route.url}|${r.field.join('.')}|${r.limit}`))
    const missing = SPEC_LIMITS.filter(([route, field, n]) => !present.has(`${route}|${field}|${n}`))
    expect(missing).toEqual([])
    expect(rows.length).toBeGreaterThan(80)
  })

  it.each(rows.map((r) => [label(r), r] as const))('%s', async (_label, row) => {
    const exact = text(row.limit, row.field)
    const ok = await send(row, exact)
    expect(ok.answer.status, `exactly ${row.limit} characters: ${ok.exchange}`).toBeLessThan(300)
    // Read back: where the answer shows the field, it shows the value whole. (Some accepted
    // fields are never rendered: the webhook secret, a v4 doc's description, removals.)
    const key = String(row.field.filter((p) => typeof p === 'string').at(-1))
    if (!key.endsWith('_remove') && ok.answer.text.includes(`"${key}":`)) expect(ok.answer.text, 'the answer carries the value').toContain(exact)

    const over = await send(row, text(row.limit + 1, row.field))
    expect(answerProblem(over.answer), over.exchange).toBeUndefined()
    expect(over.answer.status, `${row.limit + 1} characters: ${over.exchange}`).toBe(422)
    const errors = Object.keys((over.answer.json as { errors?: object }).errors ?? {}).map(normalise)
    expect(errors, over.exchange).toContain(row.field.join('.'))
  })

  it.each(rows.filter((r) => r.field.length === 1 && r.plain).map((r) => [label(r), r] as const))(
    '%s counts characters, not UTF-16 units',
    async (_label, row) => {
      // N emoji are N characters (2N UTF-16 units): accepted, as Ajv counts code points.
      const emoji = text(row.limit, row.field, '😀')
      const ok = await send(row, emoji)
      expect(ok.answer.status, ok.exchange).toBeLessThan(300)
    },
  )
})

describe('bulk sizes', () => {
  // Bulk bodies hold at most BULK_MAX items (not shown in the spec; see README).
  const bulks = routes.filter((r) => r.url.endsWith('/bulk') && r.schema.body)

  it.each(bulks.map((r) => [`${r.method} ${r.url}`, r] as const))('%s refuses one item more than the limit, naming the list', async (_label, route) => {
    const [list, schema] = Object.entries(route.schema.body!.properties ?? {}).find(([, s]) => s.type === 'array')!
    expect(schema.maxItems).toBe(BULK_MAX)
    const item = () => bodies.minimal(schema.items, list)
    const over = await client.send({
      method: route.method,
      path: bodies.path(route),
      body: JSON.stringify({ [list]: Array.from({ length: BULK_MAX + 1 }, item) }),
      contentType: 'application/json',
    })
    expect(answerProblem(over)).toBeUndefined()
    expect(over.status).toBe(400)
    expect(Object.keys((over.json as { errors?: object }).errors ?? {})).toContain(list)
    if (route.method === 'POST') {
      const at = await client.send({
        method: route.method,
        path: bodies.path(route),
        body: JSON.stringify({ [list]: Array.from({ length: BULK_MAX }, item) }),
        contentType: 'application/json',
      })
      expect(at.status, at.text.slice(0, 200)).toBe(201)
      const made = at.json as { entities: unknown[]; total_items?: number }
      expect(made.total_items ?? made.entities.length).toBe(BULK_MAX)
    }
  })
})

describe('limits outside JSON bodies', () => {
  it('takes an external_link of exactly 2048 characters and refuses 2049 naming it', async () => {
    const at = await client.send({
      method: 'GET',
      path: `/api/v3/external-link/stories?external_link=${encodeURIComponent(text(LIMITS.externalLink, ['external_link']))}`,
    })
    expect(at.status).toBe(200)
    const over = await client.send({
      method: 'GET',
      path: `/api/v3/external-link/stories?external_link=${encodeURIComponent(text(LIMITS.externalLink + 1, ['external_link']))}`,
    })
    expect(answerProblem(over)).toBeUndefined()
    expect(over.status).toBeGreaterThanOrEqual(400)
    expect(Object.keys((over.json as { errors?: object }).errors ?? {})).toContain('external_link')
  })

  it('keeps an uploaded file name within the 1024 characters a file name may have', async () => {
    const upload = (filename: string) => {
      const boundary = 'limitBoundary'
      const body = `--${boundary}\r\nContent-Disposition: form-data; name="file0"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`
      return client.send({ method: 'POST', path: '/api/v3/files', body, contentType: `multipart/form-data; boundary=${boundary}` })
    }
    const exact = text(LIMITS.fileName, ['name'])
    const ok = await upload(exact)
    expect(ok.status).toBe(201)
    expect((ok.json as { name: string }[])[0].name).toBe(exact)
    // Past the limit the upload is refused naming the part, or the stored name is cut to the limit:
    // never a name longer than the limit in an answer (part 2 §8).
    const over = await upload(text(LIMITS.fileName + 1, ['name']))
    expect(answerProblem(over)).toBeUndefined()
    if (over.status < 300) expect([...(over.json as { name: string }[])[0].name].length).toBeLessThanOrEqual(LIMITS.fileName)
    else expect(Object.keys((over.json as { errors?: object }).errors ?? {})).toContain('file0')
  })
})
