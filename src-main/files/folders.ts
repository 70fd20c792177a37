// The folders whose files are Outpost's own: staged copies of dropped files
// (queued uploads) and downloaded file contents (the file cache). Only files
// in them are uploaded without having been picked, opened with the OS, read
// back to the page or removed; anything else the page names is refused.
import { realpath } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

export interface OwnFolders {
  /** Copies of dropped files, kept until their upload has gone (`<data>/staging`). */
  staging: string
  /** Downloaded file contents (`<data>/files`). */
  cache: string
}

/** Whether `path` lies strictly inside `folder`, by name alone (no symlink is followed). */
export function isInside(folder: string, path: string): boolean {
  if (!isAbsolute(path)) return false
  const rel = relative(resolve(folder), resolve(path))
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

const missing = (error: unknown) => (error as { code?: string }).code === 'ENOENT'

/**
 * Whether an existing file really lies inside `folder`, symlinks followed: a
 * link in the cache that points at ~/.ssh is not inside. False when either is
 * missing.
 */
export async function isReallyInside(folder: string, path: string): Promise<boolean> {
  if (!isInside(folder, path)) return false
  try {
    const [realFolder, realPath] = await Promise.all([realpath(folder), realpath(path)])
    return isInside(realFolder, realPath)
  } catch (error) {
    if (missing(error)) return false
    throw error
  }
}

/**
 * Whether the folder holding `path` really lies in (or is) `folder`: for a
 * path that may not exist yet or any more (removing a file twice). The file
 * itself is not followed, so removing a link removes the link only.
 */
export async function isParentReallyInside(folder: string, path: string): Promise<boolean | 'missing'> {
  if (!isInside(folder, path)) return false
  try {
    const [realFolder, realParent] = await Promise.all([realpath(folder), realpath(dirname(resolve(path)))])
    return realParent === realFolder || isInside(realFolder, realParent)
  } catch (error) {
    if (missing(error)) return 'missing'
    throw error
  }
}
