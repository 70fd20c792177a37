// The data layer's Transport in the app: named operations over the bridge to
// the main side's gateway (Electron IPC, or the browser host's WebSocket).
// Failures come back as TransportError carrying the gateway's typed failure,
// so the outbox reasons the same way here as over a Gateway in Node tests.
import type { Lane, OperationFailure, OperationName, OperationRequest } from '../../../src-shared/api/operations.ts'
import type { ApiCallRequest, IpcError } from '../../../src-shared/ipc.ts'
import { BridgeError, type Bridge } from '../lib/bridge.ts'
import { TransportError, UnreadableFile, type FileOnDisk, type Transport } from './transport.ts'
import { messageOf } from '../lib/errors.ts'
import { StorageFullError } from './storage-full.ts'
import { contentTypeOf } from '../../../src-shared/content-types.ts'

/** A bridge failure as the data layer's failure kinds. */
export function failureOfIpc(error: IpcError): OperationFailure {
  switch (error.source) {
    case 'gateway': {
      // The gateway's failure as it crossed, without the tag that says where it came from.
      const { source: _source, ...failure } = error
      return failure
    }
    case 'account':
      // No usable token (missing from the keychain, rejected): like a 401, replay waits for a new one.
      if (error.kind === 'bad-token' || error.kind === 'token-missing' || error.kind === 'missing-token')
        return { kind: 'auth', message: error.message, status: error.status ?? 401 }
      if (error.kind === 'unreachable') return { kind: 'network', message: error.message }
      if (error.kind === 'insecure-url') return { kind: 'insecure', message: error.message }
      if (error.kind === 'bad-url') return { kind: 'bad-url', message: error.message }
      return { kind: 'http', message: error.message, status: error.status ?? 400 }
    case 'secret-store':
      return { kind: 'auth', message: error.message }
    case 'ipc':
      // The host went away (browser) or the bridge broke: nothing was sent, or we cannot tell; retry later.
      if (error.kind === 'internal') return { kind: 'network', message: error.message }
      if (error.kind === 'no-account') return { kind: 'auth', message: error.message }
      // A request the main side refused will be refused again: a 4xx-like failure the user can see.
      return { kind: 'http', message: error.message, status: 400 }
  }
}

function rethrow(error: unknown): never {
  // No room on the disk for a file of the main side's: not the network's fault, and not to be retried as if it were.
  if (error instanceof BridgeError && error.error.source === 'ipc' && error.error.kind === 'disk-full') throw new StorageFullError(error.error.message)
  if (error instanceof BridgeError) throw new TransportError(failureOfIpc(error.error))
  if (error instanceof TransportError) throw error
  throw new TransportError({ kind: 'network', message: messageOf(error) })
}

/**
 * A file the user dropped or picked, as the data layer takes it: its path on
 * disk (the desktop app's own path; the browser host's staged copy) and its
 * name. Use it before `actions.uploadFile`, which stages it.
 */
export async function fileOnDisk(bridge: Pick<Bridge, 'pathForFile'>, file: File): Promise<FileOnDisk> {
  const path = await bridge.pathForFile(file)
  if (!path)
    throw new TransportError({
      kind: 'http',
      status: 400,
      message: `${file.name} has no path on disk (a file from another app or a web page?): save it to a folder first, then drop it here.`,
    })
  return { path, name: file.name }
}

const newId = (): string =>
  typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`

export function bridgeTransport(bridge: Bridge): Transport {
  return {
    async call<T, N extends OperationName>(operation: N, request?: OperationRequest<N>): Promise<T> {
      // Object.assign keeps N where a spread of a request that may be absent would widen it.
      const call: ApiCallRequest<N> = Object.assign({ operation }, request)
      try {
        return (await bridge.call('outpost:api.call', call)) as T
      } catch (error) {
        rethrow(error)
      }
    },

    async upload<T>(files: FileOnDisk[], options: { storyId?: number; onProgress?: (sent: number, total: number) => void } = {}): Promise<T> {
      const uploadId = newId()
      const stop = options.onProgress
        ? bridge.on('outpost:upload-progress', (p) => {
            if (p.uploadId === uploadId) options.onProgress?.(p.bytesSent, p.bytesTotal)
          })
        : undefined
      try {
        // The names go along: a staged copy's own name carries a unique prefix, and the user may have renamed it.
        const request = { uploadId, paths: files.map((f) => f.path), names: files.map((f) => f.name), storyId: options.storyId }
        return (await bridge.call('outpost:files.upload', request)) as T
      } catch (error) {
        rethrow(error)
      } finally {
        stop?.()
      }
    },

    // The main side copies the dropped file into its staging folder (in the browser host the
    // page's file is a staged copy already, and comes back as it is): the queued upload reads
    // the copy, so it survives the original moving, and a restart.
    async stage(file: FileOnDisk) {
      try {
        return await bridge.call('outpost:files.stage', { path: file.path })
      } catch (error) {
        // The file itself could not be read: the main side says so by kind, with a message that names it.
        if (error instanceof BridgeError && error.error.source === 'ipc' && error.error.kind === 'unreadable') throw new UnreadableFile(error.error.message)
        rethrow(error)
      }
    },

    // The file's row gives its address and name; the main side sends the token only to the service's own origin.
    async download(fileId: number, url: string, name: string, lane?: Lane) {
      try {
        const answer = await bridge.call('outpost:files.download', { downloadId: newId(), fileId, known: { url, name }, ...(lane && { lane }) })
        return { path: answer.path, size: answer.bytes, contentType: contentTypeOf(answer.path) }
      } catch (error) {
        rethrow(error)
      }
    },

    // Only staged copies and cached contents are removed; the main side refuses any other path.
    async discard(path: string) {
      try {
        await bridge.call('outpost:files.discard', { path })
      } catch (error) {
        rethrow(error)
      }
    },

    // Storage is short: the main side removes the current workspace's downloaded contents but these.
    async evictFiles(keep: number[]) {
      try {
        return await bridge.call('outpost:files.evict-cache', { keep })
      } catch (error) {
        rethrow(error)
      }
    },

    // The main side sweeps the current workspace's staging folder only.
    async sweepStaged(keep: string[]) {
      try {
        return await bridge.call('outpost:files.sweep-staged', { keep })
      } catch (error) {
        rethrow(error)
      }
    },
  }
}
