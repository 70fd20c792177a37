// A Transport straight over a Gateway, for Node: tests and benchmarks drive the
// data layer with the real gateway modules and the real service this way.
import { copyFile, mkdir, rm, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Gateway } from '../../../src-main/gateway/index.ts'
import type { OperationName } from '../../../src-shared/api/operations.ts'
import { TransportError, type ApiRequest, type FileOnDisk, type Transport } from './transport.ts'

export function gatewayTransport(gateway: Gateway, folders: { staging: string; cache: string }): Transport {
  const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (e) {
      const err = e as { kind?: string }
      if (typeof err.kind === 'string') throw new TransportError(JSON.parse(JSON.stringify(e)) as TransportError['failure'])
      throw e
    }
  }
  return {
    call: <T>(operation: OperationName, request: ApiRequest = {}) =>
      wrap(() => (gateway.call as (n: OperationName, o: unknown) => Promise<T>)(operation, request)),
    upload: <T>(files: FileOnDisk[], options: { storyId?: number; lane?: ApiRequest['lane']; onProgress?: (sent: number, total: number) => void } = {}) =>
      wrap(() => gateway.upload<T>(files, { storyId: options.storyId, lane: options.lane, onProgress: (p) => options.onProgress?.(p.sent, p.total) })),
    stage: async (file: FileOnDisk) => {
      await mkdir(folders.staging, { recursive: true })
      const path = join(folders.staging, `${randomUUID()}-${basename(file.name).replace(/[^\w.-]/g, '_')}`)
      await copyFile(file.path, path)
      return { path, size: (await stat(path)).size }
    },
    download: (fileId: number, url: string) =>
      wrap(async () => {
        const dir = join(folders.cache, String(fileId))
        await mkdir(dir, { recursive: true })
        const path = join(dir, 'content')
        const got = await gateway.download(url, path)
        return { path, size: got.bytes, contentType: got.contentType ?? 'application/octet-stream' }
      }),
    discard: (path: string) => rm(path, { force: true }),
  }
}
