// The gateway: the only part of Outpost that talks HTTP to the service. One per
// account. It turns a named operation into a request (v3 or v4 URL, auth header,
// JSON), paces requests so the service's rate limit is never hit, retries what
// is safe to retry, and reports every failure as a GatewayError.
import { Readable } from 'node:stream'
import { request, type Dispatcher } from 'undici'
import { unwrapEntity } from '../../src-shared/api/common.ts'
import { RATE_LIMIT } from '../../src-shared/api/limits.ts'
import {
  OPERATIONS,
  authHeaders,
  fillPath,
  type Lane,
  type Operation,
  type OperationArgs,
  type OperationName,
  type OperationQuery,
  type OperationRequest,
  USER_AGENT,
} from '../../src-shared/api/operations.ts'
import { UPLOAD_FILE_FIELDS, UPLOAD_STORY_FIELD } from '../../src-shared/api/v3/files.ts'
import { DEFAULT_TIMEOUTS, leaseAgent, type AgentLease, type Timeouts } from './agents.ts'
import { ACCEPT_ENCODING, AnswerTooLargeError, MAX_ANSWER_BYTES, readBody, receivedOf } from './answer.ts'
import { contentTypeOf } from '../../src-shared/content-types.ts'
import { GatewayError, classifyTransport, httpError, transportError, type TransportFailure } from './errors.ts'
import { elementsBefore } from './cut-list.ts'
import { earlyKey, type EarlyAnswers } from './early.ts'
import { multipartBody } from './multipart.ts'
import { basePath, checkBaseUrl } from './origin.ts'
import { Pacer } from './pacer.ts'
import { DEFAULT_RETRY, backoffMs, retryAfterMs, type RetryPolicy } from './retry.ts'
import { CacheWriteError, saveBody, type DownloadProgress } from './save.ts'

export interface GatewayOptions {
  baseUrl: string
  workspaceSlug: string
  token: string
  /** v4 tokens (svc_) work on both generations; v3 tokens only on v3. */
  tokenKind: 'v4' | 'v3'
  clock?: () => number
  random?: () => number
  sleep?: (ms: number) => Promise<void>
  /** The service's limit for this token: 200 a minute unless told otherwise. */
  rateLimit?: { max: number; windowMs: number; marginMs?: number }
  /** Requests in flight at once (DEFAULT_CONCURRENCY). */
  concurrency?: number
  timeouts?: Partial<Timeouts>
  retry?: Partial<RetryPolicy>
  /** Told after every attempt whether the service was reached (any HTTP answer) or not. */
  onReachability?: (online: boolean) => void
  /** The most one answer may hold once decoded, in bytes (MAX_ANSWER_BYTES); past it the call fails as `too-large`. */
  maxAnswerBytes?: number
  /** Answers asked for before the account's first calls (at sign-in): each call they answer takes its own, once. */
  early?: EarlyAnswers
}

/** A request of operation N as the gateway takes it: the contract's request, and a signal to abort it. */
export type CallOptions<N extends OperationName = OperationName> = OperationRequest<N> & { signal?: AbortSignal }

export interface UploadFile {
  /** Where the file is on disk. */
  path: string
  /** The name the service records (Content-Disposition filename). */
  name: string
  /** Content-Type; guessed from the name's extension when absent. */
  type?: string
}

export interface UploadProgress {
  /** Bytes of file content sent so far, over all files. */
  sent: number
  total: number
}

export interface UploadOptions {
  storyId?: number
  onProgress?: (progress: UploadProgress) => void
  lane?: Lane
  signal?: AbortSignal
}

export interface DownloadOptions {
  lane?: Lane
  signal?: AbortSignal
  /** Runs on the complete file, under its temporary name, before it is put in place; `url` is where it came from. */
  beforePlace?: (tempFile: string, url: URL) => Promise<void>
}

export type { DownloadProgress } from './save.ts'

/**
 * Requests in flight at once per account: on a far link a sync's independent lists and the two ends of each
 * walk go together (about 8), and 2 more are kept for the user's own requests.
 */
export const DEFAULT_CONCURRENCY = 10

/** A Retry-After beyond this is taken as this: one bad header must not freeze an account for hours. */
const MAX_RATE_LIMIT_PAUSE_MS = 5 * 60_000

/** One request as the retry loop sees it. */
interface Exchange<T> {
  what: string
  method: Operation['method']
  url: URL
  headers: Record<string, string>
  /** A fresh body for each attempt. */
  body?: () => string | Readable
  idempotent: boolean
  lane: Lane
  /** Requests the caller's run means to make after this one (OperationRequest.ahead). */
  ahead?: number
  signal?: AbortSignal
  /** Reads a 2xx answer. */
  accept(response: Dispatcher.ResponseData): Promise<T>
  /** Of an answer whose read failed on its way, what can be kept (a list's elements that came whole). */
  salvage?(error: unknown): unknown[] | undefined
}

