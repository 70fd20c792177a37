// The Fastify application: validation, auth, rate limit, faults, the one
// error body, and the resource plugins under /api/v3 and /api/v4/{slug}.
import Ajv, { type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import sjson from 'secure-json-parse'
import compress from '@fastify/compress'
import Fastify, { type FastifyReply, type FastifyError, type RouteOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { authenticate, checkAdmin, checkNotObserver, checkWrite, type Auth, Tokens } from './auth.ts'
import type { ServiceContext } from './context.ts'
import { Color } from '../src-shared/api/common.ts'
import { MENTION_NAME_PATTERN } from '../src-shared/api/v3/groups.ts'
import { ApiError } from './errors.ts'
import type { Faults } from './faults.ts'
import { Pager, origin } from './pages.ts'
import type { RateLimiter } from './ratelimit.ts'
import { Refs } from './refs.ts'
import { RESOURCES } from './resources/index.ts'
import { collectSchemas, schemaName, schemaRoutes } from './schemas.ts'

import type { ApiApp, Deps } from './resource.ts'

export type { ApiApp, Deps, Resource } from './resource.ts'

export interface AppOptions {
  ctx: ServiceContext
  limiter: RateLimiter
  faults: () => Faults
  random: () => number
  bodyLimit: number
  maxFileBytes: number
  webhookRetry: Deps['webhookRetry']
  /** Called once per answered request (the CLI prints it). */
  onLog?: (line: string) => void
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
/** Answers longer than this (characters) are sent as a Buffer. */
const LARGE_ANSWER = 16 * 1024
/**
 * Answers of at least this many bytes are compressed when the request's Accept-Encoding allows it (brotli
 * preferred, then gzip); smaller ones, and every answer to a request that does not ask, go as they are.
 */
export const COMPRESS_THRESHOLD = 1024

export function buildApp(options: AppOptions): ApiApp {
  const { ctx, limiter } = options
  const app = Fastify({
    bodyLimit: options.bodyLimit,
    logger: false,
    forceCloseConnections: true,
    // File urls carry the file's name; the router's default of 100 characters would refuse long ones.
    routerOptions: { maxParamLength: 2048 },
    // Fastify's own refusals (malformed percent-encoding, over-long parameters) get the one error body too.
    frameworkErrors: (error, _req, reply) => sendError(reply, toApiError(error)),
    // A request Node cannot parse at all (a head over its size limit) gets a plain answer with the body.
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return socket.destroy()
      const tooLarge = (error as { code?: string }).code === 'HPE_HEADER_OVERFLOW'
      const body = JSON.stringify(
        tooLarge
          ? { message: 'The request head is larger than this service accepts.', tag: 'request_header_too_large' }
          : { message: 'The request is not valid HTTP.', tag: 'bad_request' },
      )
      socket.end(
        `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      )
    },
  }).withTypeProvider<TypeBoxTypeProvider>()
  const tokens = new Tokens(ctx)
  const pager = new Pager(ctx)
  const deps: Deps = { ctx, tokens, pager, refs: (req) => new Refs(ctx, origin(req)), maxFileBytes: options.maxFileBytes, webhookRetry: options.webhookRetry }

  installValidation(app)
  installJsonParser(app)
  app.addHook('onRoute', closeQuery)
  const schemas = collectSchemas(app)
  const routes: { method: string; url: string }[] = []
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url })
  })
  app.decorate('outpostRoutes', routes)

  app.addHook('onRequest', async (req, reply) => {
    const api = apiOf(req.url)
    if (!api) return
    req.auth = authenticate(ctx, tokens, req, api)
    const waitMs = limiter.take(req.auth.token.id)
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000))
      throw new ApiError(429, 'rate_limited', `Too many requests: this token may make ${describeLimit(limiter)}. Retry after ${seconds} s.`, undefined, {
        'retry-after': String(seconds),
      })
    }
    const path = req.url.split('?')[0]
    while (options.faults().heldPaths?.includes(path)) await new Promise((r) => setTimeout(r, 10))
    const faults = options.faults()
    if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs))
    if (faults.dropRate > 0 && options.random() < faults.dropRate) {
      reply.hijack()
      req.raw.socket.destroy()
      return
    }
    if (faults.failRate > 0 && options.random() < faults.failRate) {
      throw new ApiError(503, 'service_unavailable', 'Injected failure: the service is unavailable. Try again.')
    }
  })

  app.addHook('preHandler', async (req) => {
    if (!req.auth) return
    const config = req.routeOptions.config
    if (config.noObserver) checkNotObserver(req.auth)
    if (config.admin) checkAdmin(req.auth)
    if (WRITE_METHODS.has(req.method)) checkWrite(req.auth, config.observerWrites === true)
  })

  // A large answer goes out as bytes: Node writes a string body by first joining it to the header
  // text (a copy of the whole answer) and Fastify measures its length in another pass; a Buffer
  // is encoded once and written as it is. (The journal reads the bytes back only when it runs.)
  app.addHook('onSend', async (_req, _reply, payload) => (typeof payload === 'string' && payload.length > LARGE_ANSWER ? Buffer.from(payload) : payload))

  app.addHook('onSend', async (req, reply, payload) => {
    if (WRITE_METHODS.has(req.method) && reply.statusCode < 400 && req.auth) {
      const rate = options.faults().dropAfterCommitRate
      // The write has committed; the client never hears so.
      if (rate > 0 && options.random() < rate) req.raw.socket.destroy()
    }
    return payload
  })

  if (options.onLog) {
    const log = options.onLog
    app.addHook('onResponse', async (req, reply) => {
      log(`${req.method} ${redact(req.url)} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`)
    })
  }

  app.setErrorHandler((error: FastifyError | ApiError, req, reply) =>
    sendError(reply, droppedMidAnswer(error, req.raw.socket) ? CLIENT_GONE : toApiError(error)),
  )
  app.setNotFoundHandler((req, reply) => sendError(reply, ApiError.notFound(`No such operation: ${req.method} ${redact(req.url.split('?')[0])}.`)))

  // Registered before the resource plugins so that their routes get its onSend hook; that hook is the
  // route's own, so it runs after the app's (the journal reads the answer before it is compressed).
  app.register(compress, { threshold: COMPRESS_THRESHOLD, encodings: ['br', 'gzip'], globalDecompression: false })

  app.get('/', async () => ({ service: 'outpost-local', workspace: ctx.workspace.slug, api: ['/api/v3', `/api/v4/${ctx.workspace.slug}`] }))

  app.register(
    async (v3) => {
      for (const r of RESOURCES) r.v3?.(v3 as ApiApp, deps)
    },
    { prefix: '/api/v3' },
  )
  app.register(
    async (v4) => {
      v4.addHook('onRequest', async (req) => {
        const slug = (req.params as { workspace?: string }).workspace
        if (slug !== undefined && slug !== ctx.workspace.slug) throw ApiError.notFound(`No workspace "${slug}" for this token.`)
      })
      // Every v4 entity and list answer names the JSON schema of its route, as the real service's do.
      v4.addHook('preSerialization', async (req, _reply, payload: unknown) => {
        if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || '$schema' in payload) return payload
        if (!('entity' in payload) && !('entities' in payload)) return payload
        return { $schema: `${origin(req)}/api/v4/schemas/${schemaName(req.method, req.routeOptions.url ?? '')}`, ...payload }
      })
      for (const r of RESOURCES) r.v4?.(v4 as ApiApp, deps)
    },
    { prefix: '/api/v4' },
  )
  for (const r of RESOURCES) r.root?.(app, deps)
  schemaRoutes(app, schemas)
  return app
}

/**
 * Query parameters are held to the route's schema as bodies are: one the operation does not take is refused,
 * named (400), as the real service's published operations are closed; v3 also takes the deprecated `token`.
 */
function closeQuery(route: RouteOptions): void {
  const api = apiOf(route.url)
  if (api !== 'v3' && api !== 'v4') return
  const schema = (route.schema ??= {})
  const query = (schema.querystring ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> }
  const token = api === 'v3' ? { token: { type: 'string' } } : {}
  schema.querystring = { ...query, properties: { ...query.properties, ...token }, additionalProperties: false }
}

function apiOf(url: string): Auth['api'] | undefined {
  if (url.startsWith('/api/v3/')) return 'v3'
  if (url.startsWith('/api/v4/')) return 'v4'
  if (url.startsWith('/media/')) return 'media'
  return undefined
}

function describeLimit(limiter: RateLimiter): string {
  const l = limiter.limit
  if (l === 'off') return 'unlimited requests'
  return l.windowMs === 60_000 ? `${l.max} requests a minute` : `${l.max} requests every ${l.windowMs / 1000} s`
}

/** The deprecated v3 `token` query parameter must never reach a log. */
export function redact(url: string): string {
  return url.replace(/([?&]token=)[^&]*/g, '$1[redacted]')
}

function sendError(reply: FastifyReply, error: ApiError) {
  if (error.headers) reply.headers(error.headers)
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.body)
}

function fieldPath(e: ErrorObject): string {
  const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.')
  const extra =
    (e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ?? (e.params as { additionalProperty?: string }).additionalProperty
  return [base, extra].filter((s) => s).join('.') || '(body)'
}

function reason(e: ErrorObject): string {
  if (e.keyword === 'additionalProperty' || e.keyword === 'additionalProperties') return 'is not an accepted field'
  if (e.keyword === 'required') return 'is required'
  if (e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === (Color as { pattern?: string }).pattern)
    return 'must be a CSS hex colour such as #3a7bd5'
  if (e.keyword === 'pattern' && (e.params as { pattern: string }).pattern === MENTION_NAME_PATTERN)
    return 'may hold only lowercase letters, digits, "-", "_" and "."'
  if (e.keyword === 'maxLength') return `must be at most ${(e.params as { limit: number }).limit} characters`
  return e.message ?? 'is invalid'
}

/**
 * The connection went while its answer was on its way (the client dropped it, or the fault injection did
 * after a write): a stream of the answer, such as its compression, then ends early. Nothing failed in the
 * service and nobody is left to answer, so it is not logged as an unexpected error.
 */
export function droppedMidAnswer(error: unknown, socket: { destroyed: boolean } | null | undefined): boolean {
  return (error as { code?: unknown } | null)?.code === 'ERR_STREAM_PREMATURE_CLOSE' && socket?.destroyed === true
}

/** What a dropped connection's request ends as (in the service's own log line; no client hears it). */
const CLIENT_GONE = new ApiError(499, 'client_closed_request', 'The client closed the connection before its answer was sent.')

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  const e = error as FastifyError & { validation?: ErrorObject[]; validationContext?: string }
  if (e.validation) {
    const errors: Record<string, string> = {}
    for (const v of e.validation) {
      const key = fieldPath(v)
      errors[key] ??= reason(v)
    }
    const summary = Object.entries(errors)
      .map(([k, r]) => `${k} ${r}`)
      .join('; ')
    // A string past its limit is well-formed but unacceptable: 422 naming the field. A nullable
    // string adds its own union errors at the same place; they belong to the length error.
    const tooLong = new Set(e.validation.filter((v) => v.keyword === 'maxLength').map((v) => v.instancePath))
    const onlyLength = e.validation.every((v) => tooLong.has(v.instancePath) && (v.keyword === 'maxLength' || v.keyword === 'type' || v.keyword === 'anyOf'))
    if (tooLong.size > 0 && onlyLength && e.validationContext === 'body') {
      for (const v of e.validation) if (v.keyword !== 'maxLength') delete errors[fieldPath(v)]
      for (const v of e.validation) if (v.keyword === 'maxLength') errors[fieldPath(v)] = reason(v)
      const lengths = Object.entries(errors)
        .map(([k, r]) => `${k} ${r}`)
        .join('; ')
      return ApiError.unprocessable(`Too long: ${lengths}.`, errors)
    }
    return ApiError.badRequest(`Invalid ${e.validationContext ?? 'request'}: ${summary}.`, errors)
  }
  const status = e.statusCode ?? 500
  if (status === 413) return new ApiError(413, 'payload_too_large', 'The request body is larger than this service accepts.')
  if (status === 415) return new ApiError(415, 'unsupported_media_type', e.message)
  if (status >= 400 && status < 500) return new ApiError(status, status === 400 ? 'bad_request' : 'client_error', e.message)
  console.error('outpost-local: unexpected error', error)
  return new ApiError(500, 'internal_error', 'The service failed to handle this request.')
}

function installValidation(app: ApiApp): void {
  // Bodies are checked strictly (no coercion, no silently dropped keys);
  // query strings and path parameters are coerced from text.
  const strict = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: false, removeAdditional: false, strict: false })
  const coercing = new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, removeAdditional: false, strict: false })
  addFormats.default(strict)
  addFormats.default(coercing)
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict.compile(schema) : coercing.compile(schema)))
}

function installJsonParser(app: ApiApp): void {
  // Some clients send DELETE with a JSON content type and no body; that is no body, not an error.
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, undefined)
    try {
      done(null, sjson.parse(text, { protoAction: 'error', constructorAction: 'error' }))
    } catch {
      done(new ApiError(400, 'bad_request', 'The request body is not valid JSON.'), undefined)
    }
  })
  // axios (the official client) sends bodiless PUTs as an empty form: that is no body too.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined)
    done(new ApiError(415, 'unsupported_media_type', 'Send the request body as application/json.'), undefined)
  })
}
