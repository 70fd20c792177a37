// What the outbox needs to know about each kind of entity it writes: where the
// confirmed rows live, how ids are typed, what a just-created entity looks like
// before the service has answered, and which fields a write may change.
import type { Table } from 'dexie'
import { LABEL_LIMITS, LIMITS, PUBLISHED_LIMITS } from '../../../../src-shared/api/limits.ts'
import type { OutpostDb } from '../db.ts'
import { EDITABLE_EPIC_FIELDS, epicDraft } from '../epic-fields.ts'
import type { EntityId, EntityKind } from '../types.ts'

export type WritableKind = 'epic' | 'comment' | 'health' | 'doc' | 'docEpic' | 'file' | 'linkedFile' | 'category' | 'objective' | 'label'

export const LOCAL_PREFIX = 'local:'
const LOCAL_ID = /local:[0-9a-f-]{36}/gi

export function isLocalId(id: unknown): id is string {
  return typeof id === 'string' && id.startsWith(LOCAL_PREFIX)
}

/** Every local id mentioned anywhere in a value (records, payloads, composite ids). */
export function localIdsIn(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null)
  return [...new Set(text.match(LOCAL_ID) ?? [])]
}

/** Kinds whose service ids are integers (the rest are uuids). */
const INT_IDS = new Set<EntityKind>(['epic', 'comment', 'file', 'linkedFile', 'category', 'objective', 'label', 'epicState'])

/** The id as the service (and the cache's tables) type it: a number for int kinds, unless it is local. */
export function typedId(kind: EntityKind, id: EntityId): EntityId {
  if (isLocalId(id)) return id
  if (INT_IDS.has(kind)) {
    const n = typeof id === 'number' ? id : Number(id)
    return Number.isSafeInteger(n) ? n : id
  }
  return String(id)
}

/** A doc-epic link's entity id: the pair, as one string. */
export function linkId(docId: EntityId, epicId: EntityId): string {
  return `${docId}|${epicId}`
}

export function splitLinkId(id: string): { doc_id: EntityId; epic_id: EntityId } {
  const bar = id.lastIndexOf('|')
  return { doc_id: typedId('doc', id.slice(0, bar)), epic_id: typedId('epic', id.slice(bar + 1)) }
}

/** The table of confirmed rows of a kind. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function tableOf(db: OutpostDb, kind: EntityKind): Table<any, any> {
  switch (kind) {
    case 'epic':
      return db.epics
    case 'comment':
      return db.epicComments
    case 'health':
      return db.epicHealth
    case 'doc':
      return db.docs
    case 'docEpic':
      return db.docEpics
    case 'file':
      return db.files
    case 'linkedFile':
      return db.linkedFiles
    case 'category':
      return db.categories
    case 'objective':
      return db.objectives
    case 'group':
      return db.groups
    case 'member':
      return db.members
    case 'epicState':
      return db.epicStates
    case 'customField':
      return db.customFields
    case 'label':
      return db.labels
  }
}

/** The primary key of a row in its table, from the string id the overlay and outbox use. */
export function tableKey(kind: EntityKind, id: string): EntityId | [EntityId, EntityId] {
  if (kind === 'docEpic') {
    const { doc_id, epic_id } = splitLinkId(id)
    return [doc_id, epic_id]
  }
  return typedId(kind, id)
}

/** The string id of a confirmed row. */
export function rowId(kind: EntityKind, row: Record<string, unknown>): string {
  if (kind === 'docEpic') return linkId(row.doc_id as EntityId, row.epic_id as EntityId)
  return String(row.id)
}

/**
 * The fields a user can change with an update, per kind (the cache's field
 * names). Anything else in an update is refused before it is queued.
 */
export const UPDATABLE: Record<WritableKind, readonly string[]> = {
  epic: EDITABLE_EPIC_FIELDS,
  comment: ['text'],
  health: [],
  doc: ['title', 'content_markdown'],
  docEpic: [],
  file: ['name', 'description'],
  // The published UpdateLinkedFile takes no content_type and cannot clear a thumbnail or size: set when made.
  linkedFile: ['name', 'type', 'url', 'description'],
  category: ['name', 'color', 'archived'],
  objective: ['name', 'description', 'state', 'archived', 'category_ids'],
  // Labels are made by name and then only picked: the API offers no label update here.
  label: [],
}

