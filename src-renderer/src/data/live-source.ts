// Sources of answers for the screens (features/live.svelte.ts): Dexie's live
// queries, kept going through failed runs, and big tables kept by the rows
// each commit names.
import Dexie, { liveQuery, type IndexableType, type Table } from 'dexie'
import type { OutpostDb } from './db.ts'
import { readInPages } from './overlay.ts'
import { retryWait, watchTables } from './watch.ts'

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

/**
 * Every row of a big table (the epics' progress: 10,000 rows), read whole a page at a time, then only the
 * rows each commit names: opening an epic writes its progress row, and a bootstrap's commits name theirs;
 * each was a read of the whole table. A change that names no keys (a table cleared) reads it whole again.
 */
export function keyedTableSource<T, K extends IndexableType, I>(db: OutpostDb, table: Table<T, K, I>): Source<T[]> {
  const keyPath = table.schema.primKey.keyPath as string | string[]
  const keyOf = (row: T) => Dexie.getByKeyPath(row as object, keyPath) as K
  return (observer) => {
    let rows = new Map<K, T>()
    return watchTables(
      db,
      [{ table: table.name }],
      async () => {
        const all = await readInPages(table)
        rows = new Map(all.map((row) => [keyOf(row), row]))
        return all
      },
      observer,
      async (changed) => {
        const keys = (changed.get(table.name) ?? []) as K[]
        const fresh = await table.bulkGet(keys)
        keys.forEach((key, i) => {
          const row = fresh[i]
          if (row === undefined) rows.delete(key)
          else rows.set(key, row)
        })
        return [...rows.values()]
      },
    )
  }
}
