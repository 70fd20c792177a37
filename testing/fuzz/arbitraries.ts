// fast-check generators for requests: near-valid values built from a route's JSON
// schema (mostly right, now and then wrong in one place), arbitrary JSON, odd
// text, path parameters and query strings no well-behaved client would send.
import fc from 'fast-check'
import { Color } from '../../src-shared/api/common.ts'
import type { Kind } from '../../src-server/kinds.ts'
import type { JsonSchema, PathParam } from './harness.ts'

/** Ids a generator may pick so that requests reach past "not found". */
export interface IdPools {
  ids: (kind: Kind) => (string | number)[]
  /** Values for path parameters that name no stored kind, by the segment before them (`tokens`, `schemas`). */
  bySegment?: Record<string, string[]>
  allInts: number[]
  allUuids: string[]
  /** Where fuzzed webhook integrations deliver: a local sink, never the network. */
  webhookUrl: string
}

/** Text that has broken services before: encodings, injections, control and bidi characters. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\t\r\n',
  '\r\nX-Injected: 1',
  '\u202eRTL override',
  'שלום עולם',
  'مرحبا',
  'e\u0301\u0301\u0301',
  'Z\u0351\u0362\u0338\u0335\u0340\u0305algo',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  '\ud83d',
  '\udfff',
  'x\ud800y',
  '\ufeffBOM',
  '\uffff\ufffe',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'; DROP TABLE epics; --",
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  '%2e%2e%2f',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'prototype',
  'null',
  'undefined',
  'NaN',
  '-0',
  '1e309',
  'true',
  '[]',
  '{}',
]

export const oddText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
)

/** Integers at the edges of what JSON, JavaScript and SQLite each hold. */
export const EDGE_INTEGERS: readonly number[] = [0, -1, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53 + 2, -(2 ** 53), 2 ** 63, 1e20, 1e300]

/** Number-like path and query text. */
export const EDGE_NUMBER_TEXT: readonly string[] = [
  '0',
  '-1',
  '-0',
  '1.5',
  '1e3',
  '1e400',
  '0x10',
  '0b1',
  '0o7',
  '+1',
  ' 1',
  '1 ',
  '01',
  '00000000000000000001',
  '99999999999999999999',
  '9007199254740993',
  '18446744073709551616',
  'NaN',
  'Infinity',
  '-Infinity',
  '1_000',
]

const anyJson = fc.jsonValue({ maxDepth: 3 })

/** Which kind of id a body field holds, by its name (and for `id`, by the list it sits in). */
export const KIND_OF_FIELD: Record<string, Kind> = {
  owner_ids: 'member',
  follower_ids: 'member',
  member_ids: 'member',
  requested_by_id: 'member',
  author_id: 'member',
  uploader_id: 'member',
  group_ids: 'group',
  team_ids: 'group',
  group_id: 'group',
  objective_ids: 'objective',
  milestone_id: 'objective',
  epic_state_id: 'epic_state',
  epic_id: 'epic',
  epic_ids: 'epic',
  collection_ids: 'collection',
  parent_collection_id: 'collection',
  story_id: 'story',
  file_ids: 'file',
  linked_file_ids: 'linked_file',
  category_ids: 'category',
  custom_field_ids: 'custom_field',
  field_id: 'custom_field',
  epics: 'epic',
  categories: 'category',
  custom_fields: 'custom_field',
  workflow_ids: 'workflow',
  default_workflow_id: 'workflow',
}

/**
 * A value for the schema. Strict values always pass the schema (they test the
 * handlers); loose ones are wrong now and then, anywhere in the tree (they test
 * the validation and the error body).
 */
export function valueFor(schema: JsonSchema | undefined, pools: IdPools, strict: boolean, key = '', parent = ''): fc.Arbitrary<unknown> {
  if (!schema) return anyJson
  const right = validish(schema, pools, strict, key, parent)
  return strict ? right : fc.oneof({ weight: 8, arbitrary: right }, { weight: 1, arbitrary: wrongValue })
}

/** A loose value (see valueFor). */
export const nearValid = (schema: JsonSchema | undefined, pools: IdPools, key = '') => valueFor(schema, pools, false, key)

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, '', 0, -1, 1.5, true, false, [], {}, '1', 'true', [null], { '': null }),
  anyJson,
  oddText,
)

/** The kind of id a body field holds: by its name, or for `id` by the list it sits in. */
export function kindOfField(key: string, parent: string): Kind | undefined {
  return KIND_OF_FIELD[key === 'id' ? parent : key.replace(/_(add|remove)$/, '')]
}

