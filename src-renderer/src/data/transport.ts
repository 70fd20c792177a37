// How the data layer reaches the service: named operations of the API
// contract, never URLs or tokens. In the app this goes over the bridge to the
// main side's gateway; in Node tests and benchmarks straight to a Gateway.
import type { Lane, OperationFailure, OperationName, OperationRequest } from '../../../src-shared/api/operations.ts'

export interface FileOnDisk {
  path: string
  name: string
}

export interface Transport {
  /** Resolves with the answer (a v4 entity already out of its wrapper); rejects with TransportError. */
  call<T = unknown, N extends OperationName = OperationName>(operation: N, request?: OperationRequest<N>): Promise<T>
  /** POST /files (1-4 files), with progress in bytes. */
  upload<T = unknown>(files: FileOnDisk[], options?: { storyId?: number; lane?: Lane; onProgress?: (sent: number, total: number) => void }): Promise<T>
  /**
   * Copies a dropped file into the app's durable staging folder, so a queued upload survives the original moving.
   * Rejects with UnreadableFile when the file cannot be read (gone, no permission, a folder, not a regular file).
   */
  stage(file: FileOnDisk): Promise<{ path: string; size: number }>
  /** Downloads a file's content (at its `url`, named `name`, as the file's row has them) into the app's file cache. */
  download(fileId: number, url: string, name: string, lane?: Lane): Promise<{ path: string; size: number; contentType: string }>
  /** Removes a staged or cached file the data layer no longer needs. */
  discard(path: string): Promise<void>
  /**
   * Removes this workspace's staged copies that are not in `keep` (the paths queued uploads still name) and are
   * older than a grace period (a drop stages its copy a moment before its record is written): what a crash left.
   */
  sweepStaged(keep: string[]): Promise<{ removed: number; kept: number }>
  /**
   * Storage is short: removes this workspace's downloaded file contents (they can be downloaded again) except
   * the files in `keep`. Absent where there is no file cache to clear.
   */
  evictFiles?(keep: number[]): Promise<{ removed: number; bytes: number }>
}

/** A dropped file `stage` could not read; the message says why and what to do, in the user's words, naming the file. */
export class UnreadableFile extends Error {
  override readonly name = 'UnreadableFile'
}

/** A failed operation, with the typed failure the gateway reported. */
export class TransportError extends Error {
  override readonly name = 'TransportError'
  constructor(readonly failure: OperationFailure) {
    super(failure.message)
  }
}

/** Anything thrown by a transport, as the failure the data layer reasons about. */
export function failureOf(error: unknown): OperationFailure {
  if (error instanceof TransportError) return error.failure
  const e = error as Partial<OperationFailure> & { message?: string }
  if (e && typeof e.kind === 'string' && typeof e.message === 'string') return e as OperationFailure
  return { kind: 'network', message: e?.message ?? String(error) }
}

/** The service answered 404: the entity is not there (deleted, or never was). */
export function isNotFound(error: unknown): boolean {
  const f = failureOf(error)
  return f.kind === 'http' && f.status === 404
}
