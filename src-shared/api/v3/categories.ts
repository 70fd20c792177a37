// v3 Category (spec part 1 §2.3) and its request bodies (part 2 §4.4).
import { Type, type Static } from 'typebox'
import { Color, LIMITS, Nullable, Str } from '../common.ts'

export const CategoryV3 = Type.Object({
  archived: Type.Boolean(),
  color: Nullable(Type.String()),
  created_at: Type.String(),
  entity_type: Type.Literal('category'),
  external_id: Nullable(Type.String()),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  id: Type.Integer(),
  name: Type.String(),
  /** What the category groups: 'milestone' (objectives, formerly milestones), the one kind there is. */
  type: Type.String(),
  updated_at: Type.String(),
})
export type CategoryV3 = Static<typeof CategoryV3>

export const CreateCategoryV3 = Type.Object(
  {
    color: Type.Optional(Color),
    external_id: Type.Optional(Str(LIMITS.externalId)),
    name: Str(LIMITS.categoryName),
  },
  { additionalProperties: false },
)
export type CreateCategoryV3 = Static<typeof CreateCategoryV3>

export const UpdateCategoryV3 = Type.Object(
  {
    archived: Type.Optional(Type.Boolean()),
    color: Type.Optional(Nullable(Color)),
    name: Type.Optional(Str(LIMITS.categoryName)),
  },
  { additionalProperties: false },
)
export type UpdateCategoryV3 = Static<typeof UpdateCategoryV3>