function idsFor(pools: IdPools, key: string, parent: string): (string | number)[] {
  const kind = kindOfField(key, parent)
  return kind ? pools.ids(kind) : []
}

function validish(schema: JsonSchema, pools: IdPools, strict: boolean, key: string, parent: string): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validish(s, pools, strict, key, parent)))
  if (schema.enum) return fc.constantFrom(...schema.enum)
  if (schema.const !== undefined) return fc.constant(schema.const)
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  switch (type) {
    case 'object':
      return objectOf(schema, pools, strict, key)
    case 'array': {
      const max = Math.min(schema.maxItems ?? 4, 4)
      return fc.array(valueFor(schema.items, pools, strict, key, parent), { minLength: Math.min(schema.minItems ?? 0, max), maxLength: max })
    }
    case 'string':
      return stringFor(schema, pools, strict, key, parent)
    case 'integer': {
      const min = schema.minimum ?? -Infinity
      const max = schema.maximum ?? Infinity
      const fits = (n: number) => !strict || (n >= min && n <= max)
      const known = idsFor(pools, key, parent).filter((id): id is number => typeof id === 'number')
      const ints = (known.length > 0 ? known : pools.allInts).filter(fits)
      const edges = EDGE_INTEGERS.filter(fits)
      const lo = strict ? Math.max(min, -3) : -3
      const hi = strict ? Math.min(max, 2000) : 2000
      return fc.oneof(
        { weight: ints.length > 0 ? 3 : 0, arbitrary: ints.length > 0 ? fc.constantFrom(...ints) : fc.constant(lo) },
        { weight: 2, arbitrary: fc.integer({ min: lo, max: Math.max(lo, hi) }) },
        { weight: edges.length > 0 ? 1 : 0, arbitrary: edges.length > 0 ? fc.constantFrom(...edges) : fc.constant(lo) },
      )
    }
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(...EDGE_INTEGERS))
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    default:
      return anyJson
  }
}

function objectOf(schema: JsonSchema, pools: IdPools, strict: boolean, parent: string): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? [])
  const entries = Object.entries(schema.properties ?? {}).map(([name, s]) => {
    const value = valueFor(s, pools, strict, name, parent).map((v) => [name, v] as const)
    if (strict && required.has(name)) return value
    // Loose: required fields go missing 1 time in 15. Optional fields are sent half the time.
    return fc.option(value, { nil: undefined, freq: required.has(name) ? 15 : 2 })
  })
  const extraKey = fc.oneof(oddText, fc.constantFrom('id', 'archived', 'entity_type', '__proto__', 'constructor'))
  const extra = strict && schema.additionalProperties === false ? fc.constant(undefined) : fc.option(fc.tuple(extraKey, anyJson), { nil: undefined, freq: 12 })
  return fc.tuple(fc.tuple(...entries), extra).map(([pairs, more]) => {
    const out: Record<string, unknown> = {}
    for (const p of pairs) if (p) out[p[0]] = p[1]
    // defineProperty, so a key named __proto__ is sent as an own key.
    if (more) Object.defineProperty(out, more[0], { value: more[1], enumerable: true, configurable: true, writable: true })
    return out
  })
}

const COLOR_PATTERN = (Color as { pattern?: string }).pattern
const COLORS = ['#fff', '#000000', '#3a7bd5', '#abcd', '#12345678', '#FFF']
const BAD_COLORS = ['red', '#ggg', '#12345', 'rgb(0,0,0)', '#fff ']
const DATES = ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2026-01-01T00:00:00+14:00', '1970-01-01T00:00:00Z', '2026-06-30T23:59:60Z']
const BAD_DATES = ['2026-02-30T00:00:00Z', '2026-01-01', '2026-01-01T25:61:61Z', '0000-00-00T00:00:00Z']

