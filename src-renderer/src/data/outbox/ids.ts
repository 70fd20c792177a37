// Local ids of entities created offline, and the service ids they became.
// Once a create is confirmed, the queued records that named its local id are
// rewritten; the map stays so that a screen still holding the local id (or an
// action the UI sends a moment later) finds the entity under its new id.
import type { OutpostDb } from '../db.ts'
import type { EntityId, EntityKind } from '../types.ts'
import { isLocalId, LOCAL_PREFIX, typedId } from './kinds.ts'

const KEY = 'outbox:id:'

export interface ConfirmedId {
  kind: EntityKind
  id: EntityId
  /** When the create was confirmed (client clock). */
  at: number
}

export function newLocalId(uuid: () => string): string {
  return `${LOCAL_PREFIX}${uuid()}`
}

/** Inside a transaction over `meta`: remembers what a local id became. */
export async function rememberServerId(db: OutpostDb, localId: string, confirmed: ConfirmedId): Promise<void> {
  await db.meta.put({ key: KEY + localId, value: confirmed })
}

/** The service id a local id became, or the id itself when it is not local or not confirmed yet. */
export async function resolveId(db: OutpostDb, kind: EntityKind, id: EntityId): Promise<EntityId> {
  if (!isLocalId(id)) return typedId(kind, id)
  const row = await db.meta.get(KEY + id)
  return row ? (row.value as ConfirmedId).id : id
}

/**
 * Runs `read` with the id resolved, issuing its reads synchronously when the id
 * is not local (and otherwise inside a Dexie promise callback), so that a
 * live query tracks every read whether its querier is async or not.
 */
export function withResolvedId<R>(db: OutpostDb, kind: EntityKind, id: EntityId, read: (resolved: EntityId) => Promise<R>): Promise<R> {
  if (!isLocalId(id)) return read(typedId(kind, id))
  return db.meta.get(KEY + id).then((row) => read(row ? (row.value as ConfirmedId).id : id))
}

/** Service ids of a kind that confirmed creates of ours became (a create found again must not adopt one of them twice). */
export async function claimedIds(db: OutpostDb, kind: EntityKind): Promise<Set<string>> {
  const rows = await db.meta.where('key').startsWith(KEY).toArray()
  return new Set(
    rows
      .map((r) => r.value as ConfirmedId)
      .filter((v) => v.kind === kind)
      .map((v) => String(v.id)),
  )
}
