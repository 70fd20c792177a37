// Downloaded file contents, one folder per account and file:
// `<cache>/<account>/<file id>/<safe name>`, so two files of one name never
// collide and a file is found again by its id alone, offline too. A file's
// content never changes on the service (PUT /files changes its properties
// only), so a complete copy here stays good until it is discarded.
import { lstat, open, readdir, rm, rmdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Lane } from '../../src-shared/api/operations.ts'
import type { DownloadProgress } from '../gateway/save.ts'
import type { GatewayLike } from '../ipc/current-gateway.ts'
import type { MarkSource } from './internet-mark.ts'
import { safeFileName } from './safe-name.ts'

/** Where one file's content is kept. */
export function fileFolder(cacheDir: string, accountId: string, fileId: number): string {
  return join(cacheDir, safeFileName(accountId), String(fileId))
}

/** The cached content of a file, if it is here. Downloads under way (`.<name>.<hex>.part`) do not count. */
export async function findCached(cacheDir: string, accountId: string, fileId: number): Promise<string | undefined> {
  const folder = fileFolder(cacheDir, accountId, fileId)
  let names: string[]
  try {
    names = await readdir(folder)
  } catch {
    return undefined
  }
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue
    const path = join(folder, name)
    if ((await stat(path).catch(() => undefined))?.isFile()) return path
  }
  return undefined
}

/** A file's content the service has no URL for (a bad file row): the request's fault. */
export class NoContentError extends Error {
  override readonly name = 'NoContentError'
}

/** Writes the OS's "came from the internet" mark on a file (internet-mark.ts); never fails the download. */
export type MarkFile = (path: string, source: MarkSource) => Promise<void>

/**
 * Downloads a file's content into the cache (the gateway writes through a temporary name). Its address and
 * name come from the caller when it has the file's row (`known`), else from the service (GET /files/{id}).
 * Either way the gateway sends the token only to the service's own origin. `mark` marks the complete file as
 * come from the internet, with the address it came from, before it is put in place.
 */
export async function downloadToCache(
  gateway: Pick<GatewayLike, 'call' | 'download'>,
  where: { cacheDir: string; accountId: string; fileId: number; known?: { url: string; name: string }; mark?: MarkFile; referrerUrl?: string; lane?: Lane },
  onProgress?: (progress: DownloadProgress) => void,
): Promise<{ path: string; bytes: number }> {
  const file = (where.known ?? (await gateway.call('files.get', { params: { id: where.fileId }, lane: where.lane }))) as
    { url?: unknown; name?: unknown } | undefined
  if (!file || typeof file.url !== 'string') throw new NoContentError(`File ${where.fileId} has no content to download.`)
  const name = safeFileName(typeof file.name === 'string' ? file.name : `file-${where.fileId}`)
  const folder = fileFolder(where.cacheDir, where.accountId, where.fileId)
  const path = join(folder, name)
  try {
    const mark = where.mark
    const beforePlace = mark && ((temp: string, url: URL) => mark(temp, { hostUrl: url.href, referrerUrl: where.referrerUrl }))
    const { bytes } = await gateway.download(file.url, path, onProgress, { beforePlace, lane: where.lane })
    return { path, bytes }
  } catch (error) {
    // The gateway removed its temporary file; the file's folder goes too when nothing else is in it.
    await rmdir(folder).catch(() => undefined)
    throw error
  }
}

/**
 * Storage is short: removes the account's downloaded contents (each can be downloaded again), except the
 * files in `keep` (being opened or downloaded now), and what interrupted downloads left. Returns what went.
 */
export async function evictCache(cacheDir: string, accountId: string, keep: ReadonlySet<number>): Promise<{ removed: number; bytes: number }> {
  const account = join(cacheDir, safeFileName(accountId))
  const out = { removed: 0, bytes: 0 }
  let ids: string[]
  try {
    ids = await readdir(account)
  } catch {
    return out
  }
  for (const id of ids) {
    if (!/^\d+$/.test(id) || keep.has(Number(id))) continue
    const folder = join(account, id)
    // lstat: a link planted here is removed as a link, never followed.
    const info = await lstat(folder).catch(() => undefined)
    if (!info) continue
    if (info.isDirectory()) {
      for (const name of await readdir(folder).catch(() => [] as string[])) {
        const size = (await lstat(join(folder, name)).catch(() => undefined))?.size ?? 0
        if (!name.startsWith('.')) out.removed++
        out.bytes += size
      }
    }
    await rm(folder, { recursive: true, force: true })
  }
  return out
}

/**
 * The first `maxBytes` of a file, as a plain Uint8Array of exactly that
 * length: not a Buffer (whose toJSON would spoil the host's encoding) and not
 * a view into a larger pool (structured clone would copy the whole pool).
 */
export async function readStart(path: string, maxBytes: number): Promise<{ bytes: Uint8Array; size: number; truncated: boolean }> {
  const handle = await open(path, 'r')
  try {
    const { size } = await handle.stat()
    const bytes = new Uint8Array(Math.min(size, maxBytes))
    let filled = 0
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return { bytes: filled === bytes.length ? bytes : bytes.slice(0, filled), size, truncated: filled < size }
  } finally {
    await handle.close()
  }
}