function stringFor(schema: JsonSchema, pools: IdPools, strict: boolean, key: string, parent: string): fc.Arbitrary<string> {
  if (schema.format === 'uuid') {
    const known = idsFor(pools, key, parent).filter((id): id is string => typeof id === 'string')
    const uuids = known.length > 0 ? known : pools.allUuids
    return fc.oneof(
      { weight: uuids.length === 0 ? 0 : known.length > 0 && strict ? 12 : 4, arbitrary: uuids.length > 0 ? fc.constantFrom(...uuids) : fc.uuid() },
      { weight: 1, arbitrary: fc.uuid() },
      {
        weight: 1,
        arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', ...(strict ? [] : ['not-a-uuid'])),
      },
    )
  }
  if (schema.format === 'date-time') {
    const dates = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString())
    return fc.oneof({ weight: 3, arbitrary: dates }, { weight: 1, arbitrary: fc.constantFrom(...DATES, ...(strict ? [] : BAD_DATES)) })
  }
  if (schema.pattern === COLOR_PATTERN) return fc.constantFrom(...COLORS, ...(strict ? [] : BAD_COLORS))
  if (schema.pattern) {
    const matching = fc.stringMatching(new RegExp(schema.pattern)).filter((t) => schema.maxLength === undefined || [...t].length <= schema.maxLength)
    return strict ? matching : fc.oneof(matching, oddText)
  }
  if (key === 'webhook_url') return fc.oneof(fc.constant(pools.webhookUrl), fc.constant(`${pools.webhookUrl}?${'q'.repeat(40)}`), oddText)
  const max = schema.maxLength
  const min = schema.minLength ?? 0
  // Ajv counts code points, as the spec counts characters.
  const fits = (t: string) => !strict || ([...t].length >= min && (max === undefined || [...t].length <= max))
  const text = fc.oneof({ weight: 4, arbitrary: fc.string({ minLength: min, maxLength: 24 }) }, { weight: 2, arbitrary: oddText }).filter(fits)
  if (max === undefined || max > 4096) return text
  // At the limit (and, loose, one past it), with characters one or two UTF-16 units long.
  const atLimit = fc.constantFrom(...(strict ? [max] : [max, max + 1])).chain((n) => fc.constantFrom('a'.repeat(n), '😀'.repeat(n), 'é'.repeat(n)))
  return fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: atLimit })
}

/** Traversal and encoding tricks that are valid bytes in a request line and are sent unencoded. */
export const RAW_PATH_TRICKS: readonly string[] = [
  '..',
  '.',
  '../..',
  '..%2f..%2fx',
  '%2e%2e',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '..%5c..%5cx',
  '%00',
  '%2500',
  '%20',
  '%ef%bc%8f',
  '~',
  ';x=1',
  '@',
  ':',
]

/**
 * Fastify's router refuses a parameter longer than this (maxParamLength) and
 * malformed percent-encoding before any of our code runs; framework.test.ts
 * covers those answers once for every route, so the per-route fuzz stays inside.
 */
export const MAX_PARAM_TEXT = 100

/** Percent-encodes text for a path segment; lone surrogates cannot be encoded and become U+FFFD. */
export const encodeSegment = (s: string) => encodeURIComponent(wellFormed(s))

export const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')

/** One path parameter's text, already made safe for the request line. */
export function pathParamArb(param: PathParam, pools: IdPools, workspace: string, strict = false): fc.Arbitrary<string> {
  if (param.name === 'workspace' && strict) return fc.constant(workspace)
  if (param.name === 'workspace')
    return fc.oneof(
      { weight: 9, arbitrary: fc.constant(workspace) },
      { weight: 1, arbitrary: oddText.map(encodeSegment).filter((s) => s.length <= MAX_PARAM_TEXT) },
    )
  const known = param.kind ? pools.ids(param.kind).map(String) : (pools.bySegment?.[param.segment] ?? [])
  if (strict) return known.length > 0 ? fc.constantFrom(...known) : fc.oneof(fc.integer({ min: 1, max: 5000 }).map(String), fc.uuid())
  const arb = fc.oneof(
    { weight: known.length > 0 ? 6 : 0, arbitrary: known.length > 0 ? fc.constantFrom(...known) : fc.constant('1') },
    { weight: 2, arbitrary: fc.integer({ min: -10, max: 5000 }).map(String) },
    { weight: 1, arbitrary: fc.constantFrom(...EDGE_NUMBER_TEXT).map(encodeSegment) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: pools.allUuids.length > 0 ? fc.constantFrom(...pools.allUuids) : fc.uuid() },
    { weight: 1, arbitrary: pools.allInts.length > 0 ? fc.constantFrom(...pools.allInts).map(String) : fc.constant('2') },
    { weight: 2, arbitrary: oddText.map(encodeSegment) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_PATH_TRICKS) },
    { weight: 1, arbitrary: fc.constantFrom('1'.repeat(MAX_PARAM_TEXT), 'a'.repeat(MAX_PARAM_TEXT)) },
  )
  return arb.filter((s) => s.length <= MAX_PARAM_TEXT)
}

