// Paths of the files the user dropped on the window or picked in a dialog, as
// the preload resolved them. Uploads take only these: the page names a path,
// but cannot make one up.
import { isAbsolute } from 'node:path'

export class PickedFiles {
  private readonly paths = new Set<string>()

  /** Keeps the most recent `max` paths: enough for any drop, bounded for a long session. */
  constructor(private readonly max = 1_000) {}

  add(path: unknown): void {
    if (typeof path !== 'string' || !isAbsolute(path) || path.length > 4096) return
    this.paths.delete(path)
    this.paths.add(path)
    if (this.paths.size > this.max) this.paths.delete(this.paths.values().next().value as string)
  }

  has(path: string): boolean {
    return this.paths.has(path)
  }
}
