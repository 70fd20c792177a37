// The API gateway of src-main: named operations over undici, paced, retried, typed errors.
export { Gateway, createGateway } from './gateway.ts'
export type { GatewayOptions, CallOptions, UploadFile, UploadOptions, UploadProgress, DownloadOptions, DownloadProgress } from './gateway.ts'
export { GatewayError } from './errors.ts'
export { isLoopback, checkBaseUrl } from './origin.ts'
export type { Timeouts } from './agents.ts'
export type { RetryPolicy } from './retry.ts'
