// v4 lists (part 2 §4.1): limit/cursor/order/filter/fields, the envelope, and
// cursors that neither skip nor repeat. The first page takes a snapshot of the
// ordered ids; later pages read from it, so inserts and updates made during a
// walk cannot move an item across a page boundary. Entities are rendered fresh.
import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { PAGE_LIMIT, type ListBody, type ListQuery } from '../src-shared/api/common.ts'
import type { ServiceContext } from './context.ts'
import { ApiError } from './errors.ts'
import type { EntityId } from './store.ts'

const SNAPSHOT_TTL_MS = 6 * 60 * 60 * 1000

export interface ListSource<T> {
  /** Ordered ids for the first page, from the query's order_by/order_dir/filter. */
  select: (query: ListQuery) => EntityId[]
  /** Renders the entities of one page; ids that no longer exist are left out. */
  render: (ids: EntityId[]) => T[]
  /** Names `fields` may carry (the entity's fields). */
  fieldNames: readonly string[]
}

interface Snapshot {
  path: string
  limit: number
}

interface Cursor {
  s: string
  o: number
}

export function origin(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`
}

function pathOf(req: FastifyRequest): string {
  return req.url.split('?')[0]
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url')
}

function decodeCursor(text: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor
    if (typeof c.s === 'string' && Number.isInteger(c.o) && c.o >= 0) return c
  } catch {
    // fall through to the 400 below
  }
  throw ApiError.badRequest('The cursor is not one this service issued.', { cursor: 'invalid' })
}

/** Parses and checks `fields` against what the entity has. */
export function parseFields(fields: string | undefined, allowed: readonly string[]): string[] | undefined {
  if (fields === undefined) return undefined
  const names = fields
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f.length > 0)
  const unknown = names.filter((n) => !allowed.includes(n))
  if (names.length === 0 || unknown.length > 0) {
    throw ApiError.badRequest(
      names.length === 0 ? 'fields names no field.' : `Unknown field${unknown.length > 1 ? 's' : ''} in fields: ${unknown.join(', ')}.`,
      { fields: `allowed: ${allowed.join(', ')}` },
    )
  }
  return names
}

export function pickFields<T extends object>(entity: T, names: string[] | undefined): Partial<T> {
  if (!names) return entity
  const out: Record<string, unknown> = {}
  for (const n of names) if (n in entity) out[n] = (entity as Record<string, unknown>)[n]
  return out as Partial<T>
}

/**
 * One entity with `fields` applied (single GET, create, update), in the v4
 * wrapper `{entity}` the official client expects; `$schema` is added on the way out.
 */
export function oneEntity<T extends object>(entity: T, query: { fields?: string }, allowed: readonly string[]): { entity: Partial<T> } {
  return { entity: pickFields(entity, parseFields(query.fields, allowed)) }
}

export class Pager {
  private readonly stmts

  constructor(private readonly ctx: ServiceContext) {
    const db = ctx.db
    this.stmts = {
      insert: db.prepare<[string, number, string, string]>('INSERT INTO list_snapshots (id, created_at, spec, digest) VALUES (?, ?, ?, ?)'),
      keepIds: db.prepare<[string, string]>('INSERT OR IGNORE INTO list_ids (digest, ids) VALUES (?, ?)'),
      get: db.prepare<[string], { spec: string; ids: string }>(
        'SELECT s.spec, l.ids FROM list_snapshots s JOIN list_ids l ON l.digest = s.digest WHERE s.id = ?',
      ),
      expire: db.prepare<[number]>('DELETE FROM list_snapshots WHERE created_at < ?'),
      forgetIds: db.prepare('DELETE FROM list_ids WHERE digest NOT IN (SELECT digest FROM list_snapshots)'),
    }
  }

  /**
   * Takes the snapshot of a first page. Its ordered ids are stored once per distinct list (by
   * digest): a first page of a list that has not changed since the last one writes a row of a
   * few bytes, not the ids again (60 KB for 10,000 epics, whose writes made SQLite checkpoint its
   * WAL, waiting for the disk, every few dozen first pages). Each snapshot keeps its own time.
   */
  private snapshot(id: string, spec: Snapshot, ids: EntityId[]): void {
    const now = this.ctx.clock()
    const text = JSON.stringify(ids)
    const digest = createHash('sha256').update(text).digest('base64url')
    this.ctx.tx(() => {
      if (this.stmts.expire.run(now - SNAPSHOT_TTL_MS).changes > 0) this.stmts.forgetIds.run()
      this.stmts.keepIds.run(digest, text)
      this.stmts.insert.run(id, now, JSON.stringify(spec), digest)
    })
  }

  list<T extends object>(req: FastifyRequest, query: ListQuery & Record<string, unknown>, source: ListSource<T>): ListBody<Partial<T>> {
    const fields = parseFields(query.fields, source.fieldNames)
    let ids: EntityId[]
    let offset: number
    let snapshotId: string
    let limit: number
    if (query.cursor !== undefined) {
      const others = Object.keys(query).filter((k) => k !== 'cursor' && k !== 'fields' && query[k] !== undefined)
      if (others.length > 0) {
        throw ApiError.badRequest(
          `When cursor is sent, only fields may go with it (also sent: ${others.join(', ')}).`,
          Object.fromEntries(others.map((k) => [k, 'not allowed with cursor'])),
        )
      }
      const cursor = decodeCursor(query.cursor)
      const row = this.stmts.get.get(cursor.s)
      const spec = row ? (JSON.parse(row.spec) as Snapshot) : undefined
      if (!row || !spec || spec.path !== pathOf(req)) {
        throw ApiError.badRequest('The cursor has expired or belongs to another list; start again from the first page.', { cursor: 'expired' })
      }
      ids = JSON.parse(row.ids) as EntityId[]
      offset = cursor.o
      snapshotId = cursor.s
      limit = spec.limit
    } else {
      limit = query.limit ?? PAGE_LIMIT.default
      ids = source.select(query)
      offset = 0
      snapshotId = this.ctx.uuid()
      this.snapshot(snapshotId, { path: pathOf(req), limit }, ids)
    }
    const slice = ids.slice(offset, offset + limit)
    const entities = source.render(slice).map((e) => pickFields(e, fields))
    const body: ListBody<Partial<T>> = {
      entities,
      current_items: entities.length,
      current_page: Math.floor(offset / limit) + 1,
      total_items: ids.length,
      total_pages: Math.max(1, Math.ceil(ids.length / limit)),
    }
    if (offset + limit < ids.length) {
      const next = new URLSearchParams({ cursor: encodeCursor({ s: snapshotId, o: offset + limit }) })
      if (query.fields !== undefined) next.set('fields', query.fields)
      body.next_page_url = `${origin(req)}${pathOf(req)}?${next.toString()}`
    }
    return body
  }
}

/** Sorts records by a field in a direction, ties broken by the original order. */
export function sortBy<T>(items: T[], key: (item: T) => string | number | null | undefined, dir: 'asc' | 'desc' = 'asc'): T[] {
  const sign = dir === 'desc' ? -1 : 1
  return items
    .map((item, index) => ({ item, index, k: key(item) ?? '' }))
    .sort((a, b) => (a.k < b.k ? -sign : a.k > b.k ? sign : (a.index - b.index) * sign))
    .map((x) => x.item)
}
