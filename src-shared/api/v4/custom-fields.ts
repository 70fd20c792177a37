// v4 CustomField and CustomFieldValue (spec part 1 §2.2) and the bodies of the
// v4 custom-field operations (part 2 §4.2).
import { Type, type Static } from 'typebox'
import { BULK_MAX, Nullable, Slim, Uuid } from '../common.ts'
import { CustomFieldValueParams, customFieldUpdateFields } from '../v3/custom-fields.ts'

export const CustomFieldValueV4 = Type.Object({
  entity_type: Type.Literal('custom-field-value'),
  color_key: Nullable(Type.String()),
  enabled: Type.Boolean(),
  field: Slim,
  id: Type.String(),
  position: Type.Integer(),
  value: Type.String(),
})

export const CustomFieldV4 = Type.Object({
  entity_type: Type.Literal('custom-field'),
  canonical_name: Nullable(Type.String()),
  created_at: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  field_type: Type.String(),
  fixed_position: Type.Boolean(),
  icon_set_identifier: Nullable(Type.String()),
  id: Type.String(),
  name: Type.String(),
  position: Type.Integer(),
  story_types: Type.Array(Type.String()),
  updated_at: Type.String(),
  uri: Type.String(),
  values: Type.Array(CustomFieldValueV4),
})
export type CustomFieldV4 = Static<typeof CustomFieldV4>

const updateFieldsV4 = {
  ...customFieldUpdateFields,
  /** Adds values (or changes those named by id) and leaves the others as they are. */
  values_add: Type.Optional(Type.Array(CustomFieldValueParams)),
  values_remove: Type.Optional(Type.Array(Uuid)),
}

export const UpdateCustomFieldV4 = Type.Object(updateFieldsV4, { additionalProperties: false })
export type UpdateCustomFieldV4 = Static<typeof UpdateCustomFieldV4>

export const BulkUpdateCustomFieldsV4 = Type.Object(
  {
    custom_fields: Type.Array(Type.Object({ id: Uuid, ...updateFieldsV4 }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: BULK_MAX,
    }),
  },
  { additionalProperties: false },
)
export type BulkUpdateCustomFieldsV4 = Static<typeof BulkUpdateCustomFieldsV4>

export const BulkDeleteCustomFieldsV4 = Type.Object(
  { custom_field_ids: Type.Array(Uuid, { minItems: 1, maxItems: BULK_MAX }) },
  { additionalProperties: false },
)
export type BulkDeleteCustomFieldsV4 = Static<typeof BulkDeleteCustomFieldsV4>

export const CUSTOM_FIELD_LIST = { orderBy: ['name', 'updated_at'], filter: ['all'] } as const
export const CUSTOM_FIELD_STORY_LIST = { orderBy: ['created_at', 'position', 'updated_at'], filter: ['exclude_archived', 'include_archived'] } as const
