// v4 Epic, EpicWorkflow and EpicState (spec part 1 §2.2) and the request
// bodies of the v4 epic operations (part 2 §4.2).
import { Type, type Static } from 'typebox'
import { BULK_MAX, DateTime, Id, LIMITS, Nullable, PAGE_LIMIT, PageOf, Slim, Str, Uuid } from '../common.ts'

export const EpicV4 = Type.Object({
  entity_type: Type.Literal('epic'),
  app_url: Type.String(),
  archived: Type.Boolean(),
  comments: PageOf(Slim),
  completed: Type.Boolean(),
  completed_at: Nullable(Type.String()),
  completed_at_override: Nullable(Type.String()),
  created_at: Type.String(),
  deadline: Nullable(Type.String()),
  description: Type.String(),
  epic_state: Slim,
  external_id: Nullable(Type.String()),
  followers: PageOf(Slim),
  healths: PageOf(Slim),
  id: Type.Integer(),
  labels: PageOf(Slim),
  mentioned_members: PageOf(Slim),
  mentioned_teams: PageOf(Slim),
  name: Type.String(),
  objectives: PageOf(Slim),
  owners: PageOf(Slim),
  planned_start_date: Nullable(Type.String()),
  requester: Nullable(Slim),
  started: Type.Boolean(),
  started_at: Nullable(Type.String()),
  started_at_override: Nullable(Type.String()),
  stories: PageOf(Slim),
  teams: PageOf(Slim),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type EpicV4 = Static<typeof EpicV4>

export const EpicStateV4 = Type.Object({
  entity_type: Type.Literal('epic-state'),
  color: Nullable(Type.String()),
  created_at: Type.String(),
  description: Type.String(),
  id: Type.Integer(),
  name: Type.String(),
  position: Type.Integer(),
  type: Type.String(),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type EpicStateV4 = Static<typeof EpicStateV4>

export const EpicWorkflowV4 = Type.Object({
  entity_type: Type.Literal('epic-workflow'),
  created_at: Type.String(),
  default_epic_state: Slim,
  epic_states: PageOf(EpicStateV4),
  id: Type.Integer(),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type EpicWorkflowV4 = Static<typeof EpicWorkflowV4>

export const EPIC_LIST = { orderBy: ['updated_at'], filter: ['exclude_archived', 'include_archived'] } as const
export const EPIC_STATE_LIST = { orderBy: ['position'], filter: ['all'] } as const

// ---- request bodies ----

const epicFields = {
  completed_at_override: Type.Optional(DateTime),
  deadline: Type.Optional(Nullable(DateTime)),
  description: Type.Optional(Str(LIMITS.epicDescription)),
  epic_state_id: Type.Optional(Id),
  external_id: Type.Optional(Str(LIMITS.externalId)),
  planned_start_date: Type.Optional(Nullable(DateTime)),
  requested_by_id: Type.Optional(Uuid),
  started_at_override: Type.Optional(DateTime),
}

export const CreateEpicV4 = Type.Object(
  {
    name: Str(LIMITS.epicName),
    ...epicFields,
    follower_ids: Type.Optional(Type.Array(Uuid)),
    objective_ids: Type.Optional(Type.Array(Id)),
    owner_ids: Type.Optional(Type.Array(Uuid)),
    team_ids: Type.Optional(Type.Array(Uuid)),
  },
  { additionalProperties: false },
)
export type CreateEpicV4 = Static<typeof CreateEpicV4>

const Uuids = Type.Optional(Type.Array(Uuid))
const Ids = Type.Optional(Type.Array(Id))

/** Each id list in its replace form, its `_add` form and its `_remove` form (applied in that order). */
const updateEpicFields = {
  ...epicFields,
  archived: Type.Optional(Type.Boolean()),
  completed_at_override: Type.Optional(Nullable(DateTime)),
  name: Type.Optional(Str(LIMITS.epicName)),
  started_at_override: Type.Optional(Nullable(DateTime)),
  follower_ids: Uuids,
  follower_ids_add: Uuids,
  follower_ids_remove: Uuids,
  objective_ids: Ids,
  objective_ids_add: Ids,
  objective_ids_remove: Ids,
  owner_ids: Uuids,
  owner_ids_add: Uuids,
  owner_ids_remove: Uuids,
  team_ids: Uuids,
  team_ids_add: Uuids,
  team_ids_remove: Uuids,
}

export const UpdateEpicV4 = Type.Object(updateEpicFields, { additionalProperties: false })
export type UpdateEpicV4 = Static<typeof UpdateEpicV4>

export const BulkCreateEpicsV4 = Type.Object({ epics: Type.Array(CreateEpicV4, { minItems: 1, maxItems: BULK_MAX }) }, { additionalProperties: false })
export type BulkCreateEpicsV4 = Static<typeof BulkCreateEpicsV4>

export const BulkUpdateEpicsV4 = Type.Object(
  {
    epics: Type.Array(Type.Object({ id: Id, ...updateEpicFields }, { additionalProperties: false }), { minItems: 1, maxItems: BULK_MAX }),
  },
  { additionalProperties: false },
)
export type BulkUpdateEpicsV4 = Static<typeof BulkUpdateEpicsV4>

export const BulkDeleteEpicsV4 = Type.Object({ epic_ids: Type.Array(Id, { minItems: 1, maxItems: BULK_MAX }) }, { additionalProperties: false })
export type BulkDeleteEpicsV4 = Static<typeof BulkDeleteEpicsV4>

/** force: delete even when the epic is not archived (bulk and single delete). */
export const DeleteEpicsQueryV4 = Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false })

/**
 * GET /epics/search: the real service's parameters (query, limit, cursor, fields).
 * `query` is required unless cursor is sent; see the README for the operators it understands.
 */
export const SearchEpicsQueryV4 = Type.Object(
  {
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    fields: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
)
export type SearchEpicsQueryV4 = Static<typeof SearchEpicsQueryV4>
