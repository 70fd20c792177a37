// Docs and collections as v3 and v4 render them.
import type { DocSlimV3, DocV3 } from '../../../src-shared/api/v3/docs.ts'
import type { CollectionV4, DocV4 } from '../../../src-shared/api/v4/docs.ts'
import type { ServiceContext } from '../../context.ts'
import { appUrl, type Refs } from '../../refs.ts'
import { type CollectionRecord, type ContentFormat, type DocRecord } from './store.ts'

/** Which content a rendering carries: one of them (the other is null) or both. */
export type Contents = ContentFormat | 'both'

function contents(d: DocRecord, which: Contents) {
  return {
    content_html: which === 'markdown' ? null : d.content_html,
    content_markdown: which === 'html' ? null : d.content_markdown,
  }
}

export const docSlimV3 = (ctx: ServiceContext, origin: string, d: { id: string; title: string }): DocSlimV3 => ({
  app_url: appUrl(origin, ctx.workspace.slug, 'doc', d.id),
  id: d.id,
  title: d.title,
})

export const docV3 = (ctx: ServiceContext, origin: string, d: DocRecord, which: ContentFormat): DocV3 => ({
  app_url: appUrl(origin, ctx.workspace.slug, 'doc', d.id),
  archived: d.archived,
  ...contents(d, which),
  created_at: d.created_at,
  id: d.id,
  title: d.title,
  updated_at: d.updated_at,
})

export function docV4(refs: Refs, d: DocRecord, which: Contents): DocV4 {
  const uri = refs.uri('doc', d.id)
  return {
    entity_type: 'doc',
    archived: d.archived,
    collections: refs.page('collection', d.collection_ids, `${uri}/collections`),
    ...contents(d, which),
    created_at: d.created_at,
    creator: refs.slim('member', d.creator_id),
    followers: refs.page('member', d.follower_ids, `${uri}/followers`),
    id: d.id,
    title: d.title,
    updated_at: d.updated_at,
    uri,
  }
}

/** The published Collection has no updated_at; the record keeps one for itself. */
export const collectionV4 = (refs: Refs, c: CollectionRecord, memberId: string): CollectionV4 => ({
  entity_type: 'collection',
  archived: c.archived,
  created_at: c.created_at,
  favorited: c.favorite_member_ids.includes(memberId),
  id: c.id,
  name: c.name,
  parent_collection: refs.slim('collection', c.parent_collection_id),
  uri: refs.uri('collection', c.id),
})
