// What the UI reads: confirmed server rows with the local, not yet confirmed
// changes laid over them. An entity created offline appears under its local id
// (`local:<uuid>`), one deleted offline vanishes, an edited one shows the edit.
//
// Every read here is a plain async function over Dexie calls only, so it can
// run inside `liveQuery(() => mergedEpics(db))` and re-run when the cache,
// the overlay or the id map change.
//
// The overlay row of an entity is always derived from the outbox records still
// queued for it (`rebuildOverlay`): confirming, discarding or resolving a record
// recomputes it, so a rolled-back field shows the server's value again.
//
// A row that is not what Outpost wrote (corrupt, or another program's) is left
// out of every read here; the engine reports it (problems.ts).
import Dexie, { type IndexableType, type Table } from 'dexie'
import { completePartial } from './convert.ts'
import type { OutpostDb } from './db.ts'
import { withResolvedId } from './outbox/ids.ts'
import { draftEntity, rowId, tableKey, tableOf } from './outbox/kinds.ts'
import { overlayProblem, recordProblem, rowProblem } from './row-checks.ts'
import type {
  CachedCategory,
  CachedComment,
  CachedDoc,
  CachedDocEpic,
  CachedEpic,
  CachedFile,
  CachedHealth,
  CachedLabel,
  CachedLinkedFile,
  CachedObjective,
  EntityId,
  EntityKind,
  OutboxRecord,
  OverlayRow,
} from './types.ts'

/** One row with its overlay: undefined when deleted locally (or when only a patch is left of a row the cache lost). */
export function applyOverlay<T>(row: T | undefined, overlay: OverlayRow | undefined): T | undefined {
  if (!overlay || overlayProblem(overlay)) return row
  if (overlay.deleted) return undefined
  if (overlay.created) return overlay.patch as T
  if (row === undefined) return undefined
  const merged: Record<string, unknown> = { ...row, ...overlay.patch }
  // A partial epic or doc holds the description or text the user wrote.
  completePartial(merged, overlay.patch)
  return merged as T
}

export interface MergedOptions<T> {
  /** Narrow the server rows by an index whose value local changes never alter (a comment's epic_id). */
  where?: { index: string; value: IndexableType }
  /** Keep only the merged rows that pass. */
  filter?: (row: T) => boolean
}

/**
 * Rows a whole-table read asks for at once: 10,000 epics come in 10 requests, none of which holds the
 * main thread long (a page is decoded in one task: 2,000 epics took 40-60 ms of it while a bootstrap ran).
 */
const PAGE_ROWS = 1_000
/**
 * Pages read in one read-only transaction. While the sync worker writes page after page, each transaction waits
 * behind its writes: at 50,000 epics, 50 transactions of a page took 23 s to read the epics the v3 list had just
 * stored, one transaction 3.2 s. One transaction holds the worker's writes as long as it reads, though, which its
 * walk feels once that is longer than the pages it asks for ahead cover (a second or so): 8 pages, about half a
 * second of reading, is one wait instead of eight, and a pause in the worker's writes it takes in its stride.
 */
const PAGES_PER_TRANSACTION = 8

/**
 * Every row of a table in primary-key order, a page per request (each page is decoded in a task of its own), and
 * PAGES_PER_TRANSACTION pages to a read-only transaction.
 */
export async function readInPages<T, K, I>(table: Table<T, K, I>, pageRows = PAGE_ROWS): Promise<T[]> {
  const keyPath = table.schema.primKey.keyPath as string | string[]
  const rows: T[] = []
  let last: IndexableType | undefined
  let more = true
  const page = () => (last === undefined ? table.limit(pageRows) : table.where(':id').above(last).limit(pageRows)).toArray()
  while (more) {
    await table.db.transaction('r', table, async () => {
      for (let i = 0; i < PAGES_PER_TRANSACTION && more; i++) {
        const rowsOfPage = await page()
        rows.push(...rowsOfPage)
        more = rowsOfPage.length === pageRows
        if (rowsOfPage.length > 0) last = Dexie.getByKeyPath(rowsOfPage[rowsOfPage.length - 1] as object, keyPath) as IndexableType
      }
    })
  }
  return rows
}

