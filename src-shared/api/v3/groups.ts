// v3 Group, a team (spec part 1 §2.3), and its request bodies (part 2 §4.4).
import { Type, type Static } from 'typebox'
import { Color, Enums, Id, LIMITS, Nullable, Uuid } from '../common.ts'

export const IconV3 = Type.Object({
  created_at: Type.String(),
  entity_type: Type.Literal('icon'),
  id: Type.String(),
  updated_at: Type.String(),
  url: Type.String(),
})

/** Type.Enum rather than OneOf: OneOf's static type is `never` (see the README's notes to the core). */
export const GroupColorKey = Type.Enum(Enums.groupColorKey)
export type GroupColorKey = Static<typeof GroupColorKey>

export const GroupV3 = Type.Object({
  app_url: Type.String(),
  archived: Type.Boolean(),
  color: Nullable(Type.String()),
  color_key: Nullable(GroupColorKey),
  created_at: Type.String(),
  /** Not in the spec; the official client sends and reads it. */
  default_workflow_id: Nullable(Type.Integer()),
  description: Type.String(),
  display_icon: Nullable(IconV3),
  entity_type: Type.Literal('group'),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  id: Type.String(),
  member_ids: Type.Array(Type.String()),
  mention_name: Type.String(),
  name: Type.String(),
  num_epics_started: Type.Integer(),
  num_stories: Type.Integer(),
  num_stories_backlog: Type.Integer(),
  num_stories_started: Type.Integer(),
  updated_at: Type.String(),
  workflow_ids: Type.Array(Type.Integer()),
})
export type GroupV3 = Static<typeof GroupV3>

const Name = Type.String({ minLength: 1, maxLength: LIMITS.groupName })
/**
 * The published description's mention-name pattern, `^[a-z0-9\-\_\.]+$`, written without its
 * needless escapes so that it also compiles as a unicode regular expression (as Ajv compiles patterns).
 */
export const MENTION_NAME_PATTERN = '^[a-z0-9._-]+$'
const MentionName = Type.String({ minLength: 1, maxLength: LIMITS.groupMentionName, pattern: MENTION_NAME_PATTERN })

export const CreateGroupV3 = Type.Object(
  {
    color: Type.Optional(Color),
    color_key: Type.Optional(GroupColorKey),
    description: Type.Optional(Type.String()),
    display_icon_id: Type.Optional(Uuid),
    member_ids: Type.Optional(Type.Array(Uuid)),
    mention_name: MentionName,
    name: Name,
    workflow_ids: Type.Optional(Type.Array(Id)),
  },
  { additionalProperties: false },
)
export type CreateGroupV3 = Static<typeof CreateGroupV3>

export const UpdateGroupV3 = Type.Object(
  {
    archived: Type.Optional(Nullable(Type.Boolean())),
    color: Type.Optional(Nullable(Color)),
    color_key: Type.Optional(GroupColorKey),
    default_workflow_id: Type.Optional(Nullable(Id)),
    description: Type.Optional(Type.String()),
    display_icon_id: Type.Optional(Nullable(Uuid)),
    member_ids: Type.Optional(Type.Array(Uuid)),
    mention_name: Type.Optional(MentionName),
    name: Type.Optional(Name),
    workflow_ids: Type.Optional(Type.Array(Id)),
  },
  { additionalProperties: false },
)
export type UpdateGroupV3 = Static<typeof UpdateGroupV3>

/** GET /groups/{id}/stories: limit (default and maximum 1,000) and offset, as the real service. */
export const GROUP_STORIES_LIMIT = 1000
export const GroupStoriesQueryV3 = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: GROUP_STORIES_LIMIT })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
})
export type GroupStoriesQueryV3 = Static<typeof GroupStoriesQueryV3>
