// Stored docs and collections, and the writes both API generations share.
// Content is stored as HTML; its markdown form is derived from that HTML when
// the doc is written, so reads and lists never run the converter.
import type { Activity, ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import type { MemberRecord } from '../members/member.ts'
import { htmlToMarkdown, markdownToHtml } from './markdown.ts'

export interface DocRecord {
  id: string
  title: string
  description: string | null
  content_html: string
  /** turndown(content_html), kept beside it. */
  content_markdown: string
  archived: boolean
  creator_id: string
  follower_ids: string[]
  collection_ids: string[]
  created_at: string
  updated_at: string
}

export interface CollectionRecord {
  id: string
  name: string
  archived: boolean
  parent_collection_id: string | null
  /** Members who favorited it. */
  favorite_member_ids: string[]
  created_at: string
  updated_at: string
}

/** Doc-epic links: a = doc uuid, b = epic id. */
export const DOC_EPIC = 'doc_epic'

export type ContentFormat = 'html' | 'markdown'

export const docs = (ctx: ServiceContext) => ctx.col<DocRecord>('doc')
export const collections = (ctx: ServiceContext) => ctx.col<CollectionRecord>('collection')

export function contentOf(content: string, format: ContentFormat | undefined): { content_html: string; content_markdown: string } {
  const html = format === 'markdown' ? markdownToHtml(content) : content
  return { content_html: html, content_markdown: htmlToMarkdown(html) }
}

export interface NewDoc {
  title: string
  content: string
  content_format?: ContentFormat
  description?: string
  collection_ids?: string[]
}

function checkCollections(ctx: ServiceContext, ids: readonly string[]): string[] {
  if (ids.length > 0 && !ctx.featureEnabled('collections')) throw ApiError.disabledFeature('collections')
  const missing = ids.filter((id) => !collections(ctx).has(id))
  if (missing.length > 0) throw ApiError.unprocessable(`No such collection: ${missing.join(', ')}.`, { collection_ids: `no collection ${missing.join(', ')}` })
  return [...new Set(ids)]
}

export function createDoc(ctx: ServiceContext, creator: MemberRecord, input: NewDoc): DocRecord {
  const now = ctx.now()
  return docs(ctx).insert({
    id: ctx.uuid(),
    title: input.title,
    description: input.description ?? null,
    ...contentOf(input.content, input.content_format),
    archived: false,
    creator_id: creator.id,
    // The creator follows a new doc.
    follower_ids: [creator.id],
    collection_ids: checkCollections(ctx, input.collection_ids ?? []),
    created_at: now,
    updated_at: now,
  })
}

export interface DocPatch {
  title?: string
  content?: string
  content_format?: ContentFormat
  description?: string | null
  archived?: boolean
}

export type DocChanges = NonNullable<Activity['changes']>

/** Applies a patch; `changes` names what really changed (content without its text, which can be large). */
export function updateDoc(ctx: ServiceContext, id: string, patch: DocPatch): { doc: DocRecord; changes: DocChanges } {
  const current = docs(ctx).require(id)
  const next: DocRecord = { ...current }
  const changes: DocChanges = {}
  if (patch.title !== undefined && patch.title !== current.title) {
    next.title = patch.title
    changes.title = { old: current.title, new: patch.title }
  }
  if (patch.content !== undefined) {
    const content = contentOf(patch.content, patch.content_format ?? 'html')
    if (content.content_html !== current.content_html) {
      Object.assign(next, content)
      changes.content = {}
    }
  }
  if (patch.description !== undefined && patch.description !== current.description) {
    next.description = patch.description
    changes.description = { old: current.description, new: patch.description }
  }
  if (patch.archived !== undefined && patch.archived !== current.archived) {
    next.archived = patch.archived
    changes.archived = { old: current.archived, new: patch.archived }
  }
  if (Object.keys(changes).length === 0) return { doc: current, changes }
  next.updated_at = ctx.now()
  return { doc: docs(ctx).update(next), changes }
}

/** Admin access to a doc: its creator, or a workspace admin or owner. */
export function assertDocAdmin(doc: DocRecord, member: MemberRecord): void {
  if (doc.creator_id === member.id || member.role === 'admin' || member.role === 'owner') return
  throw ApiError.forbidden(`Deleting doc ${doc.id} needs admin access to it: only its creator or a workspace admin may.`, 'doc_admin_required')
}

export function deleteDoc(ctx: ServiceContext, id: string): DocRecord {
  const doc = docs(ctx).require(id)
  docs(ctx).delete(id)
  ctx.relation(DOC_EPIC).forgetA(id)
  return doc
}

export function setDocCollections(ctx: ServiceContext, doc: DocRecord, ids: string[]): DocRecord {
  return docs(ctx).update({ ...doc, collection_ids: ids, updated_at: ctx.now() })
}

export function createCollection(ctx: ServiceContext, input: { name: string; parent_collection_id?: string }): CollectionRecord {
  const parent = input.parent_collection_id ?? null
  if (parent !== null && !collections(ctx).has(parent)) {
    throw ApiError.unprocessable(`No such collection: ${parent}.`, { parent_collection_id: 'no such collection' })
  }
  const clash = collections(ctx)
    .all()
    .some((c) => c.parent_collection_id === parent && c.name.toLowerCase() === input.name.toLowerCase())
  if (clash) throw ApiError.unprocessable(`A collection named "${input.name}" already exists here.`, { name: 'is already taken' })
  const now = ctx.now()
  return collections(ctx).insert({
    id: ctx.uuid(),
    name: input.name,
    archived: false,
    parent_collection_id: parent,
    favorite_member_ids: [],
    created_at: now,
    updated_at: now,
  })
}

/** Ids and the columns search needs, without reading any content. */
export interface DocHeader {
  id: string
  title: string
  archived: boolean
  creator_id: string
  follower_ids: string[]
}

export function docHeaders(ctx: ServiceContext): DocHeader[] {
  const rows = ctx.db
    .prepare<[], { id: string; title: string; archived: number; creator_id: string; follower_ids: string }>(
      `SELECT id, name AS title, archived, json_extract(data, '$.creator_id') AS creator_id,
       json_extract(data, '$.follower_ids') AS follower_ids FROM entities WHERE kind = 'doc' ORDER BY seq`,
    )
    .all()
  return rows.map((r) => ({
    id: r.id,
    title: r.title,
    archived: r.archived === 1,
    creator_id: r.creator_id,
    follower_ids: JSON.parse(r.follower_ids) as string[],
  }))
}
