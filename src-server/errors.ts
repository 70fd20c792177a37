// One error body everywhere: {message, tag, errors?}. Handlers throw ApiError;
// the error handler in app.ts shapes every failure, ours or Fastify's.
import type { ErrorBody } from '../src-shared/api/common.ts'

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string,
    message: string,
    readonly errors?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }

  get body(): ErrorBody {
    return this.errors ? { message: this.message, tag: this.tag, errors: this.errors } : { message: this.message, tag: this.tag }
  }

  static badRequest(message: string, errors?: Record<string, string>) {
    return new ApiError(400, 'bad_request', message, errors)
  }
  static unauthorized(message = 'A valid API token is required.') {
    return new ApiError(401, 'unauthorized', message)
  }
  static forbidden(message: string, tag = 'forbidden') {
    return new ApiError(403, tag, message)
  }
  static notFound(message = 'Not found.') {
    return new ApiError(404, 'not_found', message)
  }
  static conflict(message: string, tag = 'data_conflict_error', errors?: Record<string, string>) {
    return new ApiError(409, tag, message, errors)
  }
  static unprocessable(message: string, errors?: Record<string, string>, tag = 'unprocessable') {
    return new ApiError(422, tag, message, errors)
  }
  static disabledFeature(feature: string) {
    return new ApiError(403, 'disabled_feature_error', `The ${feature} feature is not enabled for this workspace.`)
  }
}

/** Runs one item of a bulk request; its errors name the item (`epics[3].name`). */
export function inBulkItem<R>(collection: string, index: number, fn: () => R): R {
  try {
    return fn()
  } catch (e) {
    if (!(e instanceof ApiError)) throw e
    const prefix = `${collection}[${index}]`
    const errors = e.errors ? Object.fromEntries(Object.entries(e.errors).map(([k, v]) => [`${prefix}.${k}`, v])) : { [prefix]: e.message }
    throw new ApiError(e.status, e.tag, `${prefix}: ${e.message}`, errors, e.headers)
  }
}
