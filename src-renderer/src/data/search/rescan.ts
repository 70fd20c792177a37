// What a write that named no keys changed (a bulk write, a range delete, a
// clear: changes.ts): a table's rows, or the overlay's, compared with the
// stamps the index last read of them.
import type { OutpostDb } from '../db.ts'
import type { EntityId } from '../types.ts'
import { TABLE_OF, documentKey, idOfKey, isSearchKind, type SearchDocument, type SearchKind } from './documents.ts'
import { yieldToEventLoop } from '../../lib/yield.ts'

/** Rows a rescan compares between two turns of the event loop. */
const RESCAN_SLICE = 2_000

/**
 * Ids of rows of `kind` whose updated_at differs from `serverStamps` (what was indexed), or that appeared or
 * went. A row found in the table is no longer only handed: its key leaves `handedKeys`, and a handed key the
 * table lacks is not reported gone.
 */
export async function rescanTable(
  db: OutpostDb,
  kind: SearchKind,
  serverStamps: ReadonlyMap<string, string>,
  documents: ReadonlyMap<string, SearchDocument>,
  handedKeys: Set<string>,
): Promise<EntityId[]> {
  const table = db.table(TABLE_OF[kind])
  const [stamps, ids] = await db.transaction('r', table, () => Promise.all([table.orderBy('updated_at').keys(), table.orderBy('updated_at').primaryKeys()]))
  const changed: EntityId[] = []
  const seen = new Set<string>()
  for (let i = 0; i < ids.length; i++) {
    // 10,000 epics compared at once would be a task of their own; a turn of the event loop now and then.
    if (i > 0 && i % RESCAN_SLICE === 0) await yieldToEventLoop()
    const id = ids[i] as EntityId
    const key = documentKey(kind, id)
    seen.add(key)
    handedKeys.delete(key)
    // A doc indexed without its markdown gets it later under the same updated_at: read those again. Not a doc of
    // the list of every doc (no version yet, ''): the page that completes it brings a version.
    const contentless = kind === 'doc' && stamps[i] !== '' && documents.get(key)?.body === ''
    if (serverStamps.get(key) !== stamps[i] || contentless) changed.push(id)
  }
  const prefix = `${kind}:`
  for (const key of serverStamps.keys()) {
    if (key.startsWith(prefix) && !seen.has(key) && !handedKeys.has(key)) changed.push(idOfKey(key))
  }
  return changed
}

/** Overlay rows written, changed or removed since `overlayStamps` (their updatedAt as last read, by key). */
export async function rescanOverlay(db: OutpostDb, overlayStamps: ReadonlyMap<string, number>): Promise<[SearchKind, EntityId][]> {
  const changed: [SearchKind, EntityId][] = []
  const seen = new Set<string>()
  for (const row of await db.overlay.toArray()) {
    if (!isSearchKind(row.kind)) continue
    const key = documentKey(row.kind, row.id)
    seen.add(key)
    if (overlayStamps.get(key) !== row.updatedAt) changed.push([row.kind, idOfKey(key)])
  }
  for (const key of overlayStamps.keys()) {
    if (!seen.has(key)) changed.push([key.slice(0, key.indexOf(':')) as SearchKind, idOfKey(key)])
  }
  return changed
}
