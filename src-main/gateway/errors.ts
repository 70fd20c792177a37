// The gateway's one error type, and how HTTP answers and transport failures map
// onto it. Messages never carry the token (it only ever travels in a header).
import type { OperationFailure, OperationFailureKind } from '../../src-shared/api/operations.ts'

/**
 * A failed operation. It carries the failure as the plain data every boundary passes on unchanged
 * (the IPC envelope, the renderer's TransportError); its own fields only read that.
 */
export class GatewayError extends Error implements OperationFailure {
  override name = 'GatewayError'
  readonly failure: OperationFailure
  /** Attempts made before giving up (a retried delete answering 404 was probably applied by an earlier one). */
  attempts?: number

  constructor(failure: OperationFailure, options?: { cause?: unknown }) {
    super(failure.message, options)
    this.failure = plainFailure(failure)
  }

  get kind(): OperationFailureKind {
    return this.failure.kind
  }
  get status(): number | undefined {
    return this.failure.status
  }
  get tag(): string | undefined {
    return this.failure.tag
  }
  get errors(): Record<string, string> | undefined {
    return this.failure.errors
  }
  get retryAfter(): number | undefined {
    return this.failure.retryAfter
  }

  /** What JSON.stringify gives: the failure, never the cause (an undici error with the request in it). */
  toJSON(): OperationFailure {
    return this.failure
  }
}

/** Only the failure's own fields, and absent details absent (not undefined): it crosses IPC as it is. */
function plainFailure(failure: OperationFailure): OperationFailure {
  const out: OperationFailure = { kind: failure.kind, message: failure.message }
  if (failure.status !== undefined) out.status = failure.status
  if (failure.tag !== undefined) out.tag = failure.tag
  if (failure.errors !== undefined) out.errors = failure.errors
  if (failure.retryAfter !== undefined) out.retryAfter = failure.retryAfter
  if (failure.received !== undefined) out.received = failure.received
  return out
}

/** The service's error body, `{message, tag, errors?}`, or null when the answer is not one. */
export function parseErrorBody(text: string): { message: string; tag?: string; errors?: Record<string, string> } | null {
  try {
    const body: unknown = JSON.parse(text)
    if (!body || typeof body !== 'object' || typeof (body as { message?: unknown }).message !== 'string') return null
    const { message, tag, errors } = body as { message: string; tag?: unknown; errors?: unknown }
    const out: { message: string; tag?: string; errors?: Record<string, string> } = { message }
    if (typeof tag === 'string') out.tag = tag
    if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
      out.errors = Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, String(v)]))
    }
    return out
  } catch {
    return null
  }
}

/** An error answer of the service as a GatewayError: 401 auth, 403 read_only_token readonly, others http. */
export function httpError(status: number, bodyText: string, retryAfter?: number): GatewayError {
  const body = parseErrorBody(bodyText)
  const kind: OperationFailureKind = status === 401 ? 'auth' : status === 403 && body?.tag === 'read_only_token' ? 'readonly' : 'http'
  const failure: OperationFailure = { kind, status, message: body?.message ?? fallbackMessage(status) }
  if (body?.tag !== undefined) failure.tag = body.tag
  if (body?.errors !== undefined) failure.errors = body.errors
  if (retryAfter !== undefined) failure.retryAfter = retryAfter
  return new GatewayError(failure)
}

function fallbackMessage(status: number): string {
  if (status === 401) return 'The service did not accept the API token.'
  if (status === 429) return 'Too many requests: the service asked us to slow down.'
  if (status >= 500) return `The service failed to answer (HTTP ${status}).`
  return `The service refused the request (HTTP ${status}).`
}

/**
 * What a transport failure says about the request:
 * - not-sent: it never left (no connection), so any operation may be sent again;
 * - maybe-sent: the connection broke after it was sent, so the service may have applied it;
 * - timeout: the service did not answer in time (it may have applied it);
 * - certificate: TLS refused the service's certificate; retrying will not help.
 */
export type TransportFailure = 'not-sent' | 'maybe-sent' | 'timeout' | 'certificate'

const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
])
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
const CERTIFICATE = /^(CERT_|ERR_TLS_CERT|ERR_SSL_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(VERIFY|GET_ISSUER))/

export function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown } | null
  if (!e || typeof e !== 'object') return undefined
  if (typeof e.code === 'string') return e.code
  // Happy eyeballs (several addresses tried) report an AggregateError of the attempts.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0])
  if (e.cause) return errorCode(e.cause)
  return undefined
}

export function classifyTransport(error: unknown): TransportFailure {
  const code = errorCode(error) ?? ''
  if (NOT_SENT.has(code)) return 'not-sent'
  if (TIMEOUTS.has(code)) return 'timeout'
  if (CERTIFICATE.test(code)) return 'certificate'
  return 'maybe-sent'
}

/** A transport failure once retries are spent (or not allowed). */
export function transportError(failure: TransportFailure, idempotent: boolean, error: unknown, received?: unknown[]): GatewayError {
  const detail = error instanceof Error ? error.message : String(error)
  if (failure === 'certificate') {
    return new GatewayError({ kind: 'insecure', message: `The service's certificate was refused (${detail}).` }, { cause: error })
  }
  if (failure !== 'not-sent' && !idempotent) {
    return new GatewayError(
      { kind: 'outcome-unknown', message: `The connection failed before the service answered (${detail}); the change may or may not have been made.` },
      { cause: error },
    )
  }
  const kept = received && { received }
  if (failure === 'timeout') return new GatewayError({ kind: 'timeout', message: `The service did not answer in time (${detail}).`, ...kept }, { cause: error })
  return new GatewayError({ kind: 'network', message: `The service could not be reached (${detail}).`, ...kept }, { cause: error })
}
