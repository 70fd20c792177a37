// Typed access to the entities table: one Collection per kind of resource.
import type { Statement } from 'better-sqlite3'
import type { Db } from './db.ts'
import { ApiError } from './errors.ts'

export type EntityId = number | string

/** What every stored record carries. */
export interface StoredRecord {
  id: EntityId
  created_at: string
  updated_at: string
}

/** The indexed columns a kind derives from its record. */
export interface Columns {
  name?: string | null
  archived?: boolean
  external_id?: string | null
  parent?: EntityId | null
  position?: number | null
}

export type OrderColumn = 'seq' | 'name' | 'updated_at' | 'created_at' | 'position'

export interface CollectionOptions<T> {
  /** Human name used in 404 messages, e.g. "Epic". */
  label: string
  /** Integer public ids (epics, categories...) or uuids (docs, members...). */
  intId: boolean
  columns?: (record: T) => Columns
}

interface Row {
  data: string
}

export class Collection<T extends StoredRecord> {
  readonly kind: string
  readonly label: string
  readonly intId: boolean
  private readonly db: Db
  private readonly columnsOf: (record: T) => Columns
  private readonly stmts

  private readonly sequence: Sequence
  /** ids() statements by their SQL (a handful per kind: filters and orders). */
  private readonly idStatements = new Map<string, Statement<(string | number)[], EntityId>>()

  constructor(db: Db, kind: string, options: CollectionOptions<T>) {
    this.db = db
    this.sequence = new Sequence(db)
    this.kind = kind
    this.label = options.label
    this.intId = options.intId
    this.columnsOf = options.columns ?? (() => ({}))
    this.stmts = {
      get: db.prepare<[string, string], Row>('SELECT data FROM entities WHERE kind = ? AND id = ?'),
      all: db.prepare<[string], Row>('SELECT data FROM entities WHERE kind = ? ORDER BY seq'),
      byParent: db.prepare<[string, string], Row>('SELECT data FROM entities WHERE kind = ? AND parent = ? ORDER BY seq'),
      // Many ids or parents in one statement: a JSON array of them, as text (ids and parents are stored as text).
      getMany: db.prepare<[string, string], Row>('SELECT data FROM entities WHERE kind = ? AND id IN (SELECT value FROM json_each(?))'),
      // By parent first, so SQLite walks entities_by_parent for each parent (by seq alone it walks every row of the kind).
      byParents: db.prepare<[string, string], Row & { parent: string }>(
        'SELECT parent, data FROM entities WHERE kind = ? AND parent IN (SELECT value FROM json_each(?)) ORDER BY parent, seq',
      ),
      byName: db.prepare<[string, string], Row>('SELECT data FROM entities WHERE kind = ? AND name = ? ORDER BY seq'),
      count: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM entities WHERE kind = ?'),
      insert: db.prepare(
        `INSERT INTO entities (kind, id, seq, name, archived, external_id, parent, position, created_at, updated_at, data)
         VALUES (@kind, @id, @seq, @name, @archived, @external_id, @parent, @position, @created_at, @updated_at, @data)`,
      ),
      update: db.prepare(
        `UPDATE entities SET name = @name, archived = @archived, external_id = @external_id, parent = @parent,
         position = @position, updated_at = @updated_at, data = @data WHERE kind = @kind AND id = @id`,
      ),
      delete: db.prepare<[string, string]>('DELETE FROM entities WHERE kind = ? AND id = ?'),
    }
  }

  get(id: EntityId): T | undefined {
    const row = this.stmts.get.get(this.kind, String(id))
    return row ? (JSON.parse(row.data) as T) : undefined
  }

  /** The record, or a 404 naming what was missing. */
  require(id: EntityId): T {
    const record = this.get(id)
    if (!record) throw ApiError.notFound(`${this.label} ${id} does not exist.`)
    return record
  }

  has(id: EntityId): boolean {
    return this.stmts.get.get(this.kind, String(id)) !== undefined
  }

  all(): T[] {
    return this.stmts.all.all(this.kind).map((r) => JSON.parse(r.data) as T)
  }

  byParent(parent: EntityId): T[] {
    return this.stmts.byParent.all(this.kind, String(parent)).map((r) => JSON.parse(r.data) as T)
  }

  /** The records of these ids, by id as text; ids that do not exist are absent. One statement for all of them. */
  getMany(ids: readonly EntityId[]): Map<string, T> {
    const found = new Map<string, T>()
    if (ids.length === 0) return found
    for (const r of this.stmts.getMany.all(this.kind, JSON.stringify(ids.map(String)))) {
      const record = JSON.parse(r.data) as T
      found.set(String(record.id), record)
    }
    return found
  }

  /** byParent() of each parent, in one statement: each list in row order, a parent with none absent. */
  byParents(parents: readonly EntityId[]): Map<string, T[]> {
    const found = new Map<string, T[]>()
    if (parents.length === 0) return found
    for (const r of this.stmts.byParents.all(this.kind, JSON.stringify(parents.map(String)))) {
      const record = JSON.parse(r.data) as T
      const list = found.get(r.parent)
      if (list) list.push(record)
      else found.set(r.parent, [record])
    }
    return found
  }

