// What the fuzz and security tests share: a started service whose every route is
// known with its JSON schemas, a raw HTTP client that sends paths exactly as
// given, and the rule every answer must keep (never a 5xx; a 4xx carries the
// one error body {message, tag, errors?}).
import { Pool } from 'undici'
import type { Feature } from '../../src-server/context.ts'
import { FEATURES } from '../../src-server/context.ts'
import type { RunningService, ServiceOptions } from '../../src-server/index.ts'
import type { Kind } from '../../src-server/kinds.ts'
import { RESOURCES } from '../../src-server/resources/index.ts'
import { testService } from '../service.ts'

/** The subset of JSON Schema the service's TypeBox schemas use. */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean | JsonSchema
  items?: JsonSchema
  minItems?: number
  maxItems?: number
  anyOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  minLength?: number
  maxLength?: number
  pattern?: string
  format?: string
  minimum?: number
  maximum?: number
}

export interface RouteInfo {
  method: string
  /** Fastify's pattern, e.g. /api/v4/:workspace/epics/:id. */
  url: string
  schema: { params?: JsonSchema; querystring?: JsonSchema; body?: JsonSchema }
  config: { admin?: boolean; noObserver?: boolean; observerWrites?: boolean }
}

export const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Starts a service and records every route with its schemas. Fastify exposes a
 * route's schema only to onRoute hooks, so a probe resource is put first in the
 * registry for the start and taken out again: it adds the hook before any other
 * resource registers a route (the v3 and v4 plugins load during listen).
 */
export async function startRecordedService(options: ServiceOptions = {}): Promise<{ service: RunningService; routes: RouteInfo[] }> {
  const seen = new Map<string, RouteInfo>()
  const record = (app: { addHook: (name: 'onRoute', hook: (route: RouteSeen) => void) => unknown }) =>
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue
        const schema = JSON.parse(JSON.stringify(route.schema ?? {})) as RouteInfo['schema']
        seen.set(`${method} ${route.url}`, { method, url: route.url, schema, config: { ...(route.config ?? {}) } })
      }
    })
  const probe = { v3: record, v4: record, root: record } as unknown as (typeof RESOURCES)[number]
  RESOURCES.unshift(probe)
  let service: RunningService
  try {
    // Deliveries to fuzzed webhook URLs get one attempt and no retries.
    service = await testService({ seed: 'demo', webhookRetry: { attempts: 0, baseDelayMs: 10 }, ...options })
  } finally {
    RESOURCES.splice(RESOURCES.indexOf(probe), 1)
  }
  const routes = service.app.outpostRoutes
    .filter((r) => r.url.startsWith('/api/') || r.url.startsWith('/media/'))
    .map((r) => seen.get(`${r.method} ${r.url}`) ?? { method: r.method, url: r.url, schema: {}, config: {} })
  return { service, routes }
}

interface RouteSeen {
  method: string | string[]
  url: string
  schema?: unknown
  config?: RouteInfo['config']
}

export interface RawRequest {
  method: string
  /** Sent as is: no normalisation of `..`, no re-encoding. */
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
  contentType?: string
}

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The parsed body when it was JSON. */
  json?: unknown
}

/** An HTTP client that sends exactly the bytes it is given, for inputs no well-behaved client would build. */
export class RawClient {
  private readonly pool: Pool

  constructor(
    baseUrl: string,
    private readonly auth: Record<string, string> = {},
  ) {
    this.pool = new Pool(baseUrl, { connections: 4, headersTimeout: 15_000, bodyTimeout: 15_000 })
  }

  async send(req: RawRequest): Promise<RawAnswer> {
    const headers: Record<string, string> = { ...this.auth, ...req.headers }
    if (req.contentType !== undefined) headers['content-type'] = req.contentType
    const res = await this.pool.request({ method: req.method as 'GET', path: req.path, headers, body: req.body })
    const type = String(res.headers['content-type'] ?? '')
    if (type.startsWith('text/event-stream')) {
      // A doc's event stream stays open: its status and headers are the answer.
      res.body.destroy()
      return { status: res.statusCode, headers: res.headers, text: '' }
    }
    const text = await res.body.text()
    let json: unknown
    if (type.includes('json') && text) {
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
    }
    return { status: res.statusCode, headers: res.headers, text, json }
  }

  close(): Promise<void> {
    return this.pool.close()
  }
}

