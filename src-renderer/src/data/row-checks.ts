// What a sound row of the local database looks like: the checks every read,
// the overlay and replay make before they trust a row (problems.ts lists the
// rows that fail them). Plain functions of a row, importing nothing that reads.
import type { EntityKind } from './types.ts'

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isId = (v: unknown) => (typeof v === 'string' && v !== '') || (typeof v === 'number' && Number.isFinite(v))

/** Fields the reads and the screens rely on, with their type, per kind of cached row. */
const SHAPES: Record<EntityKind, Record<string, 'string' | 'boolean' | 'id'>> = {
  epic: { id: 'id', name: 'string', archived: 'boolean', updated_at: 'string' },
  comment: { id: 'id', epic_id: 'id', text: 'string', created_at: 'string' },
  health: { id: 'id', epic_id: 'id', status: 'string', created_at: 'string' },
  doc: { id: 'id', title: 'string', updated_at: 'string' },
  docEpic: { doc_id: 'id', epic_id: 'id' },
  file: { id: 'id', name: 'string' },
  linkedFile: { id: 'id', name: 'string', url: 'string' },
  category: { id: 'id', name: 'string' },
  objective: { id: 'id', name: 'string' },
  group: { id: 'id', name: 'string' },
  member: { id: 'id', name: 'string' },
  epicState: { id: 'id', name: 'string' },
  customField: { id: 'id', name: 'string' },
  label: { id: 'id', name: 'string' },
}

/** SHAPES as lists, made once: every read of 10,000 epics checks each row. */
const SHAPE_FIELDS = new Map(Object.entries(SHAPES).map(([kind, shape]) => [kind, Object.entries(shape)]))

/** Why a cached row of `kind` cannot be shown, or null when it can. */
export function rowProblem(kind: EntityKind, row: unknown): string | null {
  if (!isObject(row)) return 'not an object'
  for (const [field, type] of SHAPE_FIELDS.get(kind) ?? []) {
    const v = row[field]
    if (type === 'id' ? !isId(v) : typeof v !== type) return `${field} is ${v === undefined ? 'missing' : `not a ${type === 'id' ? 'valid id' : type}`}`
  }
  return null
}

/** Why an overlay row cannot be laid over the cache, or null when it can. */
export function overlayProblem(row: unknown): string | null {
  if (!isObject(row)) return 'not an object'
  if (typeof row.kind !== 'string' || typeof row.id !== 'string') return 'kind or id missing'
  if (!isObject(row.patch)) return 'patch is not an object'
  return null
}

const KINDS = new Set(['epic', 'comment', 'health', 'doc', 'docEpic', 'file', 'linkedFile', 'category', 'objective', 'label'])
const OPS = new Set(['create', 'update', 'delete'])
const STATES = new Set(['pending', 'in-flight', 'failed', 'conflict'])

/** Why an outbox record cannot be replayed (or listed), or null when it can. */
export function recordProblem(r: unknown): string | null {
  if (!isObject(r)) return 'not an object'
  if (!KINDS.has(r.kind as string)) return `unknown kind ${JSON.stringify(r.kind)}`
  if (!OPS.has(r.op as string)) return `unknown op ${JSON.stringify(r.op)}`
  if (!STATES.has(r.state as string)) return `unknown state ${JSON.stringify(r.state)}`
  if (typeof r.entityId !== 'string' || r.entityId === '') return 'entityId is not text'
  if (!isObject(r.payload)) return 'payload is not an object'
  if (!isObject(r.base)) return 'base is not an object'
  if (r.params !== undefined && !isObject(r.params)) return 'params is not an object'
  if (typeof r.createdAt !== 'number' || typeof r.attempts !== 'number') return 'createdAt or attempts is not a number'
  return null
}
