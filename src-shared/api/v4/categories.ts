// v4 Category (spec part 1 §2.2) and its request bodies (part 2 §4.2).
import { Type, type Static } from 'typebox'
import { BULK_MAX, Color, Id, LIMITS, Nullable, Str } from '../common.ts'

export const CategoryV4 = Type.Object({
  entity_type: Type.Literal('category'),
  archived: Type.Boolean(),
  color: Nullable(Type.String()),
  created_at: Type.String(),
  external_id: Nullable(Type.String()),
  id: Type.Integer(),
  name: Type.String(),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type CategoryV4 = Static<typeof CategoryV4>

export const CATEGORY_LIST = { orderBy: ['name', 'updated_at'], filter: ['exclude_archived', 'include_archived'] } as const

export const CreateCategoryV4 = Type.Object(
  {
    color: Type.Optional(Color),
    external_id: Type.Optional(Str(LIMITS.externalId)),
    name: Str(LIMITS.categoryName),
  },
  { additionalProperties: false },
)
export type CreateCategoryV4 = Static<typeof CreateCategoryV4>

export const UpdateCategoryV4 = Type.Object(
  {
    archived: Type.Optional(Type.Boolean()),
    color: Type.Optional(Nullable(Color)),
    external_id: Type.Optional(Nullable(Str(LIMITS.externalId))),
    name: Type.Optional(Str(LIMITS.categoryName)),
  },
  { additionalProperties: false },
)
export type UpdateCategoryV4 = Static<typeof UpdateCategoryV4>

/** Bulk bodies: not shown in the spec; shaped like the epic bulk bodies (see the README). */
export const BulkCreateCategoriesV4 = Type.Object(
  { categories: Type.Array(CreateCategoryV4, { minItems: 1, maxItems: BULK_MAX }) },
  { additionalProperties: false },
)
export const BulkUpdateCategoriesV4 = Type.Object(
  {
    categories: Type.Array(Type.Object({ id: Id, ...UpdateCategoryV4.properties }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: BULK_MAX,
    }),
  },
  { additionalProperties: false },
)
export const BulkDeleteCategoriesV4 = Type.Object({ category_ids: Type.Array(Id, { minItems: 1, maxItems: BULK_MAX }) }, { additionalProperties: false })
