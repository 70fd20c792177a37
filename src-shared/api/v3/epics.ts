// v3 Epic, EpicSlim, ThreadedComment, Health and the epic workflow (spec part 1 §2.3),
// and the request bodies of the v3 epic operations (part 2 §4.4).
import { Type, type Static } from 'typebox'
import { DateTime, Enums, Id, LIMITS, Nullable, Str, Uuid } from '../common.ts'
import { LabelParamsV3, LabelV3 } from './labels.ts'

export const EpicStatsV3 = Type.Object({
  last_story_update: Nullable(Type.String()),
  num_points: Type.Integer(),
  num_points_backlog: Type.Integer(),
  num_points_done: Type.Integer(),
  num_points_started: Type.Integer(),
  num_points_unstarted: Type.Integer(),
  num_related_documents: Type.Integer(),
  num_stories_backlog: Type.Integer(),
  num_stories_done: Type.Integer(),
  num_stories_started: Type.Integer(),
  num_stories_total: Type.Integer(),
  num_stories_unestimated: Type.Integer(),
  num_stories_unstarted: Type.Integer(),
})
export type EpicStatsV3 = Static<typeof EpicStatsV3>

const healthFields = {
  created_at: Type.String(),
  entity_type: Type.Literal('health'),
  epic_id: Type.Integer(),
  /** Only on an objective's health; an epic's health leaves it out (the published Health has it optional). */
  objective_id: Type.Optional(Type.Integer()),
  status: Type.Enum(Enums.healthStatus),
  text: Type.String(),
  updated_at: Type.String(),
}

/**
 * A health update someone posted, or the "No Health" an epic has before anyone
 * sets one: that one has a null id and no author_id (left out, never null).
 */
export const HealthV3 = Type.Union([
  Type.Object({ ...healthFields, id: Type.String(), author_id: Type.String() }),
  Type.Object({ ...healthFields, id: Type.Null(), author_id: Type.Optional(Type.String()) }),
])
export type HealthV3 = Static<typeof HealthV3>

/** A comment with its replies, recursively. */
export const ThreadedCommentV3 = Type.Cyclic(
  {
    ThreadedComment: Type.Object({
      app_url: Type.String(),
      author_id: Type.String(),
      comments: Type.Array(Type.Ref('ThreadedComment')),
      created_at: Type.String(),
      deleted: Type.Boolean(),
      entity_type: Type.Literal('threaded-comment'),
      external_id: Nullable(Type.String()),
      group_mention_ids: Type.Array(Type.String()),
      id: Type.Integer(),
      member_mention_ids: Type.Array(Type.String()),
      mention_ids: Type.Array(Type.String()),
      text: Type.String(),
      updated_at: Type.String(),
    }),
  },
  'ThreadedComment',
)
export type ThreadedCommentV3 = Static<typeof ThreadedCommentV3>

export const EpicSlimV3 = Type.Object({
  app_url: Type.String(),
  archived: Type.Boolean(),
  associated_groups: Type.Array(Type.Object({ associated_stories_count: Type.Integer(), group_id: Type.String() })),
  completed: Type.Boolean(),
  completed_at: Nullable(Type.String()),
  completed_at_override: Nullable(Type.String()),
  created_at: Type.String(),
  deadline: Nullable(Type.String()),
  /** Lists leave it out unless includes_description=true. */
  description: Type.Optional(Type.String()),
  entity_type: Type.Literal('epic'),
  epic_state_id: Type.Integer(),
  external_id: Nullable(Type.String()),
  follower_ids: Type.Array(Type.String()),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  group_id: Nullable(Type.String()),
  group_ids: Type.Array(Type.String()),
  group_mention_ids: Type.Array(Type.String()),
  id: Type.Integer(),
  label_ids: Type.Array(Type.Integer()),
  labels: Type.Array(LabelV3),
  member_mention_ids: Type.Array(Type.String()),
  mention_ids: Type.Array(Type.String()),
  milestone_id: Nullable(Type.Integer()),
  name: Type.String(),
  objective_ids: Type.Array(Type.Integer()),
  owner_ids: Type.Array(Type.String()),
  planned_start_date: Nullable(Type.String()),
  planner_id: Nullable(Type.String()),
  planner_name: Nullable(Type.String()),
  planner_plugin_id: Nullable(Type.String()),
  planner_url: Nullable(Type.String()),
  position: Type.Integer(),
  project_ids: Type.Array(Type.Integer()),
  requested_by_id: Type.String(),
  started: Type.Boolean(),
  started_at: Nullable(Type.String()),
  started_at_override: Nullable(Type.String()),
  state: Type.Enum(Enums.objectiveState),
  stats: EpicStatsV3,
  stories_without_projects: Type.Integer(),
  updated_at: Type.String(),
})
export type EpicSlimV3 = Static<typeof EpicSlimV3>

