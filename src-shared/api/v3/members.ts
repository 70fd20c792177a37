// v3 Member and MemberInfo (spec part 1 §2.3).
import { Type, type Static } from 'typebox'
import { Nullable } from '../common.ts'

export const MemberProfileV3 = Type.Object({
  deactivated: Type.Boolean(),
  display_icon: Nullable(Type.Unknown()),
  email_address: Type.String(),
  entity_type: Type.Literal('profile'),
  gravatar_hash: Type.String(),
  id: Type.String(),
  is_owner: Type.Boolean(),
  mention_name: Type.String(),
  name: Type.String(),
  two_factor_auth_activated: Type.Boolean(),
})

export const MemberV3 = Type.Object({
  created_at: Type.String(),
  /** Whether the member is a placeholder made without an invitation (never, here). */
  created_without_invite: Type.Boolean(),
  disabled: Type.Boolean(),
  entity_type: Type.Literal('member'),
  /** Unique across kinds and workspaces, and stable (see docs/service.md). */
  global_id: Type.String(),
  group_ids: Type.Array(Type.String()),
  id: Type.String(),
  profile: MemberProfileV3,
  role: Type.String(),
  state: Type.String(),
  updated_at: Type.String(),
})
export type MemberV3 = Static<typeof MemberV3>

/** GET /member: the token's member and its workspace (the published MemberInfo and BasicWorkspaceInfo). */
export const MemberInfoV3 = Type.Object({
  id: Type.String(),
  is_owner: Type.Boolean(),
  mention_name: Type.String(),
  name: Type.String(),
  /** The organization the workspace belongs to (here one workspace per organization, sharing its id). */
  organization2: Type.Object({ id: Type.String() }),
  role: Type.String(),
  workspace2: Type.Object({
    created_at: Type.String(),
    default_workflow_id: Type.Integer(),
    estimate_scale: Type.Array(Type.Integer()),
    id: Type.String(),
    name: Type.String(),
    url_slug: Type.String(),
    /** The workspace's time zone as an offset; the service keeps UTC. */
    utc_offset: Type.String(),
  }),
})
export type MemberInfoV3 = Static<typeof MemberInfoV3>

export const MembersQueryV3 = Type.Object({ 'org-public-id': Type.Optional(Type.String({ format: 'uuid' })) })