/** Node refuses a request head over 16 KiB (431) before Fastify sees it; framework.test.ts covers that. */
export const MAX_QUERY_TEXT = 8000

/** A query string (without `?`). Strict: some of the route's own parameters, well-formed. Loose: mostly so, plus junk. */
export function queryArb(schema: JsonSchema | undefined, pools: IdPools, strict = false): fc.Arbitrary<string> {
  if (strict) {
    // fields and cursor only take values the service made; the loose cases try them.
    const required = new Set(schema?.required ?? [])
    const own = Object.entries(schema?.properties ?? {})
      .filter(([name]) => name !== 'fields' && name !== 'cursor')
      .map(([name, s]) => {
        const pair = validish(s, pools, true, name, '').map((v) => [name, typeof v === 'string' ? v : JSON.stringify(v)] as [string, string])
        return required.has(name) ? pair : fc.option(pair, { nil: undefined, freq: 2 })
      })
    return fc.tuple(...own).map((pairs) => new URLSearchParams(pairs.filter((p) => p !== undefined)).toString())
  }
  const own = Object.entries(schema?.properties ?? {}).map(([name, s]) =>
    fc.option(
      queryValue(s, pools).map((v) => [name, v] as [string, string]),
      { nil: undefined, freq: 2 },
    ),
  )
  const junkPair = fc.tuple(
    fc.oneof(oddText, fc.constantFrom('__proto__', 'constructor', 'limit[]', 'a[b]', 'token', 'fields', 'cursor', 'hasOwnProperty')),
    fc.oneof(oddText, fc.constantFrom(...EDGE_NUMBER_TEXT)),
  )
  const structured = fc.tuple(fc.tuple(...own), fc.array(junkPair, { maxLength: 2 }), fc.boolean()).map(([pairs, junk, repeat]) => {
    const params = new URLSearchParams()
    for (const p of pairs) if (p) params.append(p[0], p[1])
    // Repeating a parameter makes it an array for the parser.
    if (repeat) for (const p of pairs) if (p) params.append(p[0], p[1])
    for (const [k, v] of junk) params.append(k, v)
    return params.toString()
  })
  const raw = fc.constantFrom(
    '',
    '&',
    '=',
    '==',
    '&&&',
    'a',
    'a=',
    '=a',
    'a=%',
    'a=%2',
    '%2=a',
    'a=%ff%fe',
    'a=%00',
    'a=1&a=2&a=3',
    'a[]=1&a[]=2',
    'a[b][c]=1',
    '__proto__[x]=1',
    'constructor[prototype][x]=1',
    '+=+',
    `a=${'b'.repeat(4000)}`,
  )
  const named = Object.keys(schema?.properties ?? {})
  const withOwn = named.length > 0 ? named : ['limit']
  const rawOwn = fc
    .tuple(fc.constantFrom(...withOwn), fc.constantFrom('', '%', '%ff', '-1', '1e400', '[]', 'true&x', 'a'.repeat(3000)))
    .map(([k, v]) => `${k}=${v}`)
  return fc
    .oneof({ weight: 6, arbitrary: structured }, { weight: 1, arbitrary: raw }, { weight: 1, arbitrary: rawOwn }, { weight: 1, arbitrary: fc.constant('') })
    .filter((q) => q.length <= MAX_QUERY_TEXT)
}

function queryValue(schema: JsonSchema, pools: IdPools): fc.Arbitrary<string> {
  const good = validish(schema, pools, true, '', '').map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')))
  const words = fc.constantFrom('true', 'false', '1', '0', 'yes', 'name', 'id,name', 'name,,', 'entity_type', '*', 'asc', 'desc', 'updated_at')
  return fc.oneof(
    { weight: 4, arbitrary: good },
    { weight: 1, arbitrary: words },
    { weight: 1, arbitrary: oddText },
    { weight: 1, arbitrary: fc.constantFrom(...EDGE_NUMBER_TEXT) },
  )
}

export type BodyInput =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; contentType: string; text: string }
  | { kind: 'bytes'; contentType: string; bytes: Buffer }

