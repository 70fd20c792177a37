// Paths of the files the user dropped on the window or picked in a dialog, as
// the preload resolved them, and the files in our own staging folder (copies
// of such files, made by files.stage or the browser host). Uploads take only
// these: the page names a path, but cannot make one up. Staged copies count
// by their folder, so a queued upload still goes after a restart, when the
// drops of the last session are forgotten.
import { isAbsolute } from 'node:path'
import { isInside } from '../files/folders.ts'

export interface PickedFilesOptions {
  /** Keeps the most recent `max` paths: enough for any drop, bounded for a long session. */
  max?: number
  /** Folders whose files are ours (the staging folder). */
  ownFolders?: string[]
}

export class PickedFiles {
  private readonly paths = new Set<string>()
  private readonly max: number
  private readonly ownFolders: string[]

  constructor(options: PickedFilesOptions = {}) {
    this.max = options.max ?? 1_000
    this.ownFolders = options.ownFolders ?? []
  }

  add(path: unknown): void {
    if (typeof path !== 'string' || !isAbsolute(path) || path.length > 4096) return
    this.paths.delete(path)
    this.paths.add(path)
    if (this.paths.size > this.max) this.paths.delete(this.paths.values().next().value as string)
  }

  has(path: string): boolean {
    return this.paths.has(path) || this.isOurs(path)
  }

  /** A file in one of our own folders (staged), by name: those folders hold only what we wrote. */
  isOurs(path: string): boolean {
    return this.ownFolders.some((folder) => isInside(folder, path))
  }
}
