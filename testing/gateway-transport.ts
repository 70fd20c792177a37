// A Transport straight over a Gateway, for Node: tests and benchmarks drive the
// data layer with the real gateway modules and the real service this way. The
// files it keeps follow the main side's own rules, from the main side's own
// modules: staged copies (staging.ts), removals only inside our folders
// (discard.ts) and the sweep of copies no queued upload names (sweep.ts).
import { mkdir } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { GatewayError, type Gateway } from '../src-main/gateway/index.ts'
import { discardOwnFile } from '../src-main/files/discard.ts'
import { stageCopy, UnreadableFileError } from '../src-main/files/staging.ts'
import { sweepStaged } from '../src-main/files/sweep.ts'
import type { Lane, OperationName, OperationRequest } from '../src-shared/api/operations.ts'
import { TransportError, UnreadableFile, type FileOnDisk, type Transport } from '../src-renderer/src/data/transport.ts'

/** `staging`: one workspace's staging folder (the main side keeps one per account); `cache`: where downloads go. */
export function gatewayTransport(gateway: Gateway, folders: { staging: string; cache: string }): Transport {
  const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (e) {
      // The gateway's failure as it is, as the app's bridge passes it on.
      if (e instanceof GatewayError) throw new TransportError(e.failure)
      throw e
    }
  }
  return {
    call: <T>(operation: OperationName, request: OperationRequest = {}) => wrap(() => gateway.call<T>(operation, request)),
    upload: <T>(files: FileOnDisk[], options: { storyId?: number; lane?: Lane; onProgress?: (sent: number, total: number) => void } = {}) =>
      wrap(() => gateway.upload<T>(files, { storyId: options.storyId, lane: options.lane, onProgress: (p) => options.onProgress?.(p.sent, p.total) })),
    stage: async (file: FileOnDisk) => {
      try {
        return await stageCopy(folders.staging, file.path, basename(file.name))
      } catch (error) {
        // As the app's bridge reports it: typed, with the main side's message.
        if (error instanceof UnreadableFileError) throw new UnreadableFile(error.message)
        throw error
      }
    },
    download: (fileId: number, url: string, _name: string, lane?: Lane) =>
      wrap(async () => {
        const dir = join(folders.cache, String(fileId))
        await mkdir(dir, { recursive: true })
        const path = join(dir, 'content')
        const got = await gateway.download(url, path, undefined, { lane })
        return { path, size: got.bytes, contentType: got.contentType ?? 'application/octet-stream' }
      }),
    discard: async (path: string) => {
      const outcome = await discardOwnFile(folders, path)
      if (outcome === 'outside' || outcome === 'not-a-file')
        throw new Error(`Only staged and downloaded files are removed; ${basename(path)} is not one of them.`)
    },
    sweepStaged: (keep: string[]) => sweepStaged(folders.staging, { keep, now: Date.now() }),
  }
}
