// Rows of the local database that are not what Outpost wrote there: a corrupt
// record, one written by an older or foreign program, a field of the wrong
// type. They are skipped, never fatal (the merged reads leave them out, replay
// does not send them, sync writes the service's copy over them), and reported:
// a list in `meta` the UI reads like any cached data,
//
//   const problems = liveQuery(() => dataProblems(db))
//
// A problem stays listed until the row is gone or fixed (see reportCacheProblems),
// or until the user removes the rows (discardUnreadable).
import type { IndexableType } from 'dexie'
import type { OutpostDb } from './db.ts'
import { rebuildOverlay } from './overlay.ts'
import { overlayProblem, recordProblem, rowProblem } from './row-checks.ts'
import type { EntityKind } from './types.ts'

export const PROBLEMS_KEY = 'data.problems'

/** At most this many are kept: one bad table must not fill the database with reports of itself. */
const MAX_PROBLEMS = 200

export interface DataProblem {
  /** The Dexie table (`epics`, `outbox`, ...). */
  table: string
  /** The row's primary key, as text. */
  key: string
  /** What is wrong with it, in a few words. */
  reason: string
  /** When it was first seen (client clock). */
  at: number
}

/** The problems found so far (liveQuery-friendly: one read). */
export async function dataProblems(db: OutpostDb): Promise<DataProblem[]> {
  const row = await db.meta.get(PROBLEMS_KEY)
  return Array.isArray(row?.value) ? (row.value as DataProblem[]) : []
}

/**
 * Adds problems to the list (one per table and key; the first report's time is kept). Writes only when
 * something is new. Call inside a transaction over `meta`, or outside any transaction.
 */
export async function reportProblems(db: OutpostDb, found: Omit<DataProblem, 'at'>[], now: number = Date.now()): Promise<void> {
  if (found.length === 0) return
  const list = await dataProblems(db)
  const known = new Set(list.map(problemKey))
  const fresh: DataProblem[] = []
  for (const p of found) {
    if (known.has(problemKey(p))) continue
    known.add(problemKey(p))
    fresh.push({ ...p, at: now })
  }
  if (fresh.length === 0) return
  await db.meta.put({ key: PROBLEMS_KEY, value: [...list, ...fresh].slice(-MAX_PROBLEMS) })
}

const problemKey = (p: Pick<DataProblem, 'table' | 'key'>) => `${p.table}\u0000${p.key}`

/** A primary key as the list shows it. */
export const keyText = (key: unknown): string => (typeof key === 'string' || typeof key === 'number' ? String(key) : JSON.stringify(key))

/** The tables of cached rows, with the kind their rows are. */
const CACHE_TABLES: [string, EntityKind][] = [
  ['epics', 'epic'],
  ['epicComments', 'comment'],
  ['epicHealth', 'health'],
  ['docs', 'doc'],
  ['docEpics', 'docEpic'],
  ['files', 'file'],
  ['linkedFiles', 'linkedFile'],
  ['categories', 'category'],
  ['objectives', 'objective'],
  ['groups', 'group'],
  ['members', 'member'],
  ['epicStates', 'epicState'],
  ['customFields', 'customField'],
  ['labels', 'label'],
]

/**
 * Looks through the whole database once (the engine does at start) and makes the list what it finds:
 * new problems are added, fixed or removed rows drop off. Answers the list.
 */
export async function reportCacheProblems(db: OutpostDb, now: number = Date.now()): Promise<DataProblem[]> {
  const found: Omit<DataProblem, 'at'>[] = []
  const check = async (table: string, problem: (row: unknown) => string | null) => {
    await db.table(table).each((row: unknown, cursor) => {
      const reason = problem(row)
      if (reason) found.push({ table, key: keyText(cursor.primaryKey), reason })
    })
  }
  for (const [table, kind] of CACHE_TABLES) await check(table, (row) => rowProblem(kind, row))
  await check('overlay', overlayProblem)
  await check('outbox', recordProblem)
  return db.transaction('rw', db.meta, async () => {
    const before = new Map((await dataProblems(db)).map((p) => [problemKey(p), p]))
    const list = found.slice(0, MAX_PROBLEMS).map((p) => before.get(problemKey(p)) ?? { ...p, at: now })
    if (list.length > 0 || before.size > 0) await db.meta.put({ key: PROBLEMS_KEY, value: list })
    return list
  })
}

