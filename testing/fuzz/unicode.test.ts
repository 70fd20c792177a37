// Odd Unicode in every free-text field of every create and update operation:
// accepted and stored exactly (read back through the API), or refused cleanly
// with a 4xx and the error body. Never a 5xx, never a silent change.
import { afterAll, describe, expect, it } from 'vitest'
import { Bodies, stringFields, type FieldPath } from './bodies.ts'
import { RawClient, answerProblem, describeExchange, startRecordedService, type RouteInfo } from './harness.ts'

const { service, routes } = await startRecordedService()
const client = new RawClient(service.baseUrl, { authorization: `Bearer ${service.tokens.admin}`, 'shortcut-token': service.tokens.v3 })
const bodies = new Bodies(service)
afterAll(async () => {
  await client.close()
  await service.close()
})

/** Odd text, by what makes it odd. Lone surrogates travel as JSON escapes (\ud800), the only way to send them. */
const ODD: [string, string][] = [
  ['emoji with joiners', '👩‍👩‍👧‍👦 family 🏳️‍🌈'],
  ['astral CJK', '𠜎𠜱𠝹'],
  ['combining marks', 'e\u0301 a\u0308 Z\u0351\u0362\u0338\u0335algo'],
  ['right-to-left', 'שלום עולם مرحبا'],
  ['bidi override', 'abc\u202edcba\u202c'],
  ['NUL', 'a\u0000b'],
  ['C0 controls', 'a\u0001\u0007\u001fb'],
  ['line and paragraph separators', 'a\u2028b\u2029c'],
  ['CR LF and tab', 'a\r\nb\tc'],
  ['zero-width and BOM', '\ufeffa\u200bb\u200dc'],
  ['non-characters', 'a\uffffb\ufffe'],
  ['lone high surrogate', 'a\ud800b'],
  ['lone low surrogate', 'a\udfffb'],
  ['reversed pair', 'a\udc00\ud800b'],
  ['compatibility forms', 'Å ﬁ ① Ｆｕｌｌ'],
  ['HTML and script', '<b>x</b><script>alert(1)</script>'],
]

/** Free-text fields at the top of each single create or update body (bulk bodies reuse the same fields). */
const rows = routes
  .filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && r.schema.body && !r.url.endsWith('/bulk'))
  .flatMap((route) =>
    stringFields(route.schema.body)
      .filter((f) => f.plain && f.field.length === 1 && !/url|secret/.test(String(f.field[0])))
      .map((f) => ({ route, field: f.field })),
  )

/** Where the written entity is read back: the same path for updates, the new id under the list for creates. */
function readBack(route: RouteInfo, path: string, answer: unknown): string | undefined {
  if (route.method !== 'POST') return routes.some((r) => r.method === 'GET' && r.url === route.url) ? path : undefined
  const entity = unwrap(answer)
  const id = entity?.id
  const get = routes.find((r) => r.method === 'GET' && r.url.startsWith(`${route.url}/:`) && r.url.split('/').length === route.url.split('/').length + 1)
  return id !== undefined && get ? `${path}/${encodeURIComponent(String(id))}` : undefined
}

function unwrap(json: unknown): Record<string, unknown> | undefined {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined
  const o = json as Record<string, unknown>
  return 'entity' in o ? (o.entity as Record<string, unknown>) : o
}

/** Fields whose text the service rightly rewrites (doc content is converted and sanitized HTML). */
const REWRITTEN = new Set(['content'])

const tally = new Map<string, number>()
let sent = 0

describe('odd Unicode in free-text fields', () => {
  it('covers the text fields of the create and update operations', () => {
    expect(rows.length).toBeGreaterThan(30)
  })

  it.each(rows.map((r) => [`${r.route.method} ${r.route.url} ${r.field.join('.')}`, r] as const))('%s', async (_label, { route, field }) => {
    // The same request with plain text succeeds, so a refusal below is about the text.
    const control = {
      method: route.method,
      path: bodies.path(route),
      body: JSON.stringify(bodies.with(route, field as FieldPath, `plain ${Math.random()}`)),
      contentType: 'application/json',
    }
    const plain = await client.send(control)
    expect(plain.status, describeExchange(control, plain)).toBeLessThan(300)
    const failures: string[] = []
    let accepted = 0
    for (const [what, odd] of ODD) {
      // Numbered: some names must be unique (categories, group mention names).
      const value = `${++sent} ${what}: ${odd}`
      const path = bodies.path(route)
      const req = { method: route.method, path, body: JSON.stringify(bodies.with(route, field as FieldPath, value)), contentType: 'application/json' }
      const answer = await client.send(req)
      const problem = answerProblem(answer)
      if (problem) {
        failures.push(`${what}: ${problem}: ${describeExchange(req, answer)}`)
        continue
      }
      if (answer.status >= 400) continue
      accepted++
      if (REWRITTEN.has(String(field[0]))) continue
      const key = String(field[0])
      const shown = unwrap(answer.json)
      if (shown && key in shown && shown[key] !== value) failures.push(`${what}: the answer shows ${JSON.stringify(shown[key])} for ${JSON.stringify(value)}`)
      const back = readBack(route, path, answer.json)
      if (!back) continue
      const read = unwrap((await client.send({ method: 'GET', path: back })).json)
      if (read && key in read && read[key] !== value) failures.push(`${what}: read back as ${JSON.stringify(read[key])} for ${JSON.stringify(value)}`)
    }
    expect(failures).toEqual([])
    tally.set(_label, accepted)
  })

  afterAll(() => {
    const refused = [...tally].filter(([, n]) => n < ODD.length).map(([l, n]) => `${l}: ${ODD.length - n} refused`)
    if (refused.length > 0) console.log(`unicode: cleanly refused\n  ${refused.join('\n  ')}`)
  })
})
