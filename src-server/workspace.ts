// A new database gets a workspace, its base members and their printed tokens.
import type { Tokens, TokenKind } from './auth.ts'
import type { ServiceContext } from './context.ts'
import type { MemberRecord, Role } from './resources/members/member.ts'
import { createHash } from 'node:crypto'

export interface PrintedTokens {
  admin: string
  member: string
  readonly: string
  observer: string
  v3: string
}

export function newMember(ctx: ServiceContext, role: Role, name: string, mention: string, email: string): MemberRecord {
  const now = ctx.now()
  return {
    id: ctx.uuid(),
    created_at: now,
    updated_at: now,
    disabled: false,
    role,
    state: 'full',
    org_id: ctx.workspace.id,
    profile: {
      deactivated: false,
      display_icon: null,
      email_address: email,
      gravatar_hash: createHash('md5').update(email.toLowerCase()).digest('hex'),
      is_owner: role === 'owner',
      mention_name: mention,
      name,
      two_factor_auth_activated: false,
    },
  }
}

/** Creates the workspace once; later starts find it and its tokens again. */
export function ensureWorkspace(ctx: ServiceContext, tokens: Tokens, slug: string, name: string): PrintedTokens {
  const existing = ctx.meta('printed_tokens')
  if (existing) return JSON.parse(existing) as PrintedTokens
  return ctx.tx(() => {
    ctx.setMeta('workspace', JSON.stringify({ id: ctx.uuid(), slug, name, created_at: ctx.now() }))
    const members = ctx.col<MemberRecord>('member')
    const admin = members.insert(newMember(ctx, 'admin', 'Ada Admin', 'ada', 'ada@example.com'))
    const member = members.insert(newMember(ctx, 'member', 'Max Member', 'max', 'max@example.com'))
    const observer = members.insert(newMember(ctx, 'observer', 'Olga Observer', 'olga', 'olga@example.com'))
    const make = (kind: TokenKind, m: MemberRecord, what: string) => tokens.create(kind, m.id, what).secret
    const printed: PrintedTokens = {
      admin: make('v4_rw', admin, 'admin read-write'),
      member: make('v4_rw', member, 'member read-write'),
      readonly: make('v4_ro', member, 'member read-only'),
      observer: make('v4_rw', observer, 'observer read-write'),
      v3: make('v3', admin, 'admin v3'),
    }
    ctx.setMeta('printed_tokens', JSON.stringify(printed))
    return printed
  })
}
