// Every API shape the data layer reads (v3 and v4), turned into the one cached
// shape of its kind (types.ts). One converter per kind and shape, here and
// nowhere else: the sync engine, refreshes and the outbox's write-backs all
// store what these return, so a cached row never depends on which API answered.
//
// Where an answer leaves fields out (a v4 epic has no position, a single doc
// GET one content only, a comment does not say which one it replies to), the
// `partial...` converter returns what the answer says, without those fields;
// the full one fills them (from its caller or the cached row, else defaults).
// The outbox writes partial rows over the cached ones with `mergeRow`.
import type { Slim } from '../../../src-shared/api/common.ts'
import type { CategoryV3 } from '../../../src-shared/api/v3/categories.ts'
import type { CustomFieldV3 } from '../../../src-shared/api/v3/custom-fields.ts'
import type { DocSlimV3, DocV3 } from '../../../src-shared/api/v3/docs.ts'
import type { EpicSlimV3, EpicStatsV3, EpicV3, HealthV3, ThreadedCommentV3 } from '../../../src-shared/api/v3/epics.ts'
import type { StorySlimV3 } from '../../../src-shared/api/v3/stories.ts'
import type { LinkedFileV3, UploadedFileV3 } from '../../../src-shared/api/v3/files.ts'
import type { GroupV3 } from '../../../src-shared/api/v3/groups.ts'
import type { LabelV3 } from '../../../src-shared/api/v3/labels.ts'
import type { MemberV3 } from '../../../src-shared/api/v3/members.ts'
import type { ObjectiveV3 } from '../../../src-shared/api/v3/objectives.ts'
import type { CategoryV4 } from '../../../src-shared/api/v4/categories.ts'
import type { DocV4 } from '../../../src-shared/api/v4/docs.ts'
import type { EpicStateV4, EpicV4 } from '../../../src-shared/api/v4/epics.ts'
import { EPIC_FIELDS } from './epic-fields.ts'
import type {
  CachedCategory,
  CachedComment,
  CachedCustomField,
  CachedDoc,
  CachedEpic,
  CachedEpicState,
  StoryProgress,
  CachedFile,
  CachedGroup,
  CachedHealth,
  CachedLabel,
  CachedLinkedFile,
  CachedMember,
  CachedObjective,
  CachedStory,
  EntityId,
} from './types.ts'

/** Where the service puts a new epic: after the last one (README, "Positions step by 1024"). */
export const EPIC_POSITION_STEP = 1024

type PageLike = { entities?: Slim[] } | null | undefined

const idsOf = <T extends string | number>(page: PageLike): T[] => (page?.entities ?? []).map((s) => s.id as T)

/**
 * The fields of a v4 epic the cache keeps: asked for with `fields`, so list
 * pages leave out stories, mentions, uris and overrides (the stories page alone
 * can outweigh the rest of an epic).
 */
export const EPIC_V4_FIELDS = [
  'id',
  'name',
  'description',
  'archived',
  'epic_state',
  'started',
  'completed',
  'started_at',
  'completed_at',
  'deadline',
  'planned_start_date',
  'owners',
  'followers',
  'teams',
  'objectives',
  'labels',
  'requester',
  'external_id',
  'app_url',
  'created_at',
  'updated_at',
  'comments',
  'healths',
] as const satisfies readonly (keyof EpicV4)[]

/** The fields of a v4 doc the cache keeps (both contents: lists carry both, so docs read offline). */
export const DOC_V4_FIELDS = [
  'id',
  'title',
  'content_markdown',
  'content_html',
  'archived',
  'creator',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DocV4)[]

/**
 * What a bootstrap's v4 epic pages are asked for: what the v3 list of every epic (which a bootstrap stores
 * first) does not carry. The rest of each epic comes with that list.
 */
export const EPIC_V4_PAGE_FIELDS = ['id', 'updated_at', 'description', 'comments', 'healths'] as const satisfies readonly (typeof EPIC_V4_FIELDS)[number][]

