// Test helpers: a started service and a small HTTP client over undici.
// Used by the service's tests (and later by the app's), never by product code.
import { request } from 'undici'
import { startService, type RunningService, type ServiceOptions } from '../src-server/index.ts'

export interface Answer<T = any> {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The JSON answer; for a v4 single entity, the entity inside its `{entity}` wrapper. */
  body: T
  /** The answer exactly as sent. */
  raw: any
}

export interface CallOptions {
  body?: unknown
  query?: Record<string, string | number | boolean | undefined>
  headers?: Record<string, string>
  /** Raw body bytes (multipart); `body` is JSON-encoded otherwise. */
  raw?: { data: Buffer | string; contentType: string }
}

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly auth: Record<string, string>,
    readonly prefix: string,
    /** v4: check every successful JSON answer is a list or an `{entity}` wrapper, and unwrap the latter. */
    readonly v4Shape = false,
  ) {}

  async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
    const url = new URL(`${this.prefix}${path}`, this.baseUrl)
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    const headers: Record<string, string> = { ...this.auth, ...options.headers }
    let body: Buffer | string | undefined
    if (options.raw) {
      headers['content-type'] = options.raw.contentType
      body = options.raw.data
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(options.body)
    }
    const res = await request(url, { method: method as 'GET', headers, body })
    const text = await res.body.text()
    const type = String(res.headers['content-type'] ?? '')
    const raw = type.includes('json') && text ? JSON.parse(text) : text
    let answer = raw
    if (this.v4Shape && res.statusCode < 300 && raw && typeof raw === 'object' && !Array.isArray(raw) && !path.startsWith('/schemas')) {
      if ('entity' in raw) answer = raw.entity
      else if (!('entities' in raw))
        throw new Error(`${method} ${path}: a v4 answer must be a list or an {entity} wrapper, got keys ${Object.keys(raw).join(', ')}`)
      if (typeof raw.$schema !== 'string') throw new Error(`${method} ${path}: a v4 answer must carry $schema`)
    }
    return { status: res.statusCode, headers: res.headers, body: answer as T, raw }
  }

  get<T = any>(path: string, options?: CallOptions) {
    return this.call<T>('GET', path, options)
  }
  post<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('POST', path, { ...options, body })
  }
  put<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('PUT', path, { ...options, body })
  }
  patch<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('PATCH', path, { ...options, body })
  }
  delete<T = any>(path: string, body?: unknown, options?: CallOptions) {
    return this.call<T>('DELETE', path, { ...options, body })
  }
}

/** Where a client finds the service, and its tokens. */
type Served = Pick<RunningService, 'baseUrl' | 'workspace' | 'tokens'>

/** A v4 client for the workspace (paths relative to /api/v4/{slug}). */
export function v4(service: Served, token: string = service.tokens.admin): Client {
  return new Client(service.baseUrl, { authorization: `Bearer ${token}` }, `/api/v4/${service.workspace}`, true)
}

/** A v4 client for the routes outside the workspace (whoami, schemas). */
export function v4Root(service: Served, token: string = service.tokens.admin): Client {
  return new Client(service.baseUrl, { authorization: `Bearer ${token}` }, '/api/v4', true)
}

/** A v3 client sending the token as existing clients do (Shortcut-Token). */
export function v3(service: Served, token: string = service.tokens.v3): Client {
  return new Client(service.baseUrl, { 'shortcut-token': token }, '/api/v3')
}

/** A client with no credentials at all. */
export function anonymous(service: Served, prefix = ''): Client {
  return new Client(service.baseUrl, {}, prefix)
}

/** A service with the rate limit off unless a test turns it on. */
export function testService(options: ServiceOptions = {}): Promise<RunningService> {
  return startService({ rateLimit: 'off', ...options })
}

/** Walks every page of a v4 list. */
export async function walk<T = any>(client: Client, path: string, query: CallOptions['query'] = {}): Promise<T[]> {
  const out: T[] = []
  let page = await client.get(path, { query })
  for (;;) {
    if (page.status !== 200) throw new Error(`walk ${path}: ${page.status} ${JSON.stringify(page.body)}`)
    out.push(...page.body.entities)
    if (!page.body.next_page_url) return out
    const next = new URL(page.body.next_page_url)
    page = await client.get(path, { query: Object.fromEntries(next.searchParams) })
  }
}

/** The epics (v3, with descriptions) that carry an external_id: no list of the API filters by it. */
export async function epicsWithExternalId(service: RunningService, externalId: string): Promise<any[]> {
  const all = (await v3(service).get('/epics', { query: { includes_description: true } })).body as { external_id: string | null }[]
  return all.filter((e) => e.external_id === externalId)
}