  byName(name: string): T[] {
    return this.stmts.byName.all(this.kind, name).map((r) => JSON.parse(r.data) as T)
  }

  count(): number {
    return this.stmts.count.get(this.kind)?.n ?? 0
  }

  /**
   * Ids in list order. Filtering on indexed columns happens in SQL; anything
   * richer is done by the caller on the records.
   */
  ids(options: { archived?: boolean; parent?: EntityId; orderBy?: OrderColumn; dir?: 'asc' | 'desc' } = {}): EntityId[] {
    const where = ['kind = ?']
    const params: (string | number)[] = [this.kind]
    if (options.archived !== undefined) {
      where.push('archived = ?')
      params.push(options.archived ? 1 : 0)
    }
    if (options.parent !== undefined) {
      where.push('parent = ?')
      params.push(String(options.parent))
    }
    const column = options.orderBy ?? 'seq'
    const dir = options.dir === 'desc' ? 'DESC' : 'ASC'
    // seq breaks ties so equal timestamps or names keep a stable order. Never "seq, seq": SQLite then
    // sorts every row of the kind again in a temporary b-tree instead of reading the index in order.
    const order = column === 'seq' ? `seq ${dir}` : `${column} ${dir}, seq ${dir}`
    // Integer ids come out of SQLite as numbers: no string made and converted per row.
    const id = this.intId ? 'CAST(id AS INTEGER)' : 'id'
    const sql = `SELECT ${id} FROM entities WHERE ${where.join(' AND ')} ORDER BY ${order}`
    let statement = this.idStatements.get(sql)
    if (!statement) {
      statement = this.db.prepare<(string | number)[], EntityId>(sql).pluck()
      this.idStatements.set(sql, statement)
    }
    return statement.all(...params)
  }

  insert(record: T): T {
    this.stmts.insert.run({ ...this.params(record), seq: this.sequence.next('row') })
    return record
  }

  update(record: T): T {
    const result = this.stmts.update.run(this.params(record))
    if (result.changes === 0) throw ApiError.notFound(`${this.label} ${record.id} does not exist.`)
    return record
  }

  delete(id: EntityId): boolean {
    return this.stmts.delete.run(this.kind, String(id)).changes > 0
  }

  private params(record: T) {
    const c = this.columnsOf(record)
    return {
      kind: this.kind,
      id: String(record.id),
      name: c.name ?? null,
      archived: c.archived ? 1 : 0,
      external_id: c.external_id ?? null,
      parent: c.parent === undefined || c.parent === null ? null : String(c.parent),
      position: c.position ?? null,
      created_at: record.created_at,
      updated_at: record.updated_at,
      data: JSON.stringify(record),
    }
  }
}

/** Many-to-many links between two kinds (doc-epic and the like). */
export class Relation {
  private readonly stmts

  constructor(
    db: Db,
    readonly kind: string,
  ) {
    this.stmts = {
      add: db.prepare<[string, string, string, string]>('INSERT OR IGNORE INTO relations (kind, a, b, created_at) VALUES (?, ?, ?, ?)'),
      remove: db.prepare<[string, string, string]>('DELETE FROM relations WHERE kind = ? AND a = ? AND b = ?'),
      bs: db.prepare<[string, string], { b: string }>('SELECT b FROM relations WHERE kind = ? AND a = ? ORDER BY created_at, b'),
      as: db.prepare<[string, string], { a: string }>('SELECT a FROM relations WHERE kind = ? AND b = ? ORDER BY created_at, a'),
      removeA: db.prepare<[string, string]>('DELETE FROM relations WHERE kind = ? AND a = ?'),
      removeB: db.prepare<[string, string]>('DELETE FROM relations WHERE kind = ? AND b = ?'),
    }
  }

  add(a: EntityId, b: EntityId, at: string): void {
    this.stmts.add.run(this.kind, String(a), String(b), at)
  }
  remove(a: EntityId, b: EntityId): boolean {
    return this.stmts.remove.run(this.kind, String(a), String(b)).changes > 0
  }
  bsOf(a: EntityId): string[] {
    return this.stmts.bs.all(this.kind, String(a)).map((r) => r.b)
  }
  asOf(b: EntityId): string[] {
    return this.stmts.as.all(this.kind, String(b)).map((r) => r.a)
  }
  forgetA(a: EntityId): void {
    this.stmts.removeA.run(this.kind, String(a))
  }
  forgetB(b: EntityId): void {
    this.stmts.removeB.run(this.kind, String(b))
  }
}

/** Monotonic counters kept in the database (row order, integer public ids). */
export class Sequence {
  private readonly stmt

  constructor(db: Db) {
    this.stmt = db.prepare<[string], { value: number }>(
      'INSERT INTO seq (name, value) VALUES (?, 1) ON CONFLICT (name) DO UPDATE SET value = value + 1 RETURNING value',
    )
  }

  next(name: string): number {
    const row = this.stmt.get(name)
    if (!row) throw new Error(`sequence ${name} did not advance`)
    return row.value
  }
}
