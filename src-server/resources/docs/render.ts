// Docs and collections as v3 and v4 render them, and the EpicSlim of a doc's epics.
import type { DocSlimV3, DocV3 } from '../../../src-shared/api/v3/docs.ts'
import { EpicSlimV3 } from '../../../src-shared/api/v3/epics.ts'
import type { CollectionV4, DocV4 } from '../../../src-shared/api/v4/docs.ts'
import type { ServiceContext } from '../../context.ts'
import { appUrl, type Refs } from '../../refs.ts'
import { DOC_EPIC, type CollectionRecord, type ContentFormat, type DocRecord } from './store.ts'

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

const EPIC_SLIM_KEYS = Object.keys(EpicSlimV3.properties).filter((k) => k !== 'description')

const NO_STATS = {
  last_story_update: null,
  num_points: 0,
  num_points_backlog: 0,
  num_points_done: 0,
  num_points_started: 0,
  num_points_unstarted: 0,
  num_related_documents: 0,
  num_stories_backlog: 0,
  num_stories_done: 0,
  num_stories_started: 0,
  num_stories_total: 0,
  num_stories_unestimated: 0,
  num_stories_unstarted: 0,
}

/**
 * An EpicSlim from the stored epic record (v3-shaped, owned by the epics resource):
 * its own fields where it has them, empty defaults where it does not.
 */
export function epicSlimV3(ctx: ServiceContext, origin: string, epic: Record<string, unknown> & { id: number }): EpicSlimV3 {
  const defaults: Record<string, unknown> = {
    archived: false,
    associated_groups: [],
    completed: false,
    completed_at: null,
    completed_at_override: null,
    deadline: null,
    epic_state_id: 0,
    external_id: null,
    follower_ids: [],
    group_id: null,
    group_ids: [],
    group_mention_ids: [],
    label_ids: [],
    labels: [],
    member_mention_ids: [],
    mention_ids: [],
    milestone_id: null,
    name: '',
    objective_ids: [],
    owner_ids: [],
    planned_start_date: null,
    planner_id: null,
    planner_name: null,
    planner_plugin_id: null,
    planner_url: null,
    position: 0,
    project_ids: [],
    requested_by_id: '',
    started: false,
    started_at: null,
    started_at_override: null,
    state: 'to do',
    stories_without_projects: 0,
  }
  const out: Record<string, unknown> = {}
  for (const key of EPIC_SLIM_KEYS) out[key] = key in epic ? epic[key] : defaults[key]
  out.entity_type = 'epic'
  out.app_url = appUrl(origin, ctx.workspace.slug, 'epic', epic.id)
  const stats = typeof epic.stats === 'object' && epic.stats !== null ? epic.stats : {}
  out.stats = { ...NO_STATS, ...stats, num_related_documents: ctx.relation(DOC_EPIC).asOf(epic.id).length }
  return out as EpicSlimV3
}