/** The most characters each text field of a write may hold (the service refuses more). */
export const TEXT_LIMITS: Record<WritableKind, Readonly<Record<string, number>>> = {
  epic: { name: LIMITS.epicName, description: LIMITS.epicDescription },
  comment: { text: LIMITS.commentText },
  health: {},
  doc: { title: LIMITS.docTitle },
  docEpic: {},
  file: { name: LIMITS.fileName, description: PUBLISHED_LIMITS.fileDescription },
  linkedFile: { name: LIMITS.linkedFileName, url: LIMITS.url, thumbnail_url: LIMITS.url, description: PUBLISHED_LIMITS.linkedFileDescription },
  category: { name: LIMITS.categoryName },
  objective: { name: LIMITS.milestoneName, description: LIMITS.milestoneDescription },
  label: { name: LABEL_LIMITS.name },
}

/**
 * The text fields of a payload past their limits, with the service's wording; null when all fit. Characters
 * are counted as the service counts them: code points (an emoji is one).
 */
export function overLimit(kind: WritableKind, payload: Record<string, unknown>): Record<string, string> | null {
  const errors: Record<string, string> = {}
  for (const [field, max] of Object.entries(TEXT_LIMITS[kind])) {
    const value = payload[field]
    if (typeof value === 'string' && value.length > max && [...value].length > max) errors[field] = `must be at most ${max} characters`
  }
  return Object.keys(errors).length > 0 ? errors : null
}

/** What an entity created offline looks like until the service answers: the cache's shape with neutral defaults. */
export function draftEntity(
  kind: EntityKind,
  id: string,
  payload: Record<string, unknown>,
  params: Record<string, unknown>,
  context: { now: number; me: string | null; externalId?: string },
): Record<string, unknown> {
  const at = new Date(context.now).toISOString()
  const stamps = { created_at: at, updated_at: at }
  switch (kind) {
    case 'epic':
      return { id, ...epicDraft(), requested_by_id: context.me, external_id: context.externalId ?? null, ...stamps, ...payload }
    case 'comment':
      return {
        id,
        epic_id: params.epic_id,
        parent_id: params.parent_id ?? null,
        author_id: context.me,
        text: '',
        deleted: false,
        external_id: context.externalId ?? null,
        ...stamps,
        ...payload,
      }
    case 'health':
      return { id, epic_id: params.epic_id, status: 'No Health', text: '', author_id: context.me, ...stamps, ...payload }
    case 'doc':
      // The HTML is the service's rendering of the markdown; until it answers there is none.
      return { id, title: '', content_markdown: '', content_html: '', archived: false, creator_id: context.me, ...stamps, ...payload }
    case 'docEpic':
      return { doc_id: params.doc_id, epic_id: params.epic_id }
    case 'file':
      return {
        id,
        name: '',
        description: null,
        content_type: 'application/octet-stream',
        size: 0,
        url: '',
        thumbnail_url: null,
        story_ids: [],
        uploader_id: context.me,
        external_id: null,
        ...stamps,
        ...payload,
      }
    case 'linkedFile':
      return {
        id,
        name: '',
        type: 'url',
        url: '',
        description: null,
        content_type: null,
        size: null,
        thumbnail_url: null,
        uploader_id: context.me,
        ...stamps,
        ...payload,
      }
    case 'category':
      return { id, name: '', color: null, archived: false, external_id: context.externalId ?? null, ...stamps, ...payload }
    case 'objective':
      return {
        id,
        name: '',
        description: '',
        state: 'to do',
        archived: false,
        category_ids: [],
        started: false,
        completed: false,
        position: Number.MAX_SAFE_INTEGER,
        app_url: '',
        ...stamps,
        ...payload,
      }
    case 'label':
      return { id, name: '', color: null, archived: false, ...payload }
    default:
      return { id, ...payload }
  }
}

/** Equal as the service means it: id lists as sets, timestamps as instants, null and absent alike. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null
  if (b === undefined) b = null
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false
    const key = (v: unknown) => JSON.stringify(v)
    const left = a.map(key).sort()
    const right = b.map(key).sort()
    return left.every((v, i) => v === right[i])
  }
  if (typeof a === 'string' && typeof b === 'string' && ISO.test(a) && ISO.test(b)) return Date.parse(a) === Date.parse(b)
  if (a && b && typeof a === 'object' && typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b)
  return false
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/

/** Replaces every occurrence of a local id (as a whole value) with the service's id, deeply. */
export function replaceId<T>(value: T, from: string, to: EntityId): T {
  if (value === from) return to as T
  // A doc-epic link's id names both ends: `doc|epic`.
  if (typeof value === 'string' && (value.startsWith(`${from}|`) || value.endsWith(`|${from}`))) return value.replace(from, String(to)) as T
  if (Array.isArray(value)) return value.map((v) => replaceId(v, from, to)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceId(v, from, to)])) as T
  }
  return value
}