/**
 * What the doc pages are asked for: a doc's Markdown, not its HTML too. The Markdown is what search, the
 * list's excerpts and editing (offline too) read; the reader shows the service's HTML, which comes when a
 * doc is opened (refreshDoc), and the Markdown until then. Both would be twice the bytes of every doc.
 */
export const DOC_V4_PAGE_FIELDS = [
  'id',
  'title',
  'content_markdown',
  'archived',
  'creator',
  'created_at',
  'updated_at',
] as const satisfies readonly (typeof DOC_V4_FIELDS)[number][]

export type EpicV4Fields = Pick<EpicV4, (typeof EPIC_V4_FIELDS)[number]>
export type DocV4Fields = Pick<DocV4, (typeof DOC_V4_FIELDS)[number]>

// ---- epics ----

/**
 * A v4 epic. v4 has no `position`: it comes from `position` (the v3 list's, or
 * the cached row's); an epic never seen before goes last, as the service places it.
 */
export function epicFromV4(e: EpicV4Fields, position: number, progress?: StoryProgress): CachedEpic {
  return { ...partialEpicFromV4(e), position, ...withProgress(progress) }
}

/** A v4 epic without its position (v4 has none): the cached row's stays. */
export function partialEpicFromV4(e: EpicV4Fields): Omit<CachedEpic, 'position'> {
  return {
    id: e.id,
    name: e.name,
    description: e.description ?? '',
    archived: e.archived,
    epic_state_id: typeof e.epic_state?.id === 'number' ? e.epic_state.id : null,
    started: e.started,
    completed: e.completed,
    started_at: e.started_at ?? null,
    completed_at: e.completed_at ?? null,
    deadline: e.deadline ?? null,
    planned_start_date: e.planned_start_date ?? null,
    owner_ids: idsOf<string>(e.owners),
    follower_ids: idsOf<string>(e.followers),
    group_ids: idsOf<string>(e.teams),
    objective_ids: idsOf<number>(e.objectives),
    label_ids: idsOf<number>(e.labels),
    requested_by_id: (e.requester?.id as string | undefined) ?? null,
    external_id: e.external_id ?? null,
    app_url: e.app_url,
    created_at: e.created_at,
    updated_at: e.updated_at,
  }
}

/**
 * A v3 epic (the full one, or a list's EpicSlim). A list leaves the description
 * out unless asked: then the cached one (or '') stands.
 */
/**
 * The fields epicFromV3 reads: all a v3 epic list needs to carry to the window
 * (the main side drops the rest, OperationRequest.fields: 10,000 epics, 17 MB to 7).
 */
export const EPIC_V3_FIELDS: readonly (keyof EpicSlimV3)[] = ['id', ...EPIC_FIELDS]

/** What the bootstrap's v3 epic list carries: the cached fields and each epic's progress (its stats). */
export const EPIC_LIST_V3_FIELDS: readonly (keyof EpicSlimV3)[] = [...EPIC_V3_FIELDS, 'stats']

export function epicFromV3(e: EpicSlimV3 | EpicV3, cachedDescription = ''): CachedEpic {
  return {
    id: e.id,
    name: e.name,
    description: e.description ?? cachedDescription,
    archived: e.archived,
    epic_state_id: e.epic_state_id ?? null,
    started: e.started,
    completed: e.completed,
    started_at: e.started_at ?? null,
    completed_at: e.completed_at ?? null,
    deadline: e.deadline ?? null,
    planned_start_date: e.planned_start_date ?? null,
    owner_ids: e.owner_ids ?? [],
    follower_ids: e.follower_ids ?? [],
    group_ids: e.group_ids ?? [],
    objective_ids: e.objective_ids ?? [],
    label_ids: e.label_ids ?? [],
    requested_by_id: e.requested_by_id ?? null,
    external_id: e.external_id ?? null,
    position: e.position,
    app_url: e.app_url,
    created_at: e.created_at,
    updated_at: e.updated_at,
    // Only when the answer has them: a row merged over the cached one keeps the cached progress.
    ...withProgress(storyProgressOf(e)),
  }
}

/**
 * An epic as the bootstrap's v3 list gives it: every field but the description (the cached one, or ''), `partial`
 * until a v4 page or a GET brings the rest.
 */