// ---- removing them ----

/**
 * The sync kind that brings a table's rows back, and how to make its next run do so: a whole list is made due
 * (one request), a walk of v4 pages reads every page once (rewriting only the rows it lacks or that are older).
 * Comments, health and doc links come back when their epic or doc is opened.
 */
const REFETCH: Record<string, { kind: string; patch: Record<string, unknown> }> = {
  ...Object.fromEntries(
    ['members', 'groups', 'epicStates', 'categories', 'objectives', 'labels', 'customFields', 'files', 'linkedFiles'].map((t) => [
      t,
      { kind: t, patch: { syncedAt: null } },
    ]),
  ),
  epics: { kind: 'epics', patch: { since: null } },
  docs: { kind: 'docs', patch: { since: null } },
}

/** Why a row of a table is unreadable (null: it reads fine), for the tables reportCacheProblems looks through. */
function problemOf(table: string): ((row: unknown) => string | null) | undefined {
  if (table === 'overlay') return overlayProblem
  if (table === 'outbox') return recordProblem
  const kind = CACHE_TABLES.find(([t]) => t === table)?.[1]
  return kind ? (row) => rowProblem(kind, row) : undefined
}

const text = (v: unknown): v is string => typeof v === 'string' && v !== ''

/**
 * Removes the rows behind these problems, what the user asks for when they are not worth keeping, and drops the
 * problems from the list. Only a row that is still unreadable goes (one a sync has fixed meanwhile stays).
 * - A cached row: the next sync fetches the service's copy again (see REFETCH).
 * - A local change (overlay): made again from the writes still queued for its entity.
 * - A queued write (outbox) that cannot be read: it was never sent (replay skips it), so nothing of it reaches
 *   the service; the local change of the entity it names is made again without it. A staged copy it named is
 *   swept with the others no write names (outbox/staged.ts).
 * Answers how many rows were removed.
 */
export async function discardUnreadable(db: OutpostDb, problems: readonly Pick<DataProblem, 'table' | 'key'>[], now: number = Date.now()): Promise<number> {
  const wanted = new Map<string, Set<string>>()
  for (const p of problems) if (problemOf(p.table)) wanted.set(p.table, (wanted.get(p.table) ?? new Set()).add(p.key))
  return db.transaction('rw', db.tables, async () => {
    let removed = 0
    const rebuild: [EntityKind, string][] = []
    for (const [table, keys] of wanted) {
      const problem = problemOf(table)!
      const doomed: { key: IndexableType; row: unknown }[] = []
      await db.table(table).each((row: unknown, cursor) => {
        if (keys.has(keyText(cursor.primaryKey)) && problem(row)) doomed.push({ key: cursor.primaryKey, row })
      })
      if (doomed.length === 0) continue
      await db.table(table).bulkDelete(doomed.map((d) => d.key))
      removed += doomed.length
      for (const { key, row } of doomed) {
        if (table === 'overlay' && Array.isArray(key) && text(key[0]) && text(key[1])) rebuild.push([key[0] as EntityKind, key[1]])
        const r = row as { kind?: unknown; entityId?: unknown } | null
        if (table === 'outbox' && text(r?.kind) && text(r?.entityId)) rebuild.push([r.kind as EntityKind, r.entityId])
      }
      const refetch = REFETCH[table]
      if (refetch) await db.checkpoints.update(refetch.kind, refetch.patch)
    }
    for (const [kind, id] of rebuild) await rebuildOverlay(db, kind, id, now)
    // Listed no more: each one of these tables is removed now, or was gone or fixed already.
    const gone = new Set(problems.filter((p) => wanted.has(p.table)).map(problemKey))
    const list = await dataProblems(db)
    if (list.some((p) => gone.has(problemKey(p)))) await db.meta.put({ key: PROBLEMS_KEY, value: list.filter((p) => !gone.has(problemKey(p))) })
    return removed
  })
}
