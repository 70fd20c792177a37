// v4 Whoami, Member and Token (spec part 1 §2.2).
import { Type, type Static } from 'typebox'
import { PageOf, Slim } from '../common.ts'

export const MemberV4 = Type.Object({
  entity_type: Type.Literal('member'),
  agent: Type.Object({ assignable: Type.Boolean(), mentionable: Type.Boolean() }),
  created_at: Type.String(),
  disabled: Type.Boolean(),
  email_address: Type.String(),
  id: Type.String(),
  mention_name: Type.String(),
  name: Type.String(),
  role: Type.String(),
  teams: PageOf(Slim),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type MemberV4 = Static<typeof MemberV4>

export const WhoamiV4 = Type.Object({
  entity_type: Type.Literal('whoami'),
  authorization: Type.Object({ scopes: Type.Array(Type.String()) }),
  default_workflow: Type.Union([Slim, Type.Null()]),
  default_workflow_state: Type.Union([Slim, Type.Null()]),
  /** The whole Member (not a slim reference), as the published Whoami has it. */
  member: MemberV4,
  workspace: Slim,
  uri: Type.String(),
})
export type WhoamiV4 = Static<typeof WhoamiV4>

export const TokenV4 = Type.Object({
  entity_type: Type.Literal('token'),
  created_at: Type.String(),
  description: Type.String(),
  disabled: Type.Boolean(),
  email_address: Type.String(),
  id: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  member: Slim,
  scopes: Type.Array(Type.String()),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type TokenV4 = Static<typeof TokenV4>

export const TOKEN_LIST = { orderBy: ['created_at'], filter: ['exclude_disabled', 'include_disabled'] } as const