export const epicFromListV3 = (e: EpicSlimV3, cachedDescription = ''): CachedEpic => ({ ...epicFromV3(e, cachedDescription), partial: true })

// ---- stories and progress ----

/** An epic's progress from the stats a v3 answer carries; none when it carries none (a list trimmed to other fields). */
export const storyProgressOf = (e: { stats?: EpicStatsV3 | null }): StoryProgress | undefined =>
  e.stats && typeof e.stats === 'object' ? progressFromStats(e.stats) : undefined

/** `progress` as a row's field, when there is one (spread into the row: an absent one is no key at all). */
export const withProgress = (progress: StoryProgress | undefined): { progress?: StoryProgress } => (progress ? { progress } : {})

/** An epic's progress from its stats: not started counts the backlog too. */
function progressFromStats(s: EpicStatsV3): StoryProgress {
  return {
    done: s.num_stories_done,
    started: s.num_stories_started,
    unstarted: s.num_stories_unstarted + s.num_stories_backlog,
    total: s.num_stories_total,
    points_done: s.num_points_done,
    points_started: s.num_points_started,
    points_unstarted: s.num_points_unstarted + s.num_points_backlog,
    points_total: s.num_points,
    last_story_update: s.last_story_update ?? null,
  }
}

/** The fields of a v3 story the cache keeps (the main side drops the rest of each story). */
export const STORY_V3_FIELDS = [
  'id',
  'epic_id',
  'name',
  'story_type',
  'workflow_state_id',
  'started',
  'completed',
  'archived',
  'estimate',
  'owner_ids',
  'position',
  'app_url',
  'updated_at',
] as const satisfies readonly (keyof StorySlimV3)[]

export type StoryV3Fields = Pick<StorySlimV3, (typeof STORY_V3_FIELDS)[number]>

/** A story of an epic's v3 story list. */
export function storyFromV3(epicId: EntityId, s: StoryV3Fields): CachedStory {
  return {
    id: s.id,
    epic_id: epicId,
    name: s.name,
    story_type: s.story_type,
    workflow_state_id: s.workflow_state_id,
    started: s.started,
    completed: s.completed,
    archived: s.archived,
    estimate: s.estimate ?? null,
    owner_ids: s.owner_ids ?? [],
    position: s.position,
    app_url: s.app_url,
    updated_at: s.updated_at,
  }
}

// ---- comments ----

/**
 * A comment known only from a v4 epic's `comments` page (id, text, deleted).
 * Author, thread and times come with the epic's details (refreshEpic): what the
 * cache already knows of them is kept, and `slim` says the rest is missing.
 */
export function commentFromSlim(epicId: EntityId, s: Slim, cached?: CachedComment): CachedComment {
  const text = typeof s.text === 'string' ? s.text : (cached?.text ?? '')
  const deleted = s.deleted === true
  const same = cached !== undefined && cached.text === text && cached.deleted === deleted
  return {
    id: s.id,
    epic_id: epicId,
    parent_id: cached?.parent_id ?? null,
    author_id: cached?.author_id ?? null,
    text,
    deleted,
    external_id: cached?.external_id ?? null,
    created_at: cached?.created_at ?? '',
    updated_at: cached?.updated_at ?? '',
    // A row with all its details stays complete while the slim agrees with it.
    slim: same ? cached.slim === true : true,
  }
}

/** A v3 threaded comment (without its replies), in the thread of `parentId`. */
export function commentFromV3(epicId: EntityId, c: ThreadedCommentV3, parentId: EntityId | null): CachedComment {
  return { ...partialCommentFromV3(epicId, c), parent_id: parentId, slim: false }
}

/**
 * A v3 comment whose answer does not say which comment it replies to (a single
 * GET or update): the cached row keeps its thread, and whether it is slim.
 */
export function partialCommentFromV3(epicId: EntityId, c: ThreadedCommentV3): Omit<CachedComment, 'parent_id' | 'slim'> {
  return {
    id: c.id,
    epic_id: epicId,
    author_id: c.author_id ?? null,
    text: c.text,
    deleted: c.deleted,
    external_id: c.external_id ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }
}