/** Every entity of a kind as the user sees it. */
export function merged<T>(db: OutpostDb, kind: EntityKind, options: MergedOptions<T> = {}): Promise<T[]> {
  const table = tableOf(db, kind) as Table<T>
  const where = options.where
  const source = where ? table.where(where.index).equals(where.value).toArray() : readInPages(table)
  // Both reads start now, in the caller's live-query scope.
  return Promise.all([source, db.overlay.where('kind').equals(kind).toArray()]).then(([rows, overlays]) => mergeRows(kind, rows, overlays, options))
}

/** Server rows of a kind with its overlay rows laid over them, and what was created here added. */
function mergeRows<T>(kind: EntityKind, rows: T[], overlays: OverlayRow[], options: MergedOptions<T>): T[] {
  const where = options.where
  const byId = new Map(overlays.map((o) => [o.id, o]))
  const out: T[] = []
  const keep = (row: T | undefined) => {
    if (row !== undefined && (!options.filter || options.filter(row))) out.push(row)
  }
  for (const row of rows) {
    if (rowProblem(kind, row)) continue
    const id = rowId(kind, row as Record<string, unknown>)
    keep(applyOverlay(row, byId.get(id)))
    byId.delete(id)
  }
  for (const o of byId.values()) {
    if (!o.created || o.deleted || overlayProblem(o)) continue
    if (where && (o.patch as Record<string, unknown>)[where.index] !== where.value) continue
    keep(o.patch as T)
  }
  return out
}

/** One entity as the user sees it; a local id that has since been confirmed finds the entity under its service id. */
export function mergedOne<T>(db: OutpostDb, kind: EntityKind, id: EntityId): Promise<T | undefined> {
  const read = (resolved: EntityId) => {
    const key = String(resolved)
    // Both reads start now, in the caller's live-query scope.
    const row = tableOf(db, kind).get(tableKey(kind, key) as IndexableType) as Promise<T | undefined>
    const overlay = db.overlay.get([kind, key])
    return Promise.all([row, overlay]).then(([r, o]) => applyOverlay(r === undefined || rowProblem(kind, r) ? undefined : r, o))
  }
  return kind === 'docEpic' ? read(id) : withResolvedId(db, kind, id, read)
}

// ---- the reads the UI uses ----
// None awaits anything before its reads start, so each works inside
// `liveQuery(() => ...)` as well as `liveQuery(async () => ...)`.

export const mergedEpics = (db: OutpostDb, options: { archived?: boolean } = {}) =>
  merged<CachedEpic>(db, 'epic', { filter: options.archived === undefined ? undefined : (e) => e.archived === options.archived })
export const mergedEpic = (db: OutpostDb, id: EntityId) => mergedOne<CachedEpic>(db, 'epic', id)

/**
 * Keys a read by key asks for in one task: each is a request the main thread makes, and the thousands a
 * bootstrap's commits name at once took 40-50 ms in one task.
 */
const KEYS_AT_ONCE = 500

type RowsAndOverlays = [(Record<string, unknown> | undefined)[], (OverlayRow | undefined)[]]

/**
 * Rows of a kind by their table keys, each with its overlay row: the rows one request each, the kind's
 * overlay rows (few: the changes not yet confirmed) in one. Each KEYS_AT_ONCE rows are read with the
 * overlay rows in one transaction, so a row and its overlay row always agree; a change made between two
 * of them is told again, as every change is.
 */
export async function rowsWithOverlays(db: OutpostDb, kind: EntityKind, keys: readonly EntityId[]): Promise<RowsAndOverlays> {
  if (keys.length <= KEYS_AT_ONCE) return someRowsWithOverlays(db, kind, keys)
  const out: RowsAndOverlays = [[], []]
  for (let i = 0; i < keys.length; i += KEYS_AT_ONCE) {
    const [rows, overlays] = await someRowsWithOverlays(db, kind, keys.slice(i, i + KEYS_AT_ONCE))
    out[0].push(...rows)
    out[1].push(...overlays)
  }
  return out
}

function someRowsWithOverlays(db: OutpostDb, kind: EntityKind, keys: readonly EntityId[]): Promise<RowsAndOverlays> {
  const table = tableOf(db, kind) as Table<Record<string, unknown>, EntityId>
  return db.transaction('r', [table, db.overlay], async () => {
    const [rows, overlays] = await Promise.all([table.bulkGet(keys as EntityId[]), db.overlay.where(':id').between([kind], [kind, []]).toArray()])
    const byId = new Map(overlays.map((o) => [o.id, o]))
    return [rows, keys.map((key) => byId.get(String(key)))]
  })
}

