// The cache after the service answered a create or an update (after-delete.ts
// has deletes): its row merged into the server table; after a create, its
// local id the service's in every queued record, the fields the create could
// not carry following as an update, and later writes' bases filled in; and
// later writes of the entity rebased over what the service made of mine. Runs
// inside replay's write: a record journaled again puts the entries it held in
// that write's `replaced`, confirmed once it committed.
import { mergeRow } from '../convert.ts'
import type { OutpostDb } from '../db.ts'
import { rebuildOverlay, rebuildOverlays } from '../overlay.ts'
import { recordProblem } from '../row-checks.ts'
import type { EntityId, OutboxRecord } from '../types.ts'
import { journalAgain, type OutboxJournal } from './journal.ts'
import { localIdsIn, replaceId, sameValue, tableKey, tableOf, type WritableKind } from './kinds.ts'
import { recordsOf } from './queue.ts'
import { REQUESTS, type Row } from './requests.ts'

/** What the write-back needs of the pass (replay.ts). */
export interface WritingBackPass {
  readonly db: OutpostDb
  readonly journal?: OutboxJournal
}

/** The service's answer merged into the cache's row (a create's or an update's). */
export async function putServerRow(db: OutpostDb, kind: WritableKind, id: string, row: Row): Promise<void> {
  const table = tableOf(db, kind)
  const key = tableKey(kind, id) as never
  const merged = mergeRow((await table.get(key)) as Row | undefined, row)
  // A v4 epic has no position; a new one is placed last, until sync reads its real position.
  if (kind === 'epic' && merged.position === undefined) merged.position = Number.MAX_SAFE_INTEGER
  await table.put(merged)
}

/** The local ids of confirmed creates become the service's ids in every queued record (and so in every overlay): one pass over the queue. */
export async function rewriteLocalIds(db: OutpostDb, becomes: ReadonlyMap<string, EntityId>, now: number): Promise<void> {
  if (becomes.size === 0) return
  const touched: Pick<OutboxRecord, 'kind' | 'entityId'>[] = []
  for (const rec of await db.outbox.toArray()) {
    if (recordProblem(rec)) continue
    const named = localIdsIn([rec.entityId, rec.params, rec.payload, rec.base, rec.conflict]).filter((id) => becomes.has(id))
    if (named.length === 0) continue
    touched.push({ kind: rec.kind, entityId: rec.entityId })
    for (const localId of named) {
      const serverId = becomes.get(localId)!
      rec.entityId = String(replaceId(rec.entityId, localId, serverId))
      rec.payload = replaceId(rec.payload, localId, serverId)
      rec.base = replaceId(rec.base, localId, serverId)
      if (rec.params) rec.params = replaceId(rec.params, localId, serverId)
      if (rec.conflict) rec.conflict = replaceId(rec.conflict, localId, serverId)
    }
    await db.outbox.put(rec)
    touched.push(rec)
  }
  await rebuildOverlays(db, touched, now)
}

/**
 * After a confirmed create (inside its transaction, `replaced` its list): what follows it in the queue, and the
 * overlays. Answers the update that follows, if any.
 */
export async function followCreate(
  pass: WritingBackPass,
  replaced: number[],
  cur: OutboxRecord,
  row: Row,
  serverId: string,
  now: number,
): Promise<OutboxRecord | null> {
  const kind = cur.kind as WritableKind
  const localId = cur.entityId
  // Fields the create request cannot carry (an epic archived before it was ever sent) follow as an update,
  // in the create's place in the queue, unless a later write of the entity sets them anyway.
  const later = await recordsOf(pass.db, kind, serverId)
  const laterFields = new Set(later.flatMap((l) => Object.keys(l.payload)))
  const leftover = Object.fromEntries(
    Object.entries(cur.payload).filter(([f, v]) => !REQUESTS[kind].createFields.includes(f) && !laterFields.has(f) && !sameValue(row[f], v)),
  )
  let followed: OutboxRecord | null = null
  if (Object.keys(leftover).length > 0) {
    const follow: OutboxRecord = {
      seq: cur.seq,
      kind,
      entityId: serverId,
      op: 'update',
      payload: leftover,
      base: Object.fromEntries(Object.keys(leftover).map((f) => [f, row[f] ?? null])),
      baseUpdatedAt: row.updated_at as string | undefined,
      state: 'pending',
      attempts: 0,
      createdAt: cur.createdAt,
      updatedAt: now,
      ...(cur.params && { params: replaceId(cur.params, localId, row.id as EntityId) }),
    }
    await pass.db.outbox.put(follow)
    followed = follow
  }
  for (const l of later) {
    if (l.baseUpdatedAt !== undefined || typeof row.updated_at !== 'string') continue
    // Made over my own create before the service answered it: over the version the answer is, where the fields
    // the service fills in itself (who requested an epic) showed empty. Their base is what it filled in; left
    // empty, a later version's value (the same one) would pass for someone else's change.
    l.baseUpdatedAt = row.updated_at
    const filled = Object.keys(l.base).filter((f) => !(f in cur.payload) && row[f] !== undefined && !sameValue(l.base[f], row[f]))
    for (const field of filled) l.base[field] = row[field]
    if (filled.length > 0) replaced.push(...(await journalAgain(pass.db, pass.journal, l)))
    await pass.db.outbox.put(l)
  }
  await rebaseLater(pass, replaced, kind, serverId, cur.payload, row)
  await rebuildOverlay(pass.db, kind, localId, now)
  await rebuildOverlay(pass.db, kind, serverId, now)
  return followed
}

/**
 * Writes of the entity queued after a confirmed one were made over its values (the user saw them): where
 * their base is a value of mine, it becomes what the service made of it (a doc's markdown comes back in
 * the service's own form), or the service's form of my own change would pass for someone else's. Inside a write:
 * the entries of the records journaled again go to its `replaced`.
 */
export async function rebaseLater(pass: WritingBackPass, replaced: number[], kind: string, entityId: string, mine: Row, row: Row): Promise<void> {
  for (const l of await recordsOf(pass.db, kind, entityId)) {
    if (l.state === 'in-flight') continue
    let changed = false
    for (const [field, value] of Object.entries(mine)) {
      if (!(field in l.base) || row[field] === undefined || sameValue(row[field], value) || !sameValue(l.base[field], value)) continue
      l.base[field] = row[field]
      changed = true
    }
    if (!changed) continue
    // So does the journal's copy, or after a loss my own change in the service's form would be a conflict again.
    replaced.push(...(await journalAgain(pass.db, pass.journal, l)))
    await pass.db.outbox.put(l)
  }
}
