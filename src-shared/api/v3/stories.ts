// v3 StorySlim (spec part 1 §2.3) and the query strings of the v3 story lists (part 2 §4.4).
import { Type, type Static } from 'typebox'
import { Nullable } from '../common.ts'
import { LabelV3 } from './labels.ts'

export const StoryCustomFieldV3 = Type.Object({ field_id: Type.String(), value: Type.String(), value_id: Type.String() })

export const StoryLinkV3 = Type.Object({
  created_at: Type.String(),
  entity_type: Type.Literal('story-link'),
  id: Type.Integer(),
  object_id: Type.Integer(),
  subject_id: Type.Integer(),
  /** The workflow state of the subject story. */
  subject_workflow_state_id: Type.Integer(),
  type: Type.String(),
  updated_at: Type.String(),
  verb: Type.String(),
})

export const StorySlimV3 = Type.Object({
  app_url: Type.String(),
  archived: Type.Boolean(),
  blocked: Type.Boolean(),
  blocker: Type.Boolean(),
  comment_ids: Type.Array(Type.Integer()),
  completed: Type.Boolean(),
  completed_at: Nullable(Type.String()),
  completed_at_override: Nullable(Type.String()),
  created_at: Type.String(),
  custom_fields: Type.Array(StoryCustomFieldV3),
  /** Seconds from started to completed; only on completed stories. */
  cycle_time: Type.Optional(Type.Integer()),
  deadline: Nullable(Type.String()),
  /** Only when includes_description=true. */
  description: Type.Optional(Type.String()),
  entity_type: Type.Literal('story'),
  epic_id: Nullable(Type.Integer()),
  estimate: Nullable(Type.Integer()),
  external_id: Nullable(Type.String()),
  external_links: Type.Array(Type.String()),
  file_ids: Type.Array(Type.Integer()),
  follower_ids: Type.Array(Type.String()),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  group_id: Nullable(Type.String()),
  group_mention_ids: Type.Array(Type.String()),
  id: Type.Integer(),
  iteration_id: Nullable(Type.Integer()),
  label_ids: Type.Array(Type.Integer()),
  labels: Type.Array(LabelV3),
  /** Seconds from created to completed; only on completed stories. */
  lead_time: Type.Optional(Type.Integer()),
  linked_file_ids: Type.Array(Type.Integer()),
  member_mention_ids: Type.Array(Type.String()),
  mention_ids: Type.Array(Type.String()),
  moved_at: Nullable(Type.String()),
  name: Type.String(),
  num_tasks_completed: Type.Integer(),
  owner_ids: Type.Array(Type.String()),
  parent_story_id: Nullable(Type.Integer()),
  position: Type.Integer(),
  previous_iteration_ids: Type.Array(Type.Integer()),
  project_id: Nullable(Type.Integer()),
  requested_by_id: Type.String(),
  started: Type.Boolean(),
  started_at: Nullable(Type.String()),
  started_at_override: Nullable(Type.String()),
  stats: Type.Object({ num_related_documents: Type.Integer() }),
  story_links: Type.Array(StoryLinkV3),
  story_template_id: Nullable(Type.String()),
  story_type: Type.String(),
  sub_task_story_ids: Type.Array(Type.Integer()),
  synced_item: Type.Optional(Type.Object({ external_id: Type.String(), url: Type.String() })),
  task_ids: Type.Array(Type.Integer()),
  unresolved_blocker_comments: Type.Array(Type.Integer()),
  updated_at: Type.String(),
  workflow_id: Type.Integer(),
  workflow_state_id: Type.Integer(),
})
export type StorySlimV3 = Static<typeof StorySlimV3>

/** GET /epics/{id}/stories and /labels/{id}/stories. v3 query strings accept extra keys (the deprecated `token`). */
export const StoriesQueryV3 = Type.Object({ includes_description: Type.Optional(Type.Boolean()) })
export type StoriesQueryV3 = Static<typeof StoriesQueryV3>

/**
 * GET /external-link/stories. The 2048-character limit is checked by the route
 * so that it answers 422 naming the parameter, like every other string limit.
 */
export const ExternalLinkQueryV3 = Type.Object({ external_link: Type.String({ minLength: 1, pattern: '^https?://.+$' }) })
export type ExternalLinkQueryV3 = Static<typeof ExternalLinkQueryV3>