/** A v3 threaded comment and its replies, flattened (each reply knows its parent). */
export function commentsFromV3(epicId: EntityId, threads: ThreadedCommentV3[], parentId: EntityId | null = null): CachedComment[] {
  const out: CachedComment[] = []
  for (const c of threads) {
    out.push(commentFromV3(epicId, c, parentId))
    out.push(...commentsFromV3(epicId, (c.comments ?? []) as ThreadedCommentV3[], c.id))
  }
  return out
}

// ---- health ----

/** A health update known only from a v4 epic's `healths` page (status and times; no text or author). */
export function healthFromSlim(epicId: EntityId, s: Slim, cached?: CachedHealth): CachedHealth {
  return {
    id: s.id,
    epic_id: epicId,
    status: (s.status as CachedHealth['status']) ?? cached?.status ?? 'No Health',
    text: cached?.text ?? '',
    author_id: cached?.author_id ?? null,
    created_at: (s.created_at as string | undefined) ?? cached?.created_at ?? '',
    updated_at: (s.updated_at as string | undefined) ?? cached?.updated_at ?? '',
    // Health updates are never edited: once known in full, a row stays full.
    slim: cached ? cached.slim === true : true,
  }
}

/** A v3 health update; the "No Health" placeholder of an epic nobody rated (id null) is not a row. */
export function healthFromV3(h: HealthV3): CachedHealth | null {
  if (h.id === null || h.epic_id === null) return null
  return {
    id: h.id,
    epic_id: h.epic_id,
    status: h.status,
    text: h.text,
    author_id: h.author_id,
    created_at: h.created_at,
    updated_at: h.updated_at,
    slim: false,
  }
}

// ---- docs ----

/** What a doc answer may leave out: a content (a single GET carries the one asked for), the creator (v3). */
type DocPart = Omit<CachedDoc, 'content_markdown' | 'content_html' | 'creator_id'> &
  Partial<Pick<CachedDoc, 'content_markdown' | 'content_html' | 'creator_id'>>

/**
 * A doc. The sync's pages carry its Markdown (DOC_V4_PAGE_FIELDS), a single GET (v4 or v3) only the content
 * asked for, and v3 names no creator: `cached` fills what the answer leaves out. Its HTML only from a cached
 * row of the same version: the HTML of an older one would show what the doc no longer says (the reader shows
 * the Markdown until the HTML of this version comes, when the doc is opened).
 */
export function docFromV4(d: DocV4Fields | DocV3 | Omit<DocV4Fields, 'content_html'>, cached?: CachedDoc): CachedDoc {
  const p = partialDocFromV4(d as DocV4Fields)
  const sameVersion = cached !== undefined && cached.updated_at === p.updated_at
  return {
    ...p,
    content_markdown: p.content_markdown ?? cached?.content_markdown ?? '',
    content_html: p.content_html ?? (sameVersion ? cached.content_html : ''),
    creator_id: p.creator_id ?? cached?.creator_id ?? null,
  }
}

/** A doc as its answer says it: a content it does not carry, and a creator v3 does not name, are left out. */
export function partialDocFromV4(d: DocV4Fields | DocV3): DocPart {
  return {
    id: d.id,
    title: d.title,
    content_markdown: d.content_markdown ?? undefined,
    content_html: d.content_html ?? undefined,
    archived: d.archived,
    ...('creator' in d && { creator_id: (d.creator?.id as string | undefined) ?? null }),
    created_at: d.created_at,
    updated_at: d.updated_at,
  }
}

/**
 * A doc as the v3 list of every doc names it (its id and title): `partial` until a page or a GET brings the rest.
 * No version ('' sorts below every one, so any answer replaces it), not known to be archived, no content.
 */
export function docFromListV3(d: DocSlimV3): CachedDoc {
  return { id: d.id, title: d.title, content_markdown: '', content_html: '', archived: false, creator_id: null, created_at: '', updated_at: '', partial: true }
}

