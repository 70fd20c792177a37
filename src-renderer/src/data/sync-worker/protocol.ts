// What a window and its sync worker say to each other. The window asks for
// runs; the worker says when a run holds the sync lock, how far it is, and how
// it ended. Failures cross as data (structured clone keeps only an error's
// name and message) and become the data layer's errors again on the other
// side. Where the worker cannot reach the main side itself (the desktop app: a
// worker has no preload), it asks the window to make its requests ('ask'), and
// the window answers; a long list comes back in parts, each a task of its own.
import type { OperationFailure } from '../../../../src-shared/api/operations.ts'
import type { IpcResult, RequestChannel } from '../../../../src-shared/ipc.ts'
import { SyncError, type SyncOptions, type SyncProgress, type SyncReport } from '../sync/index.ts'
import { TransportError } from '../transport.ts'
import { isStorageFull } from '../storage-full.ts'
import type { HandedRows } from '../handed-rows.ts'

/** What a sync run asks of the main side, and all the worker may ask. */
export const SYNC_CHANNELS = ['outpost:api.call', 'outpost:files.download', 'outpost:files.discard'] as const satisfies readonly RequestChannel[]
export type SyncChannel = (typeof SYNC_CHANNELS)[number]

export const isSyncChannel = (channel: unknown): channel is SyncChannel => (SYNC_CHANNELS as readonly unknown[]).includes(channel)

/** Where the browser host answers and this launch's secret: the worker opens its own connection with them. */
export interface HostAddress {
  url: string
  stageUrl: string
  secret: string
}

/** A failed run, as data. */
export type RunFailure =
  | { kind: 'sync'; report: SyncReport }
  | { kind: 'transport'; failure: OperationFailure }
  | { kind: 'abort'; message: string }
  | { kind: 'other'; name: string; message: string }

/** Items of a relayed list per message (as the browser host parts its answers). */
export const RELAY_PART_ITEMS = 1_000

/** The window to its worker. */
export type ToWorker =
  /**
   * The database to fill and the sync's options; `host`: the browser host, which the worker reaches on its
   * own connection (without it, the worker's requests go through the window). Answered by 'ready'.
   */
  | { type: 'open'; dbName: string; options: Required<SyncOptions>; host?: HostAddress }
  | { type: 'sync'; id: number; force: boolean; prefetch?: boolean; metered?: boolean }
  | { type: 'abort'; id: number; message: string }
  /** The answer to an 'ask'; `parts`: the value is a list that came first in that many 'part' messages. */
  | { type: 'answer'; id: number; result: IpcResult<unknown>; parts?: number }
  | { type: 'part'; id: number; items: unknown[] }

/** The worker to its window. */
export type FromWorker =
  | { type: 'ready' }
  /** The run holds the sync lock. */
  | { type: 'started'; id: number }
  /** The run's lists are stored (what follows is files downloaded ahead of use). */
  | { type: 'listed'; id: number }
  | { type: 'progress'; progress: SyncProgress }
  /** Part of the rows of a bootstrap's list, before they are stored (SyncerOptions.onHandOver); `last` ends them. */
  | { type: 'handed'; handed: HandedRows; last: boolean }
  | { type: 'done'; id: number; report: SyncReport }
  | { type: 'failed'; id: number; failure: RunFailure }
  /** A request to the main side, which the window makes with its own bridge. */
  | { type: 'ask'; id: number; channel: SyncChannel; request: unknown }

/** One end of the conversation: the Worker in the window, the worker's global scope inside it, or a MessagePort in tests. */
export interface Port<In, Out> {
  postMessage(message: Out): void
  addEventListener(type: 'message', listener: (event: MessageEvent<In>) => void): void
}

export function failureOfRun(error: unknown, aborted: boolean): RunFailure {
  if (error instanceof SyncError) return { kind: 'sync', report: error.report }
  // Storage that is full, under whatever error carried it (Dexie's abort of a transaction holds it as `inner`).
  if (isStorageFull(error) && !aborted) return { kind: 'other', name: 'StorageFullError', message: (error as Error).message }
  if (error instanceof TransportError) return { kind: 'transport', failure: error.failure }
  const e = error as { name?: unknown; message?: unknown } | null
  const message = typeof e?.message === 'string' ? e.message : String(error)
  if (aborted) return { kind: 'abort', message }
  return { kind: 'other', name: typeof e?.name === 'string' ? e.name : 'Error', message }
}

export function errorOfRun(failure: RunFailure): Error {
  switch (failure.kind) {
    case 'sync':
      return new SyncError(failure.report)
    case 'transport':
      return new TransportError(failure.failure)
    case 'abort':
      return new DOMException(failure.message, 'AbortError')
    case 'other': {
      const error = new Error(failure.message)
      error.name = failure.name
      return error
    }
  }
}
