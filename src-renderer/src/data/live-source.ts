// Dexie's live queries as sources of answers for the screens (features/live.svelte.ts),
// kept going through failed runs.
import { liveQuery } from 'dexie'
import { retryWait } from './watch.ts'

/** Where a Live's answers come from: it starts delivering them, and returns how to stop. A partial answer (a first screen) comes before the whole one. */
export type Source<T> = (observer: { next(value: T, partial?: boolean): void; error(error: unknown): void }) => () => void

/**
 * A Dexie liveQuery: re-run on every commit that touches what it read. A run that fails is reported and the
 * query started again after a wait (watch.ts retryWait): Dexie runs a failed query again only when a commit
 * touches what its last good run read, which for a first run is nothing, so a screen would wait for ever.
 */
export const liveSource =
  <T>(query: () => Promise<T>): Source<T> =>
  (observer) => {
    let subscription: { unsubscribe(): void } | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    let failures = 0
    const start = () => {
      subscription = liveQuery(query).subscribe({
        next: (value) => {
          failures = 0
          observer.next(value)
        },
        error: (error) => {
          observer.error(error)
          subscription?.unsubscribe()
          timer = setTimeout(start, retryWait(++failures))
        },
      })
    }
    start()
    return () => {
      clearTimeout(timer)
      subscription?.unsubscribe()
    }
  }
