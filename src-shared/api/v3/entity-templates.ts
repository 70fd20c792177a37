// v3 EntityTemplate (spec part 1 §2.3) and its request bodies (part 2 §4.4;
// update: not shown, shaped like the official client's UpdateEntityTemplate).
import { Type, type Static } from 'typebox'
import { DateTime, Id, LIMITS, Nullable, Uuid } from '../common.ts'
import { LinkedFileV3, UploadedFileV3 } from './files.ts'
import { LabelParamsV3, LabelV3 } from './labels.ts'

export const StoryType = Type.Enum(['feature', 'bug', 'chore'])
export type StoryType = Static<typeof StoryType>

const TemplateName = Type.String({ minLength: 1, maxLength: LIMITS.entityTemplateName })

export const TemplateCustomFieldV3 = Type.Object({ field_id: Type.String(), value: Type.String(), value_id: Type.String() })

export const TemplateTaskV3 = Type.Object({
  complete: Type.Boolean(),
  description: Type.String(),
  external_id: Nullable(Type.String()),
  owner_ids: Type.Array(Type.String()),
  position: Type.Integer(),
})

/** As the published v3 StoryContents has sub-tasks: no position (their order is the list's), no null state. */
export const TemplateSubTaskV3 = Type.Object({
  name: Type.String(),
  owner_ids: Type.Array(Type.String()),
  workflow_state_id: Type.Optional(Type.Integer()),
})

/** Only the keys the template sets are present. */
export const StoryContentsV3 = Type.Object({
  custom_fields: Type.Optional(Type.Array(TemplateCustomFieldV3)),
  deadline: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  entity_type: Type.Literal('story'),
  epic_id: Type.Optional(Type.Integer()),
  estimate: Type.Optional(Type.Integer()),
  external_links: Type.Optional(Type.Array(Type.String())),
  files: Type.Optional(Type.Array(UploadedFileV3)),
  follower_ids: Type.Optional(Type.Array(Type.String())),
  group_id: Type.Optional(Type.String()),
  iteration_id: Type.Optional(Type.Integer()),
  label_ids: Type.Optional(Type.Array(Type.Integer())),
  labels: Type.Optional(Type.Array(LabelV3)),
  linked_files: Type.Optional(Type.Array(LinkedFileV3)),
  name: Type.Optional(Type.String()),
  owner_ids: Type.Optional(Type.Array(Type.String())),
  project_id: Type.Optional(Type.Integer()),
  story_type: Type.Optional(Type.String()),
  sub_tasks: Type.Optional(Type.Array(TemplateSubTaskV3)),
  tasks: Type.Optional(Type.Array(TemplateTaskV3)),
  workflow_state_id: Type.Optional(Type.Integer()),
})
export type StoryContentsV3 = Static<typeof StoryContentsV3>

export const EntityTemplateV3 = Type.Object({
  author_id: Type.String(),
  created_at: Type.String(),
  entity_type: Type.Literal('entity-template'),
  id: Type.String(),
  last_used_at: Type.String(),
  name: Type.String(),
  story_contents: StoryContentsV3,
  updated_at: Type.String(),
})
export type EntityTemplateV3 = Static<typeof EntityTemplateV3>

// ---- request bodies ----

export const TemplateCustomFieldParams = Type.Object({ field_id: Uuid, value_id: Uuid, value: Type.Optional(Type.String()) }, { additionalProperties: false })
export type TemplateCustomFieldParams = Static<typeof TemplateCustomFieldParams>

export const TemplateTaskParams = Type.Object(
  {
    complete: Type.Optional(Type.Boolean()),
    description: Type.String({ minLength: 1 }),
    external_id: Type.Optional(Type.String({ maxLength: LIMITS.externalId })),
    owner_ids: Type.Optional(Type.Array(Uuid)),
  },
  { additionalProperties: false },
)
export type TemplateTaskParams = Static<typeof TemplateTaskParams>

export const TemplateSubTaskParams = Type.Object(
  { name: Type.String({ minLength: 1 }), owner_ids: Type.Optional(Type.Array(Uuid)), workflow_state_id: Type.Optional(Id) },
  { additionalProperties: false },
)
export type TemplateSubTaskParams = Static<typeof TemplateSubTaskParams>

/** Keys both generations accept in story_contents; "or null" unsets the key. */
export const storyContentsFields = {
  custom_fields: Type.Optional(Type.Array(TemplateCustomFieldParams)),
  deadline: Type.Optional(Nullable(DateTime)),
  description: Type.Optional(Type.String()),
  epic_id: Type.Optional(Nullable(Id)),
  estimate: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
  external_links: Type.Optional(Type.Array(Type.String({ maxLength: LIMITS.externalLink }))),
  file_ids: Type.Optional(Type.Array(Id)),
  follower_ids: Type.Optional(Type.Array(Uuid)),
  group_id: Type.Optional(Nullable(Uuid)),
  iteration_id: Type.Optional(Nullable(Id)),
  linked_file_ids: Type.Optional(Type.Array(Id)),
  name: Type.Optional(Type.String()),
  owner_ids: Type.Optional(Type.Array(Uuid)),
  project_id: Type.Optional(Nullable(Id)),
  story_type: Type.Optional(StoryType),
  sub_tasks: Type.Optional(Type.Array(TemplateSubTaskParams)),
  tasks: Type.Optional(Type.Array(TemplateTaskParams)),
  workflow_state_id: Type.Optional(Nullable(Id)),
}

export const StoryContentsParamsV3 = Type.Object({ ...storyContentsFields, labels: Type.Optional(Type.Array(LabelParamsV3)) }, { additionalProperties: false })
export type StoryContentsParamsV3 = Static<typeof StoryContentsParamsV3>

export const CreateEntityTemplateV3 = Type.Object(
  { name: TemplateName, author_id: Type.Optional(Uuid), story_contents: StoryContentsParamsV3 },
  { additionalProperties: false },
)
export type CreateEntityTemplateV3 = Static<typeof CreateEntityTemplateV3>

export const UpdateEntityTemplateV3 = Type.Object(
  { name: Type.Optional(TemplateName), story_contents: Type.Optional(StoryContentsParamsV3) },
  { additionalProperties: false },
)
export type UpdateEntityTemplateV3 = Static<typeof UpdateEntityTemplateV3>
