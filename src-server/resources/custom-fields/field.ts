// The stored custom field (the v3 CustomField less entity_type) and the value
// lookups stories and templates render with.
import type { ServiceContext } from '../../context.ts'

export interface CustomFieldValueRecord {
  id: string
  value: string
  position: number
  color_key: string | null
  enabled: boolean
}

export interface CustomFieldRecord {
  id: string
  name: string
  description: string
  canonical_name: string | null
  enabled: boolean
  field_type: 'enum'
  fixed_position: boolean
  icon_set_identifier: string | null
  position: number
  story_types: string[]
  values: CustomFieldValueRecord[]
  created_at: string
  updated_at: string
}

/** A field/value pair as stories and templates store it. */
export interface FieldValueRef {
  field_id: string
  value_id: string
}

export const customFields = (ctx: ServiceContext) => ctx.col<CustomFieldRecord>('custom_field')

/** The value's current text, or undefined when the field or the value is gone. */
export function valueText(ctx: ServiceContext, ref: FieldValueRef): string | undefined {
  return customFields(ctx)
    .get(ref.field_id)
    ?.values.find((v) => v.id === ref.value_id)?.value
}
