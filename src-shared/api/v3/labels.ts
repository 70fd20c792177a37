// v3 Label (spec part 1 §2.3) and the label parameters other bodies carry.
import { Type, type Static } from 'typebox'
import { Color, LIMITS, Str } from '../common.ts'
import { LABEL_LIMITS } from '../limits.ts'

export const LabelV3 = Type.Object({
  app_url: Type.String(),
  archived: Type.Boolean(),
  color: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  entity_type: Type.Literal('label'),
  external_id: Type.Union([Type.String(), Type.Null()]),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  id: Type.Integer(),
  name: Type.String(),
  updated_at: Type.String(),
})
export type LabelV3 = Static<typeof LabelV3>

/** Label limits (not shown in the spec) live in limits.ts, next to the others. */
export { LABEL_LIMITS }

/** A label named in a body (templates, epics): the label of that name, created when missing. */
export const LabelParamsV3 = Type.Object(
  {
    color: Type.Optional(Color),
    description: Type.Optional(Str(LABEL_LIMITS.description)),
    external_id: Type.Optional(Str(LIMITS.externalId)),
    name: Type.String({ minLength: 1, maxLength: LABEL_LIMITS.name }),
  },
  { additionalProperties: false },
)
export type LabelParamsV3 = Static<typeof LabelParamsV3>

/** POST /labels (not shown in the spec; the real v3's body): the same parameters; the name must be free. */
export const CreateLabelV3 = LabelParamsV3
export type CreateLabelV3 = Static<typeof CreateLabelV3>

/** GET /labels: `slim` as the official client sends it (labels carry no stats here either way). */
export const ListLabelsQueryV3 = Type.Object({ slim: Type.Optional(Type.Boolean()) })
