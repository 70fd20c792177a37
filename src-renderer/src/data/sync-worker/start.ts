// A workspace window's sync worker: started with the workspace, ended with it
// (after its run has stopped, so the sync lock is let go and its last
// transaction ends; one cut short by the end is rolled back whole, and the
// run resumes from its checkpoint next time).
import { hostAddress, type Bridge } from '../../lib/bridge.ts'
import type { Syncer, SyncerOptions } from '../sync/index.ts'
import { workerSyncer, type SyncWorkerPort } from './remote.ts'

export interface SyncWorker {
  /** A Syncer whose runs happen in the worker (startDataLayer's `syncer`). */
  syncer(config: SyncerOptions): Syncer
  terminate(): void
}

/** A new sync worker, or null where the platform has none (the data layer then syncs in the window). */
export function startSyncWorker(bridge: Bridge): SyncWorker | null {
  if (typeof Worker === 'undefined') return null
  let worker: Worker
  try {
    worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'Outpost sync' })
  } catch (error) {
    console.error('Outpost: the sync worker could not start; syncing in the window.', error)
    return null
  }
  // In the browser host the worker has its own connection: a bootstrap's answers (70 MB of JSON) are
  // decoded there, not in this window. The desktop app's worker asks through this window's bridge.
  const host = bridge.shell === 'browser' ? (hostAddress() ?? undefined) : undefined
  return {
    syncer: (config) =>
      workerSyncer(worker as unknown as SyncWorkerPort, bridge, config, {
        host,
        onFallback: (reason) => {
          console.error(`Outpost: the sync worker could not start (${reason}); syncing in the window.`)
          worker.terminate()
        },
      }),
    terminate: () => worker.terminate(),
  }
}
