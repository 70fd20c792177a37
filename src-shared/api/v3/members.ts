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

export const MemberInfoV3 = Type.Object({
  id: Type.String(),
  mention_name: Type.String(),
  name: Type.String(),
  workspace2: Type.Object({ estimate_scale: Type.Array(Type.Integer()), url_slug: Type.String() }),
})
export type MemberInfoV3 = Static<typeof MemberInfoV3>

export const MembersQueryV3 = Type.Object({ 'org-public-id': Type.Optional(Type.String({ format: 'uuid' })) })