/** Text sent as JSON that is not JSON, or JSON of a shape no schema expects. */
export const RAW_JSON_TEXTS: readonly string[] = [
  '{',
  '{"a":',
  '}',
  'nul',
  'NaN',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '\u0000',
  '\ufeff{}',
  '"\\ud800"',
  '"\\u0000"',
  '{"\\ud800":1}',
  'null',
  '[]',
  '""',
  '0',
  'true',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"name":"x","name":"y"}',
  '1e999',
  '-0',
  '[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]',
  '['.repeat(5000) + ']'.repeat(5000),
  `{${Array.from({ length: 3000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
]

const OTHER_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'application/octet-stream',
  '',
  'application/json, text/plain',
  'garbage',
]

/**
 * A request body. Strict: JSON that passes the route's schema (or none). Loose: near-valid
 * JSON, any JSON, broken JSON, another content type, or none.
 */
export function bodyArb(schema: JsonSchema | undefined, pools: IdPools, strict = false): fc.Arbitrary<BodyInput> {
  const json = (v: fc.Arbitrary<unknown>) => v.map((value): BodyInput => ({ kind: 'json', value }))
  if (strict) return schema ? json(valueFor(schema, pools, true)) : fc.constant<BodyInput>({ kind: 'none' })
  return fc.oneof(
    { weight: schema ? 8 : 0, arbitrary: json(nearValid(schema, pools)) },
    { weight: 2, arbitrary: json(anyJson) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_JSON_TEXTS).map((text): BodyInput => ({ kind: 'text', contentType: 'application/json', text })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...OTHER_TYPES), fc.oneof(oddText, fc.constant('a=1&b=2'), fc.constant('{"name":"x"}')))
        .map(([contentType, text]): BodyInput => ({ kind: 'text', contentType, text })),
    },
    { weight: 1, arbitrary: fc.constant<BodyInput>({ kind: 'none' }) },
  )
}

interface FormPart {
  field: string
  filename?: string
  contentType?: string
  data: Uint8Array
}

/** multipart/form-data bodies for uploads: right and wrong fields, odd file names and types, broken framing. */
export function multipartArb(): fc.Arbitrary<BodyInput> {
  const filename = fc.oneof(
    fc.constantFrom(
      'notes.txt',
      'image.png',
      '../../escape.txt',
      '..\\..\\escape.txt',
      '/etc/passwd',
      'C:\\Windows\\x.txt',
      'a\u0000b.txt',
      '',
      '.',
      '..',
      'a"b.txt',
      'a;b=c.txt',
      '%2e%2e%2fx',
      '\u202etxt.exe',
    ),
    oddText,
  )
  const part: fc.Arbitrary<FormPart> = fc.record(
    {
      field: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('file0', 'file1', 'file2', 'file3', 'story_id') }, { weight: 1, arbitrary: oddText }),
      filename,
      contentType: fc.constantFrom('text/plain', 'image/png', 'text/html', 'image/svg+xml', 'application/octet-stream', 'x', 'text/plain; charset="a\\"b"', ''),
      data: fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.constantFrom(new TextEncoder().encode('42'), new TextEncoder().encode('<script>alert(1)</script>'))),
    },
    { requiredKeys: ['field', 'data'] },
  )
  const boundary = 'fuzzBoundary7MA4YWxkTrZu0gW'
  return fc
    .tuple(fc.array(part, { maxLength: 5 }), fc.constantFrom('ok', 'ok', 'ok', 'truncated', 'no-boundary', 'wrong-boundary', 'no-final'))
    .map(([parts, framing]): BodyInput => {
      const chunks: Buffer[] = []
      for (const p of parts) {
        const disposition = `form-data; name="${safeHeader(p.field)}"${p.filename !== undefined ? `; filename="${safeHeader(p.filename)}"` : ''}`
        const type = p.contentType !== undefined ? `\r\nContent-Type: ${p.contentType}` : ''
        chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), Buffer.from(p.data), Buffer.from('\r\n'))
      }
      if (framing !== 'no-final') chunks.push(Buffer.from(`--${boundary}--\r\n`))
      let bytes = Buffer.concat(chunks)
      if (framing === 'truncated') bytes = bytes.subarray(0, Math.floor(bytes.length / 2))
      const contentType =
        framing === 'no-boundary'
          ? 'multipart/form-data'
          : framing === 'wrong-boundary'
            ? 'multipart/form-data; boundary=other'
            : `multipart/form-data; boundary=${boundary}`
      return { kind: 'bytes', contentType, bytes }
    })
}

/** Header text cannot hold CR or LF; the rest (quotes, NUL, unicode) is left for the parser to face. */
function safeHeader(s: string): string {
  return s.replace(/[\r\n]/g, ' ')
}
