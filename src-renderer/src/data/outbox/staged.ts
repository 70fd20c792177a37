// Staged copies of dropped files that no queued upload needs any more. A copy
// goes with its upload (replay discards it once the service has the file, and
// a discarded or cancelled upload takes its copy along), but a crash between
// the two leaves it behind for good. Once a session, the copies the outbox
// still names are kept and the main side removes the rest of the workspace's
// staging folder (those older than its grace period: a drop stages its copy a
// moment before its record is written).
import type { OutpostDb } from '../db.ts'
import { outboxLockName, platformLock, type LockFn } from '../lock.ts'
import type { Transport } from '../transport.ts'

/**
 * Every staged path an outbox record names, whatever its state. A record the app cannot read (problems.ts) keeps
 * its copy too, as long as it names one: it may yet be repaired, and the copy is all that is left of the file.
 */
export async function stagedPaths(db: OutpostDb): Promise<string[]> {
  const paths = new Set<string>()
  await db.outbox.each((r: unknown) => {
    const path = (r as { staged?: { path?: unknown } } | null)?.staged?.path
    if (typeof path === 'string') paths.add(path)
  })
  return [...paths]
}

/** Sweeps the staging folder, keeping what the outbox names; under the outbox lock, so no replay changes the outbox meanwhile. */
export function sweepStagedCopies(
  db: OutpostDb,
  transport: Pick<Transport, 'sweepStaged'>,
  lock: LockFn = platformLock(),
): Promise<{ removed: number; kept: number }> {
  return lock(outboxLockName(db.name), async () => transport.sweepStaged(await stagedPaths(db)))
}
