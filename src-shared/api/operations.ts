// The named operations of the API contract that Outpost uses. The renderer asks
// the gateway for one of these by name; only the gateway turns a name into a URL,
// a method and an auth header. Which generation each one uses follows the spec
// (part 2 §4): v4 where it has the operation, v3 where only v3 does.

export type ApiGeneration = 'v3' | 'v4'
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

export interface Operation {
  api: ApiGeneration
  method: HttpMethod
  /**
   * Relative to /api/v3, or to /api/v4/{workspace-slug} for v4 (to /api/v4
   * when `root` is set). `{name}` marks a path parameter.
   */
  path: string
  /** Outside the workspace slug (v4 whoami). */
  root?: boolean
  /** Sending it twice leaves the service as sending it once: safe to retry blindly. */
  idempotent: boolean
  kind: 'read' | 'write'
  /** multipart/form-data (file upload) instead of JSON. */
  multipart?: boolean
}

/** An operation whose path template keeps its literal type (for typed path parameters). */
type Defined<P extends string> = Operation & { path: P }

const read = <P extends string>(api: ApiGeneration, path: P, extra: Partial<Operation> = {}): Defined<P> => ({
  api,
  method: 'GET',
  idempotent: true,
  kind: 'read',
  ...extra,
  path,
})
// Creates are not idempotent: an answer lost on the way back must not become a second entity.
const create = <P extends string>(api: ApiGeneration, path: P, extra: Partial<Operation> = {}): Defined<P> => ({
  api,
  method: 'POST',
  idempotent: false,
  kind: 'write',
  ...extra,
  path,
})
// Updates set fields to given values and deletes remove one thing: repeating either changes nothing more.
const update = <P extends string>(api: ApiGeneration, method: 'PUT' | 'PATCH', path: P): Defined<P> => ({ api, method, path, idempotent: true, kind: 'write' })
const remove = <P extends string>(api: ApiGeneration, path: P): Defined<P> => ({ api, method: 'DELETE', path, idempotent: true, kind: 'write' })