/** v3 docs carry the v4 fields but the creator. */
export const docFromV3: (d: DocV3, cached?: CachedDoc) => CachedDoc = docFromV4
export const partialDocFromV3: (d: DocV3) => DocPart = partialDocFromV4

// ---- files ----

export function fileFromV3(f: UploadedFileV3): CachedFile {
  return {
    id: f.id,
    name: f.name,
    description: f.description ?? null,
    content_type: f.content_type,
    size: f.size,
    url: f.url,
    thumbnail_url: f.thumbnail_url ?? null,
    story_ids: f.story_ids ?? [],
    uploader_id: f.uploader_id ?? null,
    external_id: f.external_id ?? null,
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
    description: f.description ?? null,
    content_type: f.content_type ?? null,
    size: f.size ?? null,
    thumbnail_url: f.thumbnail_url ?? null,
    uploader_id: f.uploader_id ?? null,
    created_at: f.created_at,
    updated_at: f.updated_at,
  }
}

// ---- reference data ----

export function categoryFromV3(c: CategoryV3 | CategoryV4): CachedCategory {
  return {
    id: c.id,
    name: c.name,
    color: c.color ?? null,
    archived: c.archived,
    external_id: c.external_id ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  }
}

/** v4 categories carry the same fields as v3 ones. */
export const categoryFromV4: (c: CategoryV4) => CachedCategory = categoryFromV3

export function objectiveFromV3(o: ObjectiveV3): CachedObjective {
  return {
    id: o.id,
    name: o.name,
    description: o.description ?? '',
    state: o.state,
    archived: o.archived,
    category_ids: (o.categories ?? []).map((c) => c.id),
    started: o.started,
    completed: o.completed,
    position: o.position,
    app_url: o.app_url,
    created_at: o.created_at,
    updated_at: o.updated_at,
  }
}

export function groupFromV3(g: GroupV3): CachedGroup {
  return {
    id: g.id,
    name: g.name,
    mention_name: g.mention_name,
    description: g.description ?? '',
    color: g.color ?? null,
    color_key: g.color_key ?? null,
    archived: g.archived,
    member_ids: g.member_ids ?? [],
  }
}

export function memberFromV3(m: MemberV3): CachedMember {
  return {
    id: m.id,
    name: m.profile.name,
    mention_name: m.profile.mention_name,
    email_address: m.profile.email_address,
    role: m.role,
    disabled: m.disabled || m.profile.deactivated === true,
  }
}

export function epicStateFromV4(s: EpicStateV4): CachedEpicState {
  return {
    id: s.id,
    name: s.name,
    type: s.type,
    color: s.color ?? null,
    description: s.description ?? '',
    position: s.position,
  }
}

export function customFieldFromV3(f: CustomFieldV3): CachedCustomField {
  return {
    id: f.id,
    name: f.name,
    field_type: f.field_type,
    enabled: f.enabled,
    values: (f.values ?? []).map((v) => ({
      id: v.id,
      value: v.value,
      color_key: v.color_key ?? null,
      enabled: v.enabled,
      position: v.position,
    })),
  }
}

export function labelFromV3(l: LabelV3): CachedLabel {
  return { id: l.id, name: l.name, color: l.color ?? null, archived: l.archived }
}

// ---- partial rows ----

/** A row an answer gave (partial or full) over the one the cache had: what the answer left out stays. */
export function mergeRow<T extends object>(previous: T | undefined, next: Partial<T>): T {
  const out = { ...(previous ?? {}) } as Record<string, unknown>
  for (const [k, v] of Object.entries(next)) if (v !== undefined) out[k] = v
  completePartial(out, next)
  return out as T
}

/**
 * A row with fields laid over it (an answer, a page, the user's queued change): an epic stored from the v3 list
 * (`partial`) is whole once they bring its description, the one field that list lacks; a doc stored from the v3
 * list, once they bring its Markdown (the text the user reads and edits).
 */
export function completePartial(row: Record<string, unknown>, fields: object): void {
  if (row.partial !== true) return
  const brought = fields as { description?: unknown; content_markdown?: unknown }
  if (typeof brought.description === 'string' || typeof brought.content_markdown === 'string') delete row.partial
}
