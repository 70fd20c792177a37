// Sources of answers for the screens (features/live.svelte.ts): Dexie's live
// queries, kept going through failed runs, and reads of small tables made
// again when those tables change.
import { liveQuery } from 'dexie'
import type { OutpostDb } from './db.ts'
import { retryWait, watchTables, type Watched } from './watch.ts'
import type { EntityKind } from './types.ts'

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

/** One row of `meta`, as a watched part of a table. */
export const metaRow = (key: string): Watched => ({ table: 'meta', keys: { from: key, to: key } })

/** The overlay rows of one kind (their keys are [kind, id]), as a watched part of a table. */
export const overlayOf = (kind: EntityKind): Watched => ({ table: 'overlay', keys: { from: [kind], to: [kind, []] } })

/**
 * A read of small tables (a workspace's members, teams, states, labels, its outbox), made again after each
 * commit that touches what `watched` names (data/watch.ts). In place of a Dexie liveQuery: a live query adds
 * the keys of every commit, of any table, to a set it empties only when it runs again, so one that reads no
 * table a bootstrap writes merges every commit's keys into a growing tree of key ranges the whole bootstrap
 * long (the window's dozen of them: about 0.45 s of its 5.5 s). The read runs in a transaction over the
 * watched tables only: a read of a table it does not watch fails at once, where it would go stale.
 */
export function tablesSource<T>(db: OutpostDb, watched: Watched[], read: () => Promise<T>): Source<T> {
  const tables = [...new Set(watched.map((w) => w.table))]
  return (observer) => watchTables(db, watched, () => db.transaction('r', tables, read), observer)
}