export class Gateway {
  readonly base: URL
  private readonly slug: string
  private readonly token: string
  private readonly tokenKind: 'v4' | 'v3'
  private readonly clock: () => number
  private readonly random: () => number
  private readonly sleep: (ms: number) => Promise<void>
  private readonly retry: RetryPolicy
  private readonly pacer: Pacer
  private readonly lease: AgentLease
  private readonly onReachability?: (online: boolean) => void
  private readonly maxAnswerBytes: number
  private readonly early?: EarlyAnswers

  constructor(options: GatewayOptions) {
    this.base = checkBaseUrl(options.baseUrl)
    if (!options.workspaceSlug && options.tokenKind === 'v4') throw new TypeError('A v4 account needs its workspace slug')
    this.slug = options.workspaceSlug
    this.token = options.token
    this.tokenKind = options.tokenKind
    this.clock = options.clock ?? Date.now
    this.random = options.random ?? Math.random
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)))
    this.retry = { ...DEFAULT_RETRY, ...options.retry }
    const limit = options.rateLimit ?? RATE_LIMIT
    // Room kept for the user: the background (sync, prefetch) leaves 2 of the connections and 5% of the
    // rate limit's window free, so that an opened epic or a saved change goes at once even during a bootstrap.
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY
    this.pacer = new Pacer({
      ...limit,
      concurrency,
      reserve: { slots: Math.min(2, concurrency - 1), requests: Math.floor(limit.max * 0.05) },
      clock: this.clock,
      sleep: this.sleep,
    })
    this.lease = leaseAgent(this.base.origin, { ...DEFAULT_TIMEOUTS, ...options.timeouts })
    this.onReachability = options.onReachability
    this.maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES
    this.early = options.early
    for (const request of options.early?.requests ?? []) this.pacer.track(request)
  }

  /** Requests waiting for their turn (rate limit, concurrency or a 429 pause). */
  get waiting(): number {
    return this.pacer.waiting
  }

  /** Runs a named operation and resolves with the service's answer (undefined for 204). */
  async call<T = unknown, N extends OperationName = OperationName>(name: N, ...[options]: OperationArgs<N, CallOptions<N>>): Promise<T> {
    const op: Operation = OPERATIONS[name]
    const opts: CallOptions = options ?? {}
    if (op.multipart) throw new TypeError(`${name} sends files: use upload()`)
    if (op.method === 'GET' && opts.body !== undefined) throw new TypeError(`${name} is a GET and takes no body`)
    // An answer asked for at sign-in (early.ts) is this call's, once.
    const early = op.method === 'GET' ? this.early?.take(earlyKey(name, opts)) : undefined
    const answer = early ? ((await early) as T) : await this.send<T>(name, op, opts)
    return opts.fields ? (pickFields(answer, opts.fields) as T) : answer
  }

  /** One operation's request, through the pacer and its retries: the service's whole answer. */
  private send<T>(name: OperationName, op: Operation, opts: CallOptions): Promise<T> {
    const url = this.urlOf(op, fillPath(op.path, opts.params), opts.query)
    const headers: Record<string, string> = { ...this.headersFor(op.api, name), accept: 'application/json', 'accept-encoding': ACCEPT_ENCODING }
    let body: (() => string) | undefined
    if (opts.body !== undefined) {
      const json = JSON.stringify(opts.body)
      headers['content-type'] = 'application/json'
      body = () => json
    }
    return this.exchange<T>({
      what: name,
      method: op.method,
      url,
      headers,
      body,
      idempotent: op.idempotent,
      lane: opts.lane ?? (op.kind === 'write' ? 'user-write' : 'user-read'),
      ahead: opts.ahead,
      signal: opts.signal,
      accept: (res) => this.readAnswer(res) as Promise<T>,
      salvage: op.method === 'GET' ? (error) => salvagedList(error, opts.fields) : undefined,
    })
  }

  /**
   * Uploads one to four files from disk (POST /api/v3/files, fields file0..file3
   * and story_id), streamed, with progress. Resolves with the service's list of
   * UploadedFile. Not idempotent: a lost answer gives `outcome-unknown`.
   */
  async upload<T = unknown>(files: UploadFile[], options: UploadOptions = {}): Promise<T> {
    if (files.length < 1 || files.length > UPLOAD_FILE_FIELDS.length) {
      throw new RangeError(`An upload takes 1 to ${UPLOAD_FILE_FIELDS.length} files; got ${files.length}`)
    }
    const op: Operation = OPERATIONS['files.upload']
    const fields: Record<string, string> = options.storyId !== undefined ? { [UPLOAD_STORY_FIELD]: String(options.storyId) } : {}
    const form = await multipartBody(
      fields,
      files.map((f, i) => ({ field: UPLOAD_FILE_FIELDS[i], path: f.path, name: f.name, type: f.type ?? contentTypeOf(f.name) })),
    )
    const total = form.fileBytes
    options.onProgress?.({ sent: 0, total })
    return this.exchange<T>({
      what: 'files.upload',
      method: op.method,
      url: this.urlOf(op, op.path),
      headers: {
        ...this.headersFor(op.api, 'files.upload'),
        accept: 'application/json',
        'accept-encoding': ACCEPT_ENCODING,
        'content-type': form.contentType,
        'content-length': String(form.length),
      },
      body: () => form.open((sent) => options.onProgress?.({ sent, total })),
      idempotent: op.idempotent,
      lane: options.lane ?? 'user-write',
      signal: options.signal,
      accept: (res) => this.readAnswer(res) as Promise<T>,
    })
  }

  /**
   * Streams a file's content (its `url` from the service) to `destFile`, through
   * a temporary file renamed into place. Only URLs of the service's own origin:
   * the token goes with the request.
   */
  async download(
    url: string,
    destFile: string,
    onProgress?: (progress: DownloadProgress) => void,
    options: DownloadOptions = {},
  ): Promise<{ bytes: number; contentType: string | undefined }> {
    let target: URL
    try {
      target = new URL(url, this.base)
    } catch {
      throw new GatewayError({ kind: 'bad-url', message: `"${url}" is not a URL.` })
    }
    if (target.origin !== this.base.origin) {
      throw new GatewayError({ kind: 'insecure', message: `Refusing to send the API token to ${target.origin}: downloads come only from ${this.base.origin}.` })
    }
    return this.exchange({
      what: 'download',
      method: 'GET',
      url: target,
      headers: { ...this.headersFor(this.tokenKind, 'download'), accept: '*/*' },
      idempotent: true,
      lane: options.lane ?? 'user-read',
      signal: options.signal,
      accept: async (res) => {
        const length = header(res.headers['content-length'])
        const total = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined
        const beforePlace = options.beforePlace
        const bytes = await saveBody(res.body, destFile, total, onProgress, beforePlace && ((temp) => beforePlace(temp, target)))
        return { bytes, contentType: header(res.headers['content-type']) }
      },
    })
  }

  /** Refuses waiting and future requests and lets go of the connection pool. */
  async close(): Promise<void> {
    this.pacer.close(new GatewayError({ kind: 'network', message: 'The account was closed before this request could be sent.' }))
    await this.lease.release()
  }

  private urlOf(op: Operation, path: string, query?: OperationQuery): URL {
    const prefix = op.api === 'v3' ? '/api/v3' : op.root ? '/api/v4' : `/api/v4/${encodeURIComponent(this.slug)}`
    const url = new URL(`${basePath(this.base)}${prefix}${path}`, this.base.origin)
    for (const [key, value] of Object.entries(query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) {
        if (v !== undefined && v !== null) url.searchParams.append(key, String(v))
      }
    }
    return url
  }

  private headersFor(api: 'v3' | 'v4', what: string): Record<string, string> {
    if (api === 'v4' && this.tokenKind === 'v3') {
      throw new GatewayError({ kind: 'auth', message: `${what} needs a v4 API token (svc_...); this account has a v3 token.` })
    }
    return { ...authHeaders(api, this.token, this.tokenKind), 'user-agent': USER_AGENT }
  }

  private reach(online: boolean): void {
    try {
      this.onReachability?.(online)
    } catch {
      // A listener's failure is not the request's.
    }
  }

  /** Sends one request through the pacer, retrying what is safe to retry. */
  private async exchange<T>(x: Exchange<T>): Promise<T> {
    let attempts = 0
    let failures = 0
    let rateLimited = 0
    /** A list answer cut on its way: the elements that came whole, handed to the caller rather than asked for again. */
    let salvaged: unknown[] | undefined
    for (;;) {
      attempts++
      const turn = await this.pacer.admit(x.lane, x.signal, x.ahead)
      let answer: GatewayError | undefined
      let retryAfter: number | undefined
      let transport: TransportFailure | undefined
      let cause: unknown
      let body: string | Readable | undefined
      try {
        body = x.body?.()
        const res = await request(x.url, { dispatcher: this.lease.agent, method: x.method, headers: x.headers, body, signal: x.signal })
        this.reach(true)
        if (res.statusCode >= 200 && res.statusCode < 300) {
          try {
            return await x.accept(res)
          } catch (error) {
            if (error instanceof CacheWriteError) throw error
            if (error instanceof AnswerTooLargeError)
              throw withAttempts(new GatewayError({ kind: 'too-large', message: `${x.what}: ${error.message}` }, { cause: error }), attempts)
            if (x.signal?.aborted) throw this.aborted(x, x.signal.reason)
            // The service answered and the answer was lost on the way: for a write, it was applied.
            res.body.destroy()
            transport = classifyTransport(error) === 'timeout' ? 'timeout' : 'maybe-sent'
            cause = error
            salvaged = x.salvage?.(error)
          }
        } else {
          retryAfter = retryAfterMs(res.headers['retry-after'], this.clock())
          const text = await this.readText(res).catch((error: unknown) => {
            if (error instanceof AnswerTooLargeError) return ''
            throw error
          })
          answer = httpError(res.statusCode, text, retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000))
        }
      } catch (error) {
        if (error instanceof CacheWriteError || error instanceof GatewayError) throw error
        if (x.signal?.aborted) throw this.aborted(x, x.signal.reason)
        transport = classifyTransport(error)
        cause = error
        if (transport !== 'certificate') this.reach(false)
      } finally {
        turn.done()
        if (body instanceof Readable) body.destroy()
      }

      if (answer) {
        if (answer.status === 429) {
          // Not processed (spec part 2 §8), so any operation may go again; the whole account waits.
          rateLimited++
          const pause = Math.min(MAX_RATE_LIMIT_PAUSE_MS, retryAfter ?? backoffMs(this.retry, rateLimited, this.random))
          this.pacer.pauseUntil(this.clock() + pause)
          if (rateLimited < this.retry.rateLimitedAttempts) continue
          throw withAttempts(answer, attempts)
        }
        if (answer.status !== undefined && answer.status >= 500) {
          failures++
          if (!x.idempotent) {
            throw withAttempts(
              new GatewayError({
                kind: 'outcome-unknown',
                status: answer.status,
                ...(answer.tag !== undefined && { tag: answer.tag }),
                message: `${answer.message} The change may or may not have been made.`,
              }),
              attempts,
            )
          }
          if (failures < this.retry.attempts) {
            await this.backoff(x, failures)
            continue
          }
        }
        throw withAttempts(answer, attempts)
      }

      failures++
      const kind = transport ?? 'maybe-sent'
      // What came of a cut list goes to the caller, which asks for the rest only; asked again, it would all come again.
      const mayRetry = kind !== 'certificate' && (kind === 'not-sent' || x.idempotent) && !salvaged
      if (mayRetry && failures < this.retry.attempts) {
        await this.backoff(x, failures)
        continue
      }
      throw withAttempts(transportError(kind, x.idempotent, cause, salvaged), attempts)
    }
  }

  /** An answer's body as text, decoded as it streams, within the gateway's limit. */
  private readText(res: Dispatcher.ResponseData): Promise<string> {
    return readBody(res.body, header(res.headers['content-encoding']), this.maxAnswerBytes)
  }

  /** A 2xx answer: JSON when it says so (a v4 entity out of its wrapper), text otherwise, undefined when empty. */
  private async readAnswer(res: Dispatcher.ResponseData): Promise<unknown> {
    const text = await this.readText(res)
    if (res.statusCode === 204 || text === '') return undefined
    const type = header(res.headers['content-type']) ?? ''
    return type.includes('json') ? unwrapEntity(JSON.parse(text)) : text
  }

  private async backoff(x: Exchange<unknown>, failures: number): Promise<void> {
    await this.sleep(backoffMs(this.retry, failures, this.random))
    if (x.signal?.aborted) throw x.signal.reason
  }

  /** An abort while in flight: a write that may have left has an unknown outcome. */
  private aborted(x: Exchange<unknown>, reason: unknown): unknown {
    if (x.idempotent) return reason
    return new GatewayError(
      { kind: 'outcome-unknown', message: `${x.what} was cancelled after it was sent; the change may or may not have been made.` },
      { cause: reason },
    )
  }
}

export function createGateway(options: GatewayOptions): Gateway {
  return new Gateway(options)
}

function withAttempts(error: GatewayError, attempts: number): GatewayError {
  error.attempts = attempts
  return error
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** Of a list answer whose read failed on its way, the elements that came whole, with only `fields` (undefined: none). */
function salvagedList(error: unknown, fields: readonly string[] | undefined): unknown[] | undefined {
  const text = receivedOf(error)
  const elements = text === undefined ? undefined : elementsBefore(text)
  return elements && fields ? (pickFields(elements, fields) as unknown[]) : elements
}

/** An entity, or each entity of a list, with only `fields` (those it has). Anything else is left as it is. */
export function pickFields(answer: unknown, fields: readonly string[]): unknown {
  const pick = (entity: unknown) => {
    if (typeof entity !== 'object' || entity === null || Array.isArray(entity)) return entity
    const source = entity as Record<string, unknown>
    const out: Record<string, unknown> = {}
    for (const field of fields) if (Object.hasOwn(source, field)) out[field] = source[field]
    return out
  }
  return Array.isArray(answer) ? answer.map(pick) : pick(answer)
}