export const OPERATIONS = {
  whoami: read('v4', '/whoami', { root: true }),
  member: read('v3', '/member'),
  'members.list': read('v3', '/members'),
  'members.get': read('v3', '/members/{id}'),
  'groups.list': read('v3', '/groups'),
  'groups.get': read('v3', '/groups/{id}'),

  'categories.list': read('v4', '/categories'),
  /** v3 GET /categories: every category (archived too) in one request, where v4 pages them. */
  'categories.v3List': read('v3', '/categories'),
  'categories.get': read('v4', '/categories/{id}'),
  'categories.create': create('v4', '/categories'),
  'categories.update': update('v4', 'PATCH', '/categories/{id}'),
  'categories.delete': remove('v4', '/categories/{id}'),

  'objectives.list': read('v3', '/objectives'),
  'objectives.get': read('v3', '/objectives/{id}'),
  'objectives.create': create('v3', '/objectives'),
  'objectives.update': update('v3', 'PUT', '/objectives/{id}'),
  'objectives.delete': remove('v3', '/objectives/{id}'),

  'labels.list': read('v3', '/labels'),
  /** v3 POST /labels: not shown in the spec; the real v3 (and the official client) has it. */
  'labels.create': create('v3', '/labels'),
  'customFields.list': read('v3', '/custom-fields'),

  'epicWorkflow.get': read('v4', '/epic-workflow'),
  'epicWorkflow.states': read('v4', '/epic-workflow/states'),

  'epics.list': read('v4', '/epics'),
  'epics.get': read('v4', '/epics/{id}'),
  'epics.search': read('v4', '/epics/search'),
  'epics.create': create('v4', '/epics'),
  'epics.update': update('v4', 'PATCH', '/epics/{id}'),
  'epics.delete': remove('v4', '/epics/{id}'),
  'epics.bulkCreate': create('v4', '/epics/bulk'),
  'epics.bulkUpdate': update('v4', 'PATCH', '/epics/bulk'),
  'epics.bulkDelete': remove('v4', '/epics/bulk'),
  /** v3 GET /epics: one unpaginated list; with external_id it finds a create whose answer was lost. */
  'epics.v3List': read('v3', '/epics'),
  /** v3 GET /epics/paginated: the same list by page number (`page`, `page_size` up to 250), to resume one cut on its way. */
  'epics.v3Page': read('v3', '/epics/paginated'),
  /** v3 create and update take `labels` (by name), which the v4 epic bodies lack. */
  'epics.v3Create': create('v3', '/epics'),
  'epics.v3Update': update('v3', 'PUT', '/epics/{id}'),
  /** v3 GET /epics/{id}: the epic with its threaded comments (authors, replies) and current health. */
  'epics.v3Get': read('v3', '/epics/{id}'),
  'epicStories.list': read('v3', '/epics/{epicId}/stories'),

  'epicComments.list': read('v3', '/epics/{epicId}/comments'),
  'epicComments.get': read('v3', '/epics/{epicId}/comments/{commentId}'),
  'epicComments.create': create('v3', '/epics/{epicId}/comments'),
  'epicComments.reply': create('v3', '/epics/{epicId}/comments/{commentId}'),
  'epicComments.update': update('v3', 'PUT', '/epics/{epicId}/comments/{commentId}'),
  'epicComments.delete': remove('v3', '/epics/{epicId}/comments/{commentId}'),

  'epicHealth.get': read('v3', '/epics/{epicId}/health'),
  'epicHealth.create': create('v3', '/epics/{epicId}/health'),
  'epicHealth.history': read('v3', '/epics/{epicId}/health-history'),

  'documents.list': read('v4', '/documents'),
  /** v3 GET /documents: every doc (archived too) as {id, title, app_url}, in one request: the doc id sweep. */
  'documents.v3List': read('v3', '/documents'),
  /** v4 GET /documents/{id}: the doc with its markdown (the published getDoc takes no content_format). */
  'documents.get': read('v4', '/documents/{id}'),
  /** v3 GET /documents/{id}: the one that answers the HTML (content_format=html). */
  'documents.v3Get': read('v3', '/documents/{id}'),
  'documents.search': read('v4', '/documents/search'),
  'documents.create': create('v4', '/documents'),
  'documents.bulkCreate': create('v4', '/documents/bulk'),
  // The spec has no v4 update or delete of docs; v3 has both.
  'documents.update': update('v3', 'PUT', '/documents/{id}'),
  'documents.delete': remove('v3', '/documents/{id}'),

  'documentEpics.list': read('v3', '/documents/{docId}/epics'),
  'documentEpics.link': update('v3', 'PUT', '/documents/{docId}/epics/{epicId}'),
  'documentEpics.unlink': remove('v3', '/documents/{docId}/epics/{epicId}'),
  'epicDocuments.list': read('v3', '/epics/{epicId}/documents'),

  'files.list': read('v3', '/files'),
  'files.get': read('v3', '/files/{id}'),
  'files.upload': create('v3', '/files', { multipart: true }),
  'files.update': update('v3', 'PUT', '/files/{id}'),
  'files.delete': remove('v3', '/files/{id}'),

  'linkedFiles.list': read('v3', '/linked-files'),
  'linkedFiles.get': read('v3', '/linked-files/{id}'),
  'linkedFiles.create': create('v3', '/linked-files'),
  'linkedFiles.update': update('v3', 'PUT', '/linked-files/{id}'),
  'linkedFiles.delete': remove('v3', '/linked-files/{id}'),
} as const satisfies Record<string, Operation>

export type OperationName = keyof typeof OPERATIONS

/** How Outpost names itself to the service (User-Agent), so a service's logs tell its requests apart. */
export const USER_AGENT = 'Outpost'

/**
 * The headers that carry a token. v4 takes a v4 token (svc_...) as a bearer token. v3 takes any token in
 * `Shortcut-Token`, the header the service's published API description documents (and its official client
 * sends); `Service-Token`, the name the spec gives, goes beside it, so a service that honours either works.
 */
export function authHeaders(api: ApiGeneration, token: string, tokenKind: ApiGeneration): Record<string, string> {
  if (api === 'v4' && tokenKind === 'v4') return { authorization: `Bearer ${token}` }
  return { 'shortcut-token': token, 'service-token': token }
}

