// v3 CustomField (spec part 1 §2.3) and the body of PUT /custom-fields/{id} (part 2 §4.4).
import { Type, type Static } from 'typebox'
import { Enums, LIMITS, Nullable, Str, Uuid } from '../common.ts'

/** Colour keys of enum values: the team colour keys (as the official client types them). */
export const ValueColorKey = Type.Enum(Enums.groupColorKey)

/** Value strings: the limit is not shown in the spec; 63, like field names (see the README). */
export const CUSTOM_FIELD_VALUE_MAX = 63

export const CustomFieldEnumValueV3 = Type.Object({
  color_key: Nullable(Type.String()),
  enabled: Type.Boolean(),
  entity_type: Type.Literal('custom-field-enum-value'),
  id: Type.String(),
  position: Type.Integer(),
  value: Type.String(),
})

/** What a field does not have is left out, never null or "" (the published CustomField's strings are non-empty). */
export const CustomFieldV3 = Type.Object({
  canonical_name: Type.Optional(Type.String()),
  created_at: Type.String(),
  description: Type.Optional(Type.String()),
  enabled: Type.Boolean(),
  entity_type: Type.Literal('custom-field'),
  field_type: Type.String(),
  icon_set_identifier: Type.Optional(Type.String()),
  id: Type.String(),
  name: Type.String(),
  position: Type.Integer(),
  updated_at: Type.String(),
  values: Type.Array(CustomFieldEnumValueV3),
})
export type CustomFieldV3 = Static<typeof CustomFieldV3>

/** One entry of `values`: with an id it changes that value, without one it creates a value. */
export const CustomFieldValueParams = Type.Object(
  {
    color_key: Type.Optional(Nullable(ValueColorKey)),
    enabled: Type.Optional(Type.Boolean()),
    id: Type.Optional(Uuid),
    value: Type.Optional(Type.String({ minLength: 1, maxLength: CUSTOM_FIELD_VALUE_MAX })),
  },
  { additionalProperties: false },
)
export type CustomFieldValueParams = Static<typeof CustomFieldValueParams>

export const customFieldUpdateFields = {
  after_id: Type.Optional(Uuid),
  before_id: Type.Optional(Uuid),
  description: Type.Optional(Str(LIMITS.customFieldDescription)),
  enabled: Type.Optional(Type.Boolean()),
  icon_set_identifier: Type.Optional(Str(LIMITS.iconSetIdentifier)),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.customFieldName })),
  values: Type.Optional(Type.Array(CustomFieldValueParams)),
}

export const UpdateCustomFieldV3 = Type.Object(customFieldUpdateFields, { additionalProperties: false })
export type UpdateCustomFieldV3 = Static<typeof UpdateCustomFieldV3>
