// The local search as a window opens it: its code (the indexer and MiniSearch)
// is a chunk of its own, loaded once the first screen is painted rather than
// parsed and run before it (even asking for it costs the opening task ~20 ms:
// the loader adds its preload links to the document). Until the chunk is in, queries answer nothing, as they do
// while the index is built; the version store ticks once it is in, so a
// query typed meanwhile runs again.
import type { OutpostDb } from '../db.ts'
import { afterNextFrame } from '../../lib/frames.ts'
import type { LocalSearch, SearchOptions, SearchStats } from './search.ts'

const NOT_LOADED: SearchStats = { documents: 0, building: true, buildMs: 0, longestSliceMs: 0, slices: 0 }

export function createDeferredSearch(db: OutpostDb, options: SearchOptions = {}): LocalSearch {
  let search: LocalSearch | undefined
  let disposed = false
  let version = 0
  const listeners = new Set<(version: number) => void>()
  const bump = () => {
    version++
    for (const run of listeners) run(version)
  }

  const loaded = afterNextFrame()
    .then(() => import('./search.ts'))
    .then(({ createSearch }) => {
      if (disposed) return undefined
      search = createSearch(db, options)
      search.version.subscribe(bump)
      return search
    })
  loaded.catch((error: unknown) => (options.onError ?? console.error)(error))

  // The search told onError of a failed build; a window that never awaits `ready` must not see it unhandled.
  const ready = loaded.then((s) => s?.ready)
  ready.catch(() => {})

  return {
    ready,
    query: (text, queryOptions) => search?.query(text, queryOptions) ?? [],
    version: {
      subscribe(run) {
        listeners.add(run)
        run(version)
        return () => listeners.delete(run)
      },
    },
    settled: () => loaded.then((s) => s?.settled()),
    stats: () => search?.stats() ?? NOT_LOADED,
    dispose() {
      disposed = true
      search?.dispose()
      listeners.clear()
    },
  }
}
