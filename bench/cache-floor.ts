// The floor of a bootstrap in the app (interface benchmark): how long Chromium's
// IndexedDB takes to store the rows a bootstrap stored, with nothing else to
// do. The peer of the bootstrap (the data layer alone, in Node) writes to
// fake-indexeddb, in memory; the app writes through the browser's IndexedDB
// backend, which also keeps the rows on disk. This is the part of the app's
// time that no change to the app can remove while its cache is IndexedDB.
//
// Like page-probes.ts, this runs in Chromium and is sent as source text
// (`inPage`): self-contained, no imports, no outer names.

/** What the floor wrote, and how long it took. */
export interface CacheFloor {
  /** ms from the first transaction to the last one's completion. */
  ms: number
  rows: number
  /** The rows' size as JSON: about what IndexedDB serialised. */
  bytes: number
  /** Tables by rows written, with each one's ms. */
  tables: { name: string; rows: number; ms: number }[]
}

/**
 * Reads every row of the workspace's cache (the `outpost:` database this page
 * holds), then writes them again into a new database of the same object stores
 * and indexes, a table at a time, `batch` rows to a transaction (a sync page's
 * size), one transaction after another as the sync writes; and deletes it.
 * The reads are not timed.
 */
export async function writeCacheAgain(batch: number): Promise<CacheFloor> {
  const request = <T>(r: IDBRequest<T>) =>
    new Promise<T>((resolve, reject) => {
      r.onsuccess = () => resolve(r.result)
      r.onerror = () => reject(r.error)
    })
  const open = (name: string, version?: number, upgrade?: (db: IDBDatabase) => void) =>
    new Promise<IDBDatabase>((resolve, reject) => {
      const r = indexedDB.open(name, version)
      if (upgrade) r.onupgradeneeded = () => upgrade(r.result)
      r.onsuccess = () => resolve(r.result)
      r.onerror = () => reject(r.error)
    })
  const name = (await indexedDB.databases()).map((d) => d.name ?? '').find((n) => n.startsWith('outpost:'))
  if (!name) throw new Error('cache floor: the page holds no workspace cache')
  const source = await open(name)
  const stores = [...source.objectStoreNames]
  const reading = source.transaction(stores, 'readonly')
  const tables = await Promise.all(
    stores.map(async (store) => {
      const s = reading.objectStore(store)
      const indexes = [...s.indexNames].map((i) => s.index(i)).map((i) => ({ name: i.name, keyPath: i.keyPath, multiEntry: i.multiEntry, unique: i.unique }))
      return { store, keyPath: s.keyPath, autoIncrement: s.autoIncrement, indexes, rows: await request(s.getAll()) }
    }),
  )
  source.close()

  const copyName = `outpost-cache-floor-${Date.now()}`
  const copy = await open(copyName, 1, (db) => {
    for (const t of tables) {
      const s = db.createObjectStore(t.store, { keyPath: t.keyPath, autoIncrement: t.autoIncrement })
      for (const i of t.indexes) s.createIndex(i.name, i.keyPath, { multiEntry: i.multiEntry, unique: i.unique })
    }
  })
  const written: CacheFloor['tables'] = []
  const started = performance.now()
  for (const t of tables) {
    const tableStarted = performance.now()
    for (let at = 0; at < t.rows.length; at += batch) {
      const tx = copy.transaction([t.store], 'readwrite')
      const s = tx.objectStore(t.store)
      for (const row of t.rows.slice(at, at + batch)) s.put(row)
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve()
        tx.onerror = () => reject(tx.error)
        tx.onabort = () => reject(tx.error)
      })
    }
    if (t.rows.length > 0) written.push({ name: t.store, rows: t.rows.length, ms: performance.now() - tableStarted })
  }
  const ms = performance.now() - started
  copy.close()
  await request(indexedDB.deleteDatabase(copyName))
  const rows = tables.reduce((n, t) => n + t.rows.length, 0)
  const bytes = tables.reduce((n, t) => n + JSON.stringify(t.rows).length, 0)
  return { ms, rows, bytes, tables: written.sort((a, b) => b.rows - a.rows) }
}