/**
 * Some epics as the user sees them, by id (as the list keeps them: `String(id)`); undefined for one
 * that is gone (deleted, or never there). What a whole read would show of them.
 */
export async function mergedEpicsById(db: OutpostDb, ids: string[]): Promise<Map<string, CachedEpic | undefined>> {
  // Each row read with its overlay row in one transaction (rowsWithOverlays), in the order of `ids`.
  const [rows, overlays] = await rowsWithOverlays(
    db,
    'epic',
    ids.map((id) => tableKey('epic', id) as EntityId),
  )
  return new Map(
    ids.map((id, i) => {
      const row = rows[i] as CachedEpic | undefined
      return [id, applyOverlay(row === undefined || rowProblem('epic', row) ? undefined : row, overlays[i])]
    }),
  )
}

/** Epics the sync handed this window before storing them (handed-rows.ts), by `String(id)`, as the user sees them. */
export async function mergedHandedEpics(db: OutpostDb, rows: readonly CachedEpic[]): Promise<Map<string, CachedEpic | undefined>> {
  const overlays = new Map((await db.overlay.where('kind').equals('epic').toArray()).map((o) => [o.id, o]))
  return new Map(rows.map((row) => [String(row.id), applyOverlay(row, overlays.get(String(row.id)))]))
}

/**
 * The `count` most recently updated epics as the user sees them, with those
 * created here: what the epic list's first screen shows while all of them
 * (10,000) are read. An old epic edited here may be missing until then.
 */
export function recentEpics(db: OutpostDb, count: number): Promise<CachedEpic[]> {
  return Promise.all([db.epics.orderBy('updated_at').reverse().limit(count).toArray(), db.overlay.where('kind').equals('epic').toArray()]).then(
    ([rows, overlays]) => mergeRows<CachedEpic>('epic', rows, overlays, {}),
  )
}

/**
 * The comments of an epic, replies included (each knows its parent_id), oldest first; a reply made in the same
 * millisecond as its comment (both queued here, stamped with the time they were made) after it.
 */
export function mergedComments(db: OutpostDb, epicId: EntityId): Promise<CachedComment[]> {
  return withResolvedId(db, 'epic', epicId, (id) =>
    merged<CachedComment>(db, 'comment', { where: { index: 'epic_id', value: id as IndexableType } }).then((list) =>
      list.sort((a, b) => a.created_at.localeCompare(b.created_at) || Number(a.parent_id === b.id) - Number(b.parent_id === a.id)),
    ),
  )
}

/** The health history of an epic, newest first (the first is the current one). */
export function mergedHealth(db: OutpostDb, epicId: EntityId): Promise<CachedHealth[]> {
  return withResolvedId(db, 'epic', epicId, (id) =>
    merged<CachedHealth>(db, 'health', { where: { index: 'epic_id', value: id as IndexableType } }).then((list) =>
      list.sort((a, b) => b.created_at.localeCompare(a.created_at)),
    ),
  )
}

export const mergedDocs = (db: OutpostDb) => merged<CachedDoc>(db, 'doc')
export const mergedDoc = (db: OutpostDb, id: EntityId) => mergedOne<CachedDoc>(db, 'doc', id)

/** Doc-epic links, of one doc or of one epic. */
export function mergedDocEpics(db: OutpostDb, of: { docId?: EntityId; epicId?: EntityId }): Promise<CachedDocEpic[]> {
  const links = (docId: EntityId | undefined, epicId: EntityId | undefined) => {
    const where = docId !== undefined ? { index: 'doc_id', value: docId } : epicId !== undefined ? { index: 'epic_id', value: epicId } : undefined
    return merged<CachedDocEpic>(db, 'docEpic', {
      where: where as MergedOptions<CachedDocEpic>['where'],
      filter: (l) => (docId === undefined || l.doc_id === docId) && (epicId === undefined || l.epic_id === epicId),
    })
  }
  if (of.docId !== undefined) {
    const docId = of.docId
    return withResolvedId(db, 'doc', docId, (doc) =>
      of.epicId === undefined ? links(doc, undefined) : withResolvedId(db, 'epic', of.epicId, (epic) => links(doc, epic)),
    )
  }
  if (of.epicId !== undefined) return withResolvedId(db, 'epic', of.epicId, (epic) => links(undefined, epic))
  return links(undefined, undefined)
}

