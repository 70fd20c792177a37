// What the search finds, and where it comes from: each kind's cache table and
// fields, merged with the overlay so offline creates and edits are findable
// and offline deletions are not.
import type { OutpostDb } from '../db.ts'
import { applyOverlay, rowsWithOverlays } from '../overlay.ts'
import { typedId } from '../outbox/kinds.ts'
import type { EntityId, EntityKind, OverlayRow } from '../types.ts'
import { markdownText, terms } from './text.ts'

export type SearchKind = 'epic' | 'doc' | 'file' | 'linkedFile' | 'comment'

export const SEARCH_KINDS: readonly SearchKind[] = ['epic', 'doc', 'file', 'linkedFile', 'comment']

/** The cache table of each kind. */
export const TABLE_OF: Record<SearchKind, 'epics' | 'docs' | 'files' | 'linkedFiles' | 'epicComments'> = {
  epic: 'epics',
  doc: 'docs',
  file: 'files',
  linkedFile: 'linkedFiles',
  comment: 'epicComments',
}

export const KIND_OF_TABLE: Record<string, SearchKind> = Object.fromEntries(Object.entries(TABLE_OF).map(([kind, table]) => [table, kind as SearchKind]))

export function isSearchKind(kind: EntityKind | string): kind is SearchKind {
  return kind in TABLE_OF
}

/** One searchable thing, as indexed. */
export interface SearchDocument {
  /** `${kind}:${String(id)}`: int and uuid ids share one key space. */
  key: string
  kind: SearchKind
  id: EntityId
  title: string
  /** The title's terms joined by single spaces: what "exact" and "starts with" compare. */
  titleTerms: string
  /** Plain text searched after the title: description, doc markdown as text, comment text. */
  body: string
  archived: boolean
  /** The epic a comment belongs to (its title is the result's title). */
  epicId?: EntityId
}

export function documentKey(kind: SearchKind, id: EntityId): string {
  return `${kind}:${String(id)}`
}

/** The typed id of a key: as the cache's table keys it (a number for int kinds, unless local). */
export function idOfKey(key: string): EntityId {
  const at = key.indexOf(':')
  return typedId(key.slice(0, at) as SearchKind, key.slice(at + 1))
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The searchable document of one merged entity; null when it is not searchable (a deleted comment). */
export function toDocument(kind: SearchKind, id: EntityId, entity: Record<string, unknown>): SearchDocument | null {
  const make = (title: string, body: string, epicId?: EntityId): SearchDocument => ({
    key: documentKey(kind, id),
    kind,
    id,
    title,
    titleTerms: terms(title).join(' '),
    body,
    archived: entity.archived === true,
    ...(epicId === undefined ? {} : { epicId }),
  })
  switch (kind) {
    case 'epic':
      return make(text(entity.name), text(entity.description))
    case 'doc':
      return make(text(entity.title), markdownText(text(entity.content_markdown)))
    case 'file':
    case 'linkedFile':
      return make(text(entity.name), text(entity.description))
    case 'comment':
      return entity.deleted === true ? null : make('', text(entity.text), entity.epic_id as EntityId)
  }
}

/** What one entity looks like now: its document (null if nothing to find) and the stamps of the rows it came from. */
export interface EntityState {
  key: string
  document: SearchDocument | null
  /** The server row's updated_at; undefined when there is no server row. */
  serverStamp?: string
  /** The overlay row's updatedAt; undefined when there is no overlay row. */
  overlayStamp?: number
}

export function entityState(kind: SearchKind, id: EntityId, server: Record<string, unknown> | undefined, overlay: OverlayRow | undefined): EntityState {
  const merged = applyOverlay(server, overlay)
  return {
    key: documentKey(kind, id),
    document: merged ? toDocument(kind, id, merged) : null,
    serverStamp: server ? text(server.updated_at) : undefined,
    overlayStamp: overlay?.updatedAt,
  }
}

/** Reads the current state of some entities of one kind (server row + overlay row). */
export async function readEntities(db: OutpostDb, kind: SearchKind, ids: readonly EntityId[]): Promise<EntityState[]> {
  const [rows, overlays] = await readRows(db, kind, ids)
  return ids.map((id, i) => entityState(kind, id, rows[i], overlays[i]))
}

/**
 * The cached rows and overlay rows of `ids`, as read (for entityState): a caller that slices its work makes
 * the states one by one (100 docs' markdown made text at once is a long task).
 */
export function readRows(
  db: OutpostDb,
  kind: SearchKind,
  ids: readonly EntityId[],
): Promise<[(Record<string, unknown> | undefined)[], (OverlayRow | undefined)[]]> {
  return rowsWithOverlays(db, kind, ids)
}
