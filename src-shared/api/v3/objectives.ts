// v3 Objective and its deprecated view Milestone (spec part 1 §2.3), and their
// request bodies (part 2 §4.4). The two share one shape and one record.
import { Type, type Static } from 'typebox'
import { Color, DateTime, Enums, Id, LIMITS, Nullable, Str } from '../common.ts'
import { CategoryV3 } from './categories.ts'

export const ObjectiveState = Type.Enum(Enums.objectiveState)
export type ObjectiveState = Static<typeof ObjectiveState>

export const ObjectiveV3 = Type.Object({
  app_url: Type.String(),
  archived: Type.Boolean(),
  categories: Type.Array(CategoryV3),
  completed: Type.Boolean(),
  completed_at: Nullable(Type.String()),
  completed_at_override: Nullable(Type.String()),
  created_at: Type.String(),
  description: Type.String(),
  /** 'objective' on /objectives routes, 'milestone' on the deprecated /milestones routes. */
  entity_type: Type.Union([Type.Literal('objective'), Type.Literal('milestone')]),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  id: Type.Integer(),
  key_result_ids: Type.Array(Type.String()),
  name: Type.String(),
  position: Type.Integer(),
  started: Type.Boolean(),
  started_at: Nullable(Type.String()),
  started_at_override: Nullable(Type.String()),
  state: ObjectiveState,
  stats: Type.Object({
    /** Seconds, over the completed stories of its epics (0 when there are none). */
    average_cycle_time: Type.Integer(),
    average_lead_time: Type.Integer(),
    num_related_documents: Type.Integer(),
  }),
  updated_at: Type.String(),
})
export type ObjectiveV3 = Static<typeof ObjectiveV3>
export const MilestoneV3 = ObjectiveV3
export type MilestoneV3 = ObjectiveV3

/** A category named in an objective body: the category of that name, created when missing. */
export const ObjectiveCategoryParamsV3 = Type.Object(
  {
    color: Type.Optional(Color),
    external_id: Type.Optional(Str(LIMITS.externalId)),
    name: Type.String({ minLength: 1, maxLength: LIMITS.categoryName }),
  },
  { additionalProperties: false },
)
export type ObjectiveCategoryParamsV3 = Static<typeof ObjectiveCategoryParamsV3>

const Name = Type.String({ minLength: 1, maxLength: LIMITS.milestoneName })

export const CreateObjectiveV3 = Type.Object(
  {
    categories: Type.Optional(Type.Array(ObjectiveCategoryParamsV3)),
    completed_at_override: Type.Optional(DateTime),
    description: Type.Optional(Str(LIMITS.milestoneDescription)),
    name: Name,
    started_at_override: Type.Optional(DateTime),
    state: Type.Optional(ObjectiveState),
  },
  { additionalProperties: false },
)
export type CreateObjectiveV3 = Static<typeof CreateObjectiveV3>
export const CreateMilestoneV3 = CreateObjectiveV3

export const UpdateObjectiveV3 = Type.Object(
  {
    after_id: Type.Optional(Id),
    archived: Type.Optional(Type.Boolean()),
    before_id: Type.Optional(Id),
    categories: Type.Optional(Type.Array(ObjectiveCategoryParamsV3)),
    completed_at_override: Type.Optional(Nullable(DateTime)),
    description: Type.Optional(Str(LIMITS.milestoneDescription)),
    name: Type.Optional(Name),
    started_at_override: Type.Optional(Nullable(DateTime)),
    state: Type.Optional(ObjectiveState),
  },
  { additionalProperties: false },
)
export type UpdateObjectiveV3 = Static<typeof UpdateObjectiveV3>
export const UpdateMilestoneV3 = UpdateObjectiveV3