export const EpicV3 = Type.Object({
  ...EpicSlimV3.properties,
  description: Type.String(),
  comments: Type.Array(ThreadedCommentV3),
  health: HealthV3,
})
export type EpicV3 = Static<typeof EpicV3>

export const EpicStateV3 = Type.Object({
  color: Nullable(Type.String()),
  created_at: Type.String(),
  description: Type.String(),
  entity_type: Type.Literal('epic-state'),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  id: Type.Integer(),
  name: Type.String(),
  position: Type.Integer(),
  type: Type.String(),
  updated_at: Type.String(),
})
export type EpicStateV3 = Static<typeof EpicStateV3>

export const EpicWorkflowV3 = Type.Object({
  created_at: Type.String(),
  default_epic_state_id: Type.Integer(),
  entity_type: Type.Literal('epic-workflow'),
  epic_states: Type.Array(EpicStateV3),
  id: Type.Integer(),
  updated_at: Type.String(),
})
export type EpicWorkflowV3 = Static<typeof EpicWorkflowV3>

// ---- request bodies ----

const EpicStateName = Type.Enum(Enums.objectiveState)

/** Fields create and update share. */
const epicWriteFields = {
  completed_at_override: Type.Optional(Nullable(DateTime)),
  deadline: Type.Optional(Nullable(DateTime)),
  description: Type.Optional(Str(LIMITS.epicDescription)),
  epic_state_id: Type.Optional(Id),
  external_id: Type.Optional(Str(LIMITS.externalId)),
  follower_ids: Type.Optional(Type.Array(Uuid)),
  /** Deprecated: use group_ids. */
  group_id: Type.Optional(Nullable(Uuid)),
  group_ids: Type.Optional(Type.Array(Uuid)),
  /** Labels by name: a name no label has yet makes a new label. */
  labels: Type.Optional(Type.Array(LabelParamsV3)),
  /** Deprecated: use objective_ids. */
  milestone_id: Type.Optional(Nullable(Id)),
  objective_ids: Type.Optional(Type.Array(Id)),
  owner_ids: Type.Optional(Type.Array(Uuid)),
  planned_start_date: Type.Optional(Nullable(DateTime)),
  requested_by_id: Type.Optional(Uuid),
  started_at_override: Type.Optional(Nullable(DateTime)),
  /** Deprecated: use epic_state_id (which wins when both are sent). */
  state: Type.Optional(EpicStateName),
}

/** POST /epics: the official client's CreateEpic. */
export const CreateEpicV3 = Type.Object(
  {
    ...epicWriteFields,
    name: Str(LIMITS.epicName),
    converted_from_story_id: Type.Optional(Nullable(Id)),
    created_at: Type.Optional(DateTime),
    updated_at: Type.Optional(DateTime),
  },
  { additionalProperties: false },
)
export type CreateEpicV3 = Static<typeof CreateEpicV3>

/** PUT /epics/{id} (part 2 §4.4). */
export const UpdateEpicV3 = Type.Object(
  {
    ...epicWriteFields,
    after_id: Type.Optional(Id),
    archived: Type.Optional(Type.Boolean()),
    before_id: Type.Optional(Id),
    name: Type.Optional(Str(LIMITS.epicName)),
  },
  { additionalProperties: false },
)
export type UpdateEpicV3 = Static<typeof UpdateEpicV3>

/** GET /epics: includes_description as the real service; external_id narrows to the epics created with it. */
export const ListEpicsQueryV3 = Type.Object(
  {
    includes_description: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type ListEpicsQueryV3 = Static<typeof ListEpicsQueryV3>

export const CreateEpicCommentV3 = Type.Object(
  {
    text: Str(LIMITS.commentText),
    author_id: Type.Optional(Uuid),
    created_at: Type.Optional(DateTime),
    updated_at: Type.Optional(DateTime),
    external_id: Type.Optional(Str(LIMITS.externalId)),
  },
  { additionalProperties: false },
)
export type CreateEpicCommentV3 = Static<typeof CreateEpicCommentV3>

export const UpdateEpicCommentV3 = Type.Object({ text: Str(LIMITS.commentText) }, { additionalProperties: false })
export type UpdateEpicCommentV3 = Static<typeof UpdateEpicCommentV3>

export const CreateEpicHealthV3 = Type.Object(
  {
    status: Type.Enum(Enums.healthStatus),
    text: Type.Optional(Str(LIMITS.commentText)),
  },
  { additionalProperties: false },
)
export type CreateEpicHealthV3 = Static<typeof CreateEpicHealthV3>