export const mergedFiles = (db: OutpostDb) => merged<CachedFile>(db, 'file')
export const mergedFile = (db: OutpostDb, id: EntityId) => mergedOne<CachedFile>(db, 'file', id)
export const mergedLinkedFiles = (db: OutpostDb) => merged<CachedLinkedFile>(db, 'linkedFile')
export const mergedLinkedFile = (db: OutpostDb, id: EntityId) => mergedOne<CachedLinkedFile>(db, 'linkedFile', id)
export const mergedCategories = (db: OutpostDb) => merged<CachedCategory>(db, 'category')
export const mergedCategory = (db: OutpostDb, id: EntityId) => mergedOne<CachedCategory>(db, 'category', id)
export const mergedObjectives = (db: OutpostDb) => merged<CachedObjective>(db, 'objective')
export const mergedObjective = (db: OutpostDb, id: EntityId) => mergedOne<CachedObjective>(db, 'objective', id)
/** Labels, those made offline included (under their local id until the service has them). */
export const mergedLabels = (db: OutpostDb) => merged<CachedLabel>(db, 'label')
export const mergedLabel = (db: OutpostDb, id: EntityId) => mergedOne<CachedLabel>(db, 'label', id)

/** The local state of one entity: whether it has unconfirmed changes, and which fields. */
export function overlayOf(db: OutpostDb, kind: EntityKind, id: EntityId): Promise<OverlayRow | undefined> {
  const read = (resolved: EntityId) => db.overlay.get([kind, String(resolved)])
  return kind === 'docEpic' ? read(id) : withResolvedId(db, kind, id, read)
}

// ---- overlay writes (inside the outbox's transactions) ----

/** The member the token belongs to, once replay has asked the service (an offline create shows them as author). */
export async function currentMemberId(db: OutpostDb): Promise<string | null> {
  const row = await db.meta.get('outbox:me')
  return (row?.value as string | undefined) ?? null
}

/**
 * Recomputes an entity's overlay row from the records still queued for it, in
 * order: a create gives the whole entity, updates lay their fields over it (or
 * over the server row), a delete hides it. No records, no overlay. Call inside
 * a transaction that covers `outbox`, `overlay` and `meta`.
 */
/** Kinds whose rows carry updated_at (a local update moves it). */
const STAMPED = new Set<EntityKind>(['epic', 'comment', 'doc', 'file', 'linkedFile', 'category', 'objective'])

export async function rebuildOverlay(db: OutpostDb, kind: EntityKind, id: string, now: number): Promise<void> {
  const records = (await db.outbox.where('[kind+entityId]').equals([kind, id]).toArray())
    .filter((r) => recordProblem(r) === null)
    .sort((a, b) => a.seq! - b.seq!)
  if (records.length === 0) {
    await db.overlay.delete([kind, id])
    return
  }
  const me = await currentMemberId(db)
  let patch: Record<string, unknown> = {}
  let created = false
  let deleted = false
  for (const r of records) {
    if (r.op === 'create') {
      created = true
      patch = draftEntity(kind, id, r.payload, r.params ?? {}, { now: r.createdAt, me, externalId: r.externalId })
    } else if (r.op === 'update') {
      // A local change is the entity's latest: "last updated" orders and shows it by when it was made here.
      const at = new Date(Math.max(r.createdAt, r.updatedAt ?? 0)).toISOString()
      patch = { ...patch, ...r.payload, ...(STAMPED.has(kind) && { updated_at: at }) }
    } else if (r.op === 'delete') {
      deleted = true
    }
  }
  await db.overlay.put({ kind, id, patch, created, deleted, updatedAt: now })
}

/** Rebuilds the overlay of every entity the given records write. */
export async function rebuildOverlays(db: OutpostDb, records: Pick<OutboxRecord, 'kind' | 'entityId'>[], now: number): Promise<void> {
  const seen = new Set<string>()
  for (const r of records) {
    const key = `${r.kind}\u0000${r.entityId}`
    if (seen.has(key)) continue
    seen.add(key)
    await rebuildOverlay(db, r.kind, r.entityId, now)
  }
}
