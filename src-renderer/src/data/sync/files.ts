// File contents: downloaded when a file is opened, and ahead of use for the
// most recently updated files, within a size budget; the least recently used
// go first when room is needed.
//
// Where the bytes live: on disk, in the main side's file cache folder
// (transport.download writes them there and answers with the path), and
// `fileContents` keeps one row per file (path, size, type, lastUsedAt) for the
// budget and the LRU order. Not in IndexedDB, because files run to 50 MB each:
// Blobs in IndexedDB count against the origin's quota (which Chromium may
// evict wholesale under storage pressure), and would cross IPC on every
// download and every open as structured-clone copies; on disk they stream
// straight from the gateway, the OS opens them with their own application,
// and the renderer only ever holds a path. A file's content never changes
// (v3 PUT /files updates properties only), so a downloaded copy stays valid
// until the file is deleted.
import type { OutpostDb } from '../db.ts'
import { isNotFound, type Transport } from '../transport.ts'
import type { CachedFile, CachedFileContent, EntityId } from '../types.ts'
import { removeFiles } from './cache.ts'
import type { SyncContext } from './context.ts'
import { fileFromV3 } from '../convert.ts'
import type { UploadedFileV3 } from '../../../../src-shared/api/v3/files.ts'

export interface FileCacheDeps {
  db: OutpostDb
  transport: Transport
  clock: () => number
  /** Bytes downloaded contents may take (default 50 MB). */
  budgetBytes: number
}

/** The file no longer exists on the service; it was removed from the cache. */
export class FileGoneError extends Error {
  override readonly name = 'FileGoneError'
  constructor(readonly fileId: EntityId) {
    super(`File ${fileId} no longer exists on the service.`)
  }
}

async function forgetFile(deps: Pick<FileCacheDeps, 'db' | 'transport'>, id: EntityId): Promise<void> {
  const paths = await removeFiles(deps.db, [id])
  await Promise.all(paths.map((p) => deps.transport.discard(p).catch(() => undefined)))
}

/**
 * Frees room for `needed` more bytes by discarding the least recently used
 * contents, never those in `keep` and, when `olderThan` is given, only those
 * last used before it. Downloads under way (`coming`, bytes by file) count as
 * taken until their row is there. Frees nothing unless it can free enough.
 * Returns whether the room is there.
 */
async function makeRoom(
  deps: FileCacheDeps,
  needed: number,
  keep: ReadonlySet<EntityId>,
  olderThan = Infinity,
  coming: ReadonlyMap<EntityId, number> = new Map(),
): Promise<boolean> {
  const rows = await deps.db.fileContents.orderBy('lastUsedAt').toArray()
  const stored = new Set(rows.map((r) => r.id))
  let used = rows.reduce((sum, r) => sum + r.size, 0)
  for (const [id, bytes] of coming) if (!stored.has(id)) used += bytes
  if (used + needed <= deps.budgetBytes) return true
  const victims: CachedFileContent[] = []
  for (const r of rows) {
    if (used + needed <= deps.budgetBytes) break
    if (keep.has(r.id) || r.lastUsedAt >= olderThan) continue
    victims.push(r)
    used -= r.size
  }
  if (used + needed > deps.budgetBytes && olderThan !== Infinity) return false
  if (victims.length > 0) {
    // Rows first: a path whose row is gone is at worst a stray file in the cache folder, never a row without its file.
    await deps.db.fileContents.bulkDelete(victims.map((v) => v.id))
    await Promise.all(victims.map((v) => deps.transport.discard(v.path).catch(() => undefined)))
  }
  return used + needed <= deps.budgetBytes
}

/**
 * The content of a file, downloaded if it is not here yet; marks it used now.
 * A file deleted on the service (404) is removed from the cache: FileGoneError.
 */
export async function openFile(deps: FileCacheDeps, id: EntityId): Promise<CachedFileContent> {
  const have = await deps.db.fileContents.get(id)
  if (have) {
    const used = { ...have, lastUsedAt: deps.clock() }
    await deps.db.fileContents.put(used)
    return used
  }
  let file: CachedFile | undefined = await deps.db.files.get(id)
  try {
    if (!file) {
      file = fileFromV3(await deps.transport.call<UploadedFileV3>('files.get', { params: { id }, lane: 'user-read' }))
      await deps.db.files.put(file)
    }
    const got = await deps.transport.download(Number(file.id), file.url, file.name)
    const row: CachedFileContent = { id: file.id, path: got.path, size: got.size, contentType: got.contentType, lastUsedAt: deps.clock() }
    await deps.db.fileContents.put(row)
    // What the user opened stays, even alone over the budget.
    await makeRoom(deps, 0, new Set([file.id]))
    return row
  } catch (error) {
    if (isNotFound(error)) {
      await forgetFile(deps, id)
      throw new FileGoneError(id)
    }
    throw error
  }
}

/** Downloads a prefetch keeps going at once: each waits on its own round trip, not on the others. */
const PREFETCH_AT_ONCE = 4

/**
 * Downloads the contents of the most recently updated files that fit the
 * budget, PREFETCH_AT_ONCE at a time. A prefetched file counts as used when it
 * was last updated, so a file opened since outranks an older one, and a newer
 * upload can take the place of older prefetched or opened files, never of ones
 * used more recently. Returns how many were downloaded.
 */
export async function prefetchFiles(ctx: SyncContext): Promise<number> {
  const deps: FileCacheDeps = { db: ctx.db, transport: ctx.transport, clock: ctx.clock, budgetBytes: ctx.options.fileBudgetBytes }
  const recent = await ctx.db.files.orderBy('updated_at').reverse().limit(ctx.options.prefetchRecentFiles).toArray()
  const have = new Set((await ctx.db.fileContents.toCollection().primaryKeys()) as EntityId[])
  const none = new Set<EntityId>()
  const running = new Set<Promise<void>>()
  const coming = new Map<EntityId, number>()
  let count = 0
  let failure: { error: unknown } | undefined
  const fetch = async (file: CachedFile & { id: number }, recency: number) => {
    try {
      const got = await ctx.transport.download(file.id, file.url, file.name, 'prefetch')
      await ctx.db.fileContents.put({ id: file.id, path: got.path, size: got.size, contentType: got.contentType, lastUsedAt: recency })
      count++
    } catch (error) {
      if (isNotFound(error)) await forgetFile(deps, file.id)
      else failure ??= { error }
    } finally {
      coming.delete(file.id)
    }
  }
  for (const file of recent) {
    if (failure || ctx.signal?.aborted) break
    if (have.has(file.id) || file.size > deps.budgetBytes || typeof file.id !== 'number') continue
    const recency = Math.min(ctx.clock(), Date.parse(file.updated_at) || 0)
    // Newest first: a file taken earlier in this loop is more recent than this one, so it stays.
    if (!(await makeRoom(deps, file.size, none, recency, coming))) continue
    coming.set(file.id, file.size)
    const download: Promise<void> = fetch(file as CachedFile & { id: number }, recency).finally(() => running.delete(download))
    running.add(download)
    if (running.size >= PREFETCH_AT_ONCE) await Promise.race(running)
  }
  // Nothing is left running behind a failure or a stop.
  await Promise.all(running)
  if (failure) throw failure.error
  ctx.signal?.throwIfAborted()
  return count
}