/** The `{name}` parameters of a path template, as a union of their names. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParamNames<Rest> : never

/** The path parameters an operation needs (a union of shapes when N is a union). */
export type OperationParams<N extends OperationName> = N extends OperationName
  ? { [K in PathParamNames<(typeof OPERATIONS)[N]['path']>]: string | number }
  : never

export type QueryValue = string | number | boolean | null | undefined
/** Query parameters; a list repeats the parameter, and null or undefined leaves it out. */
export type OperationQuery = Record<string, QueryValue | readonly QueryValue[]>

/**
 * A request of one named operation: what the renderer asks for, what crosses IPC (with the operation's
 * name) and what the gateway sends. `params` is required exactly when the operation's path has parameters.
 */
export type OperationRequest<N extends OperationName = OperationName> = N extends OperationName
  ? {
      query?: OperationQuery
      /** JSON body. */
      body?: unknown
      /** Default: user-write for writes, user-read for reads; background sync says `sync`. */
      lane?: Lane
      /**
       * Of a background request: how many more its run means to make after it (a first sync's walk). The
       * gateway then leaves the user as much of each window as the run can spare (gateway/pacer.ts).
       */
      ahead?: number
      /**
       * Keep only these fields of the answer (of each entity, when it is a list). The v3 lists have no
       * `fields` parameter of their own: the main side drops the rest before the answer goes to the window.
       */
      fields?: readonly string[]
    } & ([keyof OperationParams<N>] extends [never] ? { params?: Record<string, never> } : { params: OperationParams<N> })
  : never

/** The arguments after an operation's name: its request `R`, which may be left out when the path has no parameters. */
export type OperationArgs<N extends OperationName, R = OperationRequest<N>> = [keyof OperationParams<N>] extends [never] ? [request?: R] : [request: R]

export function isOperationName(name: unknown): name is OperationName {
  return typeof name === 'string' && Object.hasOwn(OPERATIONS, name)
}

/** Fills a path template; every value is URL-encoded, and a missing one is a programming error. */
export function fillPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined || value === null || value === '') throw new TypeError(`Path parameter "${name}" is missing for ${template}`)
    return encodeURIComponent(String(value))
  })
}

/**
 * Who goes first when requests wait for the rate limit: what the user just did,
 * then what the user is looking at, then background sync.
 */
/**
 * Who a request is for, most urgent first: the user's writes and reads, the sync's fetches, and file contents
 * downloaded ahead of use. The last two are the background, which leaves room for the user (gateway/pacer.ts).
 */
export const LANES = ['user-write', 'user-read', 'sync', 'prefetch'] as const
export type Lane = (typeof LANES)[number]
export const BACKGROUND_LANES = ['sync', 'prefetch'] as const satisfies readonly Lane[]

export type OperationFailureKind = 'network' | 'timeout' | 'http' | 'auth' | 'readonly' | 'outcome-unknown' | 'insecure' | 'bad-url' | 'too-large'

/**
 * How a failed operation is reported to the renderer (plain data, so it crosses IPC).
 * - network: the service could not be reached (nothing was applied).
 * - timeout: no answer in time for a read (retries exhausted).
 * - http: the service answered with an error (`status`, `tag`, `message`, `errors` per field).
 * - auth: 401, the token is missing, invalid or disabled.
 * - readonly: 403 read_only_token, a write with an svc_ro_ token.
 * - outcome-unknown: a non-idempotent write may or may not have been applied
 *   (the answer was lost); look for it (external_id) before sending it again.
 * - insecure: plain HTTP to a remote host, a bad certificate, or a URL of another origin.
 * - bad-url: the base URL cannot be used at all.
 * - too-large: the service answered, but its answer was larger than the gateway reads once decoded (a
 *   decompression bomb, or a broken proxy); not asked again. A write it answered so was applied.
 */
export interface OperationFailure {
  kind: OperationFailureKind
  message: string
  status?: number
  tag?: string
  /** Per-field reasons from the service's error body. */
  errors?: Record<string, string>
  /** Seconds the service asked us to wait (429). */
  retryAfter?: number
  /** A list answer the link cut on its way: the elements that came whole (with only the `fields` asked for). */
  received?: unknown[]
}
