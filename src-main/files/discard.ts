// Removing a staged copy or a cached content the data layer no longer needs.
// Only a file in one of our own folders goes: a path elsewhere, a folder, or a
// path that reaches outside through a symlinked folder is left alone and
// reported, for the caller to refuse.
import { lstat, rm, rmdir } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { isInside, isParentReallyInside, type OwnFolders } from './folders.ts'

export type DiscardOutcome = 'removed' | 'already-gone' | 'outside' | 'not-a-file'

export async function discardOwnFile(folders: OwnFolders, path: string): Promise<DiscardOutcome> {
  const folder = [folders.staging, folders.cache].find((f) => isInside(f, path))
  if (!folder) return 'outside'
  const parent = await isParentReallyInside(folder, path)
  if (parent === 'missing') return 'already-gone'
  if (!parent) return 'outside'
  const info = await lstat(path).catch((error: { code?: string }) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (!info) return 'already-gone'
  // A link is removed as a link (its target is not ours); a folder is never removed from here.
  if (info.isDirectory()) return 'not-a-file'
  await rm(path, { force: true })
  if (folder === folders.cache) await removeEmptyFolders(dirname(resolve(path)), folder)
  return 'removed'
}

/** The cache's per-file and per-account folders go with their last file; the cache folder itself stays. */
async function removeEmptyFolders(from: string, root: string): Promise<void> {
  for (let dir = from; isInside(root, dir); dir = dirname(dir)) {
    try {
      await rmdir(dir)
    } catch (error) {
      // Not empty (another download, another file): nothing above it is empty either.
      if ((error as { code?: string }).code !== 'ENOENT') return
    }
  }
}
