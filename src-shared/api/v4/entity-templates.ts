// v4 EntityTemplate (spec part 1 §2.2) and the body of its PATCH (part 2 §4.2;
// inner fields not shown: those of the official v4 client, with _add/_remove forms).
import { Type, type Static } from 'typebox'
import { Id, LIMITS, Nullable, Slim, Uuid } from '../common.ts'
import { TemplateCustomFieldParams, storyContentsFields } from '../v3/entity-templates.ts'

const SlimList = Type.Array(Slim)

export const StoryContentsV4 = Type.Object({
  custom_fields: Type.Optional(Type.Array(Type.Object({ field_id: Type.String(), value_id: Type.String() }))),
  deadline: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  entity_type: Type.Literal('story'),
  epic: Type.Optional(Slim),
  estimate: Type.Optional(Type.Integer()),
  external_links: Type.Optional(Type.Array(Type.String())),
  files: Type.Optional(SlimList),
  followers: Type.Optional(SlimList),
  iteration: Type.Optional(Slim),
  labels: Type.Optional(SlimList),
  linked_files: Type.Optional(SlimList),
  name: Type.Optional(Type.String()),
  owners: Type.Optional(SlimList),
  project: Type.Optional(Slim),
  story_type: Type.Optional(Type.String()),
  sub_tasks: Type.Optional(
    // A sub-task without a workflow state leaves it out (the published EntityTemplateSubTask has no null).
    Type.Array(Type.Object({ name: Type.String(), owners: SlimList, position: Type.Integer(), workflow_state: Type.Optional(Slim) })),
  ),
  tasks: Type.Optional(Type.Array(Type.Object({ complete: Type.Boolean(), description: Type.String(), owners: SlimList, position: Type.Integer() }))),
  team: Type.Optional(Slim),
  workflow_state: Type.Optional(Slim),
})
export type StoryContentsV4 = Static<typeof StoryContentsV4>

export const EntityTemplateV4 = Type.Object({
  entity_type: Type.Literal('entity-template'),
  author: Nullable(Slim),
  created_at: Type.String(),
  id: Type.String(),
  last_used_at: Type.String(),
  name: Type.String(),
  story_contents: StoryContentsV4,
  updated_at: Type.String(),
  uri: Type.String(),
})
export type EntityTemplateV4 = Static<typeof EntityTemplateV4>

const addRemove = <T extends Parameters<typeof Type.Array>[0]>(item: T) => ({ add: Type.Optional(Type.Array(item)), remove: Type.Optional(Type.Array(item)) })
const cf = addRemove(TemplateCustomFieldParams)
const links = addRemove(Type.String({ maxLength: LIMITS.externalLink }))
const ints = addRemove(Id)
const uuids = addRemove(Uuid)

export const UpdateStoryContentsV4 = Type.Object(
  {
    ...storyContentsFields,
    label_ids: Type.Optional(Type.Array(Id)),
    custom_fields_add: cf.add,
    custom_fields_remove: cf.remove,
    external_links_add: links.add,
    external_links_remove: links.remove,
    file_ids_add: ints.add,
    file_ids_remove: ints.remove,
    follower_ids_add: uuids.add,
    follower_ids_remove: uuids.remove,
    label_ids_add: ints.add,
    label_ids_remove: ints.remove,
    linked_file_ids_add: ints.add,
    linked_file_ids_remove: ints.remove,
    owner_ids_add: uuids.add,
    owner_ids_remove: uuids.remove,
  },
  { additionalProperties: false },
)
export type UpdateStoryContentsV4 = Static<typeof UpdateStoryContentsV4>

export const UpdateEntityTemplateV4 = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.entityTemplateName })),
    story_contents: Type.Optional(UpdateStoryContentsV4),
  },
  { additionalProperties: false },
)
export type UpdateEntityTemplateV4 = Static<typeof UpdateEntityTemplateV4>