/** Why an answer breaks the rules, or undefined when it keeps them. */
export function answerProblem(answer: RawAnswer): string | undefined {
  const { status } = answer
  if (status >= 500) return `answered ${status}`
  if (status < 200 || (status >= 300 && status < 400)) return `answered ${status}`
  if (status < 400) return undefined
  const type = String(answer.headers['content-type'] ?? '')
  if (!type.includes('application/json')) return `answered ${status} with content-type "${type}", not the JSON error body`
  return errorBodyProblem(answer.json, status)
}

export function errorBodyProblem(body: unknown, status: number): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `answered ${status} without an error object`
  const b = body as Record<string, unknown>
  const extra = Object.keys(b).filter((k) => k !== 'message' && k !== 'tag' && k !== 'errors')
  if (extra.length > 0) return `answered ${status} with an error body carrying ${extra.join(', ')}`
  if (typeof b.message !== 'string' || b.message === '') return `answered ${status} without a message`
  if (typeof b.tag !== 'string' || b.tag === '') return `answered ${status} without a tag`
  // The official v4 client's error summariser keeps a tag only when it is such an identifier.
  if (!/^[a-z][a-z0-9_]{0,79}$/.test(b.tag)) return `answered ${status} with tag "${b.tag}", not a snake_case identifier`
  if (b.errors !== undefined) {
    if (b.errors === null || typeof b.errors !== 'object' || Array.isArray(b.errors)) return `answered ${status} with errors that are not an object`
    if (Object.values(b.errors).some((v) => typeof v !== 'string')) return `answered ${status} with an errors value that is not a string`
  }
  return undefined
}

/** One line describing a request and its answer, for failure messages. */
export function describeExchange(req: RawRequest, answer?: RawAnswer): string {
  const body = req.body === undefined ? '' : ` body(${req.contentType ?? 'none'}) ${truncate(String(req.body), 300)}`
  const got = answer ? ` -> ${answer.status} ${truncate(answer.text, 300)}` : ''
  return `${req.method} ${truncate(req.path, 300)}${body}${got}`
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s
}

/** The service still answers an authenticated request: nothing crashed or hung. */
export async function healthy(service: RunningService): Promise<boolean> {
  const client = new RawClient(service.baseUrl, { authorization: `Bearer ${service.tokens.admin}` })
  try {
    const answer = await client.send({ method: 'GET', path: '/api/v4/whoami' })
    return answer.status === 200
  } catch {
    return false
  } finally {
    await client.close()
  }
}

/** Feature switches may be turned off by fuzzed routes; each batch starts with all on. */
export function enableAllFeatures(service: RunningService): void {
  for (const f of FEATURES as readonly Feature[]) service.setFeature(f, true)
}

/** Which stored kind a path parameter names, from the path segment before it. */
const KIND_OF_SEGMENT: Record<string, Kind> = {
  categories: 'category',
  objectives: 'objective',
  milestones: 'objective',
  epics: 'epic',
  states: 'epic_state',
  comments: 'epic_comment',
  documents: 'doc',
  collections: 'collection',
  files: 'file',
  thumbnails: 'file',
  'linked-files': 'linked_file',
  labels: 'label',
  'custom-fields': 'custom_field',
  'entity-templates': 'entity_template',
  groups: 'group',
  members: 'member',
  branches: 'branch',
  webhook: 'webhook',
}

export interface PathParam {
  name: string
  /** The path segment before it (`epics` in /epics/:id). */
  segment: string
  /** The stored kind whose ids fit here, when known. */
  kind?: Kind
}

/** The parameters of a route pattern, each with the kind of id it takes. */
export function pathParams(url: string): PathParam[] {
  const parts = url.split('/')
  const out: PathParam[] = []
  parts.forEach((p, i) => {
    if (!p.startsWith(':')) return
    const name = p.slice(1)
    const segment = parts[i - 1]
    if (name === 'workspace') return out.push({ name, segment })
    const named: Record<string, Kind> = { commentId: 'epic_comment', epicId: 'epic', collectionId: 'collection' }
    out.push({ name, segment, kind: named[name] ?? KIND_OF_SEGMENT[segment] })
  })
  return out
}

/** Ids currently stored, by kind (read from the database, not through the API). */
export function storedIds(service: RunningService, kind: Kind): (string | number)[] {
  return service.ctx
    .col(kind)
    .all()
    .map((r) => r.id)
}
