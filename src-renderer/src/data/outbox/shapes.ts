// The service's answers to writes, in the cache's shape (ids rather than
// objects). Each returns what the answer says; `undefined` fields are left as
// the cache had them (a v4 epic has no position, a v3 doc one content only).
import type { CategoryV4 } from '../../../../src-shared/api/v4/categories.ts'
import type { DocV4 } from '../../../../src-shared/api/v4/docs.ts'
import type { EpicV4 } from '../../../../src-shared/api/v4/epics.ts'
import type { EpicSlimV3, HealthV3 } from '../../../../src-shared/api/v3/epics.ts'
import type { DocV3 } from '../../../../src-shared/api/v3/docs.ts'
import type { LinkedFileV3, UploadedFileV3 } from '../../../../src-shared/api/v3/files.ts'
import type { ObjectiveV3 } from '../../../../src-shared/api/v3/objectives.ts'
import type {
  CachedCategory,
  CachedComment,
  CachedDoc,
  CachedEpic,
  CachedFile,
  CachedHealth,
  CachedLinkedFile,
  CachedObjective,
  EntityId,
} from '../types.ts'

type Ref = { id: number | string }
const ids = <T extends number | string>(page: { entities: Ref[] } | undefined): T[] => (page?.entities ?? []).map((r) => r.id as T)

export function epicFromV4(e: EpicV4): Partial<CachedEpic> {
  return {
    id: e.id,
    name: e.name,
    description: e.description,
    archived: e.archived,
    epic_state_id: typeof e.epic_state?.id === 'number' ? e.epic_state.id : null,
    started: e.started,
    completed: e.completed,
    started_at: e.started_at,
    completed_at: e.completed_at,
    deadline: e.deadline,
    planned_start_date: e.planned_start_date,
    owner_ids: ids<string>(e.owners),
    follower_ids: ids<string>(e.followers),
    group_ids: ids<string>(e.teams),
    objective_ids: ids<number>(e.objectives),
    label_ids: ids<number>(e.labels),
    requested_by_id: (e.requester?.id as string | undefined) ?? null,
    external_id: e.external_id,
    app_url: e.app_url,
    created_at: e.created_at,
    updated_at: e.updated_at,
  }
}

export function epicFromV3(e: EpicSlimV3): Partial<CachedEpic> {
  return {
    id: e.id,
    name: e.name,
    description: e.description,
    archived: e.archived,
    epic_state_id: e.epic_state_id,
    started: e.started,
    completed: e.completed,
    started_at: e.started_at,
    completed_at: e.completed_at,
    deadline: e.deadline,
    planned_start_date: e.planned_start_date,
    owner_ids: e.owner_ids,
    follower_ids: e.follower_ids,
    group_ids: e.group_ids,
    objective_ids: e.objective_ids,
    label_ids: e.label_ids,
    requested_by_id: e.requested_by_id ?? null,
    external_id: e.external_id,
    position: e.position,
    app_url: e.app_url,
    created_at: e.created_at,
    updated_at: e.updated_at,
  }
}

/** A v3 ThreadedComment (replies nested in `comments`). */
export interface ThreadedComment {
  id: number
  author_id: string | null
  text: string
  deleted: boolean
  external_id: string | null
  created_at: string
  updated_at: string
  comments: ThreadedComment[]
}

export function commentFromV3(c: ThreadedComment, epicId: EntityId, parentId: EntityId | null): CachedComment {
  return {
    id: c.id,
    epic_id: epicId,
    parent_id: parentId,
    author_id: c.author_id,
    text: c.text,
    deleted: c.deleted,
    external_id: c.external_id,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }
}

/** Every comment of a thread list, replies included, each knowing its parent. */
export function flattenComments(list: ThreadedComment[], epicId: EntityId, parentId: EntityId | null = null): CachedComment[] {
  return list.flatMap((c) => [commentFromV3(c, epicId, parentId), ...flattenComments(c.comments ?? [], epicId, c.id)])
}

export function healthFromV3(h: HealthV3, epicId: EntityId): CachedHealth {
  return {
    id: h.id ?? '',
    epic_id: h.epic_id ?? epicId,
    status: h.status,
    text: h.text,
    author_id: h.author_id,
    created_at: h.created_at,
    updated_at: h.updated_at,
  }
}

export function docFromV4(d: DocV4): Partial<CachedDoc> {
  return {
    id: d.id,
    title: d.title,
    ...(d.content_markdown !== null && { content_markdown: d.content_markdown }),
    ...(d.content_html !== null && { content_html: d.content_html }),
    archived: d.archived,
    creator_id: (d.creator?.id as string | undefined) ?? null,
    created_at: d.created_at,
    updated_at: d.updated_at,
  }
}

export function docFromV3(d: DocV3): Partial<CachedDoc> {
  return {
    id: d.id,
    title: d.title,
    ...(d.content_markdown !== null && { content_markdown: d.content_markdown }),
    ...(d.content_html !== null && { content_html: d.content_html }),
    archived: d.archived,
    created_at: d.created_at,
    updated_at: d.updated_at,
  }
}

export function fileFromV3(f: UploadedFileV3): CachedFile {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    content_type: f.content_type,
    size: f.size,
    url: f.url,
    thumbnail_url: f.thumbnail_url,
    story_ids: f.story_ids,
    uploader_id: f.uploader_id,
    external_id: f.external_id,
    created_at: f.created_at,
    updated_at: f.updated_at,
  }
}

export function linkedFileFromV3(f: LinkedFileV3): CachedLinkedFile {
  return {
    id: f.id,
    name: f.name,
    type: f.type as CachedLinkedFile['type'],
    url: f.url,
    description: f.description,
    content_type: f.content_type,
    size: f.size,
    thumbnail_url: f.thumbnail_url,
    uploader_id: f.uploader_id,
    created_at: f.created_at,
    updated_at: f.updated_at,
  }
}

export function categoryFromV4(c: CategoryV4): CachedCategory {
  return {
    id: c.id,
    name: c.name,
    color: c.color,
    archived: c.archived,
    external_id: c.external_id,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }
}

export function objectiveFromV3(o: ObjectiveV3): CachedObjective {
  return {
    id: o.id,
    name: o.name,
    description: o.description,
    state: o.state,
    archived: o.archived,
    category_ids: o.categories.map((c) => c.id),
    started: o.started,
    completed: o.completed,
    position: o.position,
    app_url: o.app_url,
    created_at: o.created_at,
    updated_at: o.updated_at,
  }
}

/** A confirmed row over the one the cache had: what the answer left out stays. */
export function mergeRow<T extends object>(previous: T | undefined, next: Partial<T>): T {
  const out = { ...(previous ?? {}) } as Record<string, unknown>
  for (const [k, v] of Object.entries(next)) if (v !== undefined) out[k] = v
  return out as T
}
