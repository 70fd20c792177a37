// Staged copies nobody needs any more. A copy goes with its upload
// (files.discard), but a crash between the two, or an outbox record discarded
// while the app was down, leaves it behind for good. The renderer knows which
// copies its outbox still names; everything else in the workspace's staging
// folder goes, once it is old enough that no drop under way can own it.
import { lstat, readdir, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { PARTIAL_STAGED } from './staging.ts'

/**
 * How old an unlisted copy must be before it is swept: a drop stages its copy
 * a moment before its outbox record is written, and another window may sweep
 * in between.
 */
export const STAGED_GRACE_MS = 10 * 60 * 1000

export interface SweepOptions {
  /** Paths of the copies still named by a queued upload: kept whatever their age. */
  keep: Iterable<string>
  now: number
  graceMs?: number
}

export interface SweepOutcome {
  removed: number
  kept: number
}

/** Removes the files of one workspace's staging folder that are not kept and older than the grace period; folders are left alone. */
export async function sweepStaged(folder: string, options: SweepOptions): Promise<SweepOutcome> {
  const keep = new Set(Array.from(options.keep, (p) => resolve(p)))
  const before = options.now - (options.graceMs ?? STAGED_GRACE_MS)
  let entries: string[]
  try {
    entries = await readdir(folder)
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return { removed: 0, kept: 0 }
    throw error
  }
  const outcome: SweepOutcome = { removed: 0, kept: 0 }
  for (const name of entries) {
    const path = join(folder, name)
    // lstat: a link is judged (and removed) as a link, its target is not ours.
    const info = await lstat(path).catch(() => undefined)
    if (!info || info.isDirectory()) continue
    const listed = keep.has(resolve(path)) && !PARTIAL_STAGED.test(name)
    if (listed || info.mtimeMs > before) {
      outcome.kept++
      continue
    }
    await rm(path, { force: true })
    outcome.removed++
  }
  return outcome
}
