// Members and tokens: v3 /member and /members, v4 whoami and admin/tokens.
import { Type } from 'typebox'
import { FieldsQuery, listQuery } from '../../../src-shared/api/common.ts'
import { MembersQueryV3, type MemberInfoV3, type MemberV3 } from '../../../src-shared/api/v3/members.ts'
import { TOKEN_LIST, TokenV4, WhoamiV4, type MemberV4 } from '../../../src-shared/api/v4/members.ts'
import type { Resource } from '../../resource.ts'
import type { TokenRow } from '../../auth.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { oneEntity, sortBy } from '../../pages.ts'
import { globalId, type Refs } from '../../refs.ts'
import { newMember } from '../../workspace.ts'
import type { WorkflowRecord } from '../stories/story.ts'
import type { MemberRecord } from './member.ts'

interface GroupLink {
  id: string
  created_at: string
  updated_at: string
  member_ids: string[]
}

const memberRecords = (ctx: ServiceContext) => ctx.col<MemberRecord>('member')

/** The workspace's default workflow: the first one made ("Engineering", which every workspace has). */
const defaultWorkflow = (ctx: ServiceContext) => ctx.col<WorkflowRecord>('workflow').all()[0] as WorkflowRecord | undefined

function groupIdsOf(ctx: ServiceContext, memberId: string): string[] {
  return ctx
    .col<GroupLink>('group')
    .all()
    .filter((g) => g.member_ids.includes(memberId))
    .map((g) => g.id)
}

export function memberV3(ctx: ServiceContext, m: MemberRecord): MemberV3 {
  return {
    created_at: m.created_at,
    // Every member here joined through an invitation or the workspace's making; none is a placeholder.
    created_without_invite: false,
    disabled: m.disabled,
    entity_type: 'member',
    global_id: globalId(ctx, 'member', m.id),
    group_ids: groupIdsOf(ctx, m.id),
    id: m.id,
    profile: { ...m.profile, entity_type: 'profile', id: m.id },
    role: m.role,
    state: m.state,
    updated_at: m.updated_at,
  }
}

export function memberV4(ctx: ServiceContext, refs: Refs, m: MemberRecord): MemberV4 {
  return {
    entity_type: 'member',
    agent: { assignable: !m.disabled && m.role !== 'observer', mentionable: !m.disabled },
    created_at: m.created_at,
    disabled: m.disabled,
    email_address: m.profile.email_address,
    id: m.id,
    mention_name: m.profile.mention_name,
    name: m.profile.name,
    role: m.role,
    teams: refs.page('group', groupIdsOf(ctx, m.id), `${refs.uri('member', m.id)}/teams`),
    updated_at: m.updated_at,
    uri: refs.uri('member', m.id),
  }
}

const scopesOf = (t: TokenRow) => (t.kind === 'v4_ro' ? ['read'] : ['read', 'write'])

function tokenV4(ctx: ServiceContext, refs: Refs, t: TokenRow): TokenV4 {
  const member = memberRecords(ctx).get(t.member_id)
  return {
    entity_type: 'token',
    created_at: t.created_at,
    description: t.description,
    disabled: t.disabled === 1,
    email_address: member?.profile.email_address ?? '',
    id: t.id,
    last_used_at: t.last_used_at,
    member: refs.slim('member', t.member_id) ?? { entity_type: 'member:slim', id: t.member_id },
    scopes: scopesOf(t),
    updated_at: t.updated_at,
    uri: `${refs.api}/admin/tokens/${t.id}`,
  }
}

const TOKEN_FIELDS = Object.keys(TokenV4.properties)
const WHOAMI_FIELDS = Object.keys(WhoamiV4.properties)

const DEMO_PEOPLE: [string, string, 'member' | 'admin' | 'observer'][] = [
  ['Grace Hopper', 'grace', 'admin'],
  ['Linus Pauling', 'linus', 'member'],
  ['Katherine Johnson', 'katherine', 'member'],
  ['Alan Kay', 'alan', 'member'],
  ['Barbara Liskov', 'barbara', 'member'],
  ['Edsger Dijkstra', 'edsger', 'member'],
  ['Frances Allen', 'frances', 'member'],
  ['Ken Thompson', 'ken', 'observer'],
]

export const members: Resource = {
  seed: ({ ctx, plan }) => {
    const people = plan.demo ? DEMO_PEOPLE : DEMO_PEOPLE.concat(Array.from({ length: 24 }, (_, i) => [`Member ${i + 1}`, `member${i + 1}`, 'member'] as const))
    for (const [name, mention, role] of people) {
      memberRecords(ctx).insert(newMember(ctx, role, name, mention, `${mention}@example.com`))
    }
  },

  v3: (app, { ctx }) => {
    app.get('/member', async (req): Promise<MemberInfoV3> => {
      const m = req.auth.member
      const w = ctx.workspace
      return {
        id: m.id,
        is_owner: m.profile.is_owner,
        mention_name: m.profile.mention_name,
        name: m.profile.name,
        organization2: { id: m.org_id },
        role: m.role,
        workspace2: {
          // Databases made before the workspace kept its creation time: its first member's.
          created_at: w.created_at ?? memberRecords(ctx).all()[0]?.created_at ?? ctx.now(),
          default_workflow_id: defaultWorkflow(ctx)?.id ?? 0,
          estimate_scale: [0, 1, 2, 4, 8],
          id: w.id,
          name: w.name,
          url_slug: w.slug,
          utc_offset: '+00:00',
        },
      }
    })

    app.get('/members', { schema: { querystring: MembersQueryV3 } }, async (req) => {
      const org = req.query['org-public-id']
      if (org !== undefined && org !== ctx.workspace.id) return []
      return memberRecords(ctx)
        .all()
        .map((m) => memberV3(ctx, m))
    })

    app.get('/members/:id', { schema: { params: Type.Object({ id: Type.String({ format: 'uuid' }) }), querystring: MembersQueryV3 } }, async (req) =>
      memberV3(ctx, memberRecords(ctx).require(req.params.id)),
    )
  },

  v4: (app, { ctx, tokens, pager, refs }) => {
    app.get('/whoami', { schema: { querystring: FieldsQuery } }, async (req) => {
      const r = refs(req)
      const m = req.auth.member
      const workflow = defaultWorkflow(ctx)
      const whoami: WhoamiV4 = {
        entity_type: 'whoami',
        authorization: { scopes: scopesOf(req.auth.token) },
        default_workflow: workflow ? r.slim('workflow', workflow.id) : null,
        default_workflow_state: workflow?.default_state_id ? r.slim('workflow_state', workflow.default_state_id) : null,
        // The whole Member, as the published Whoami has it.
        member: memberV4(ctx, r, m),
        workspace: r.workspace(),
        uri: `${r.origin}/api/v4/whoami`,
      }
      return oneEntity(whoami, req.query, WHOAMI_FIELDS)
    })

    app.get('/:workspace/admin/tokens', { config: { admin: true }, schema: { querystring: listQuery(TOKEN_LIST.orderBy, TOKEN_LIST.filter) } }, async (req) => {
      const r = refs(req)
      return pager.list(req, req.query, {
        fieldNames: TOKEN_FIELDS,
        select: (q) => {
          const all = tokens.all().filter((t) => q.filter === 'include_disabled' || t.disabled === 0)
          return sortBy(all, (t) => t.created_at, q.order_dir ?? 'asc').map((t) => t.id)
        },
        render: (ids) =>
          ids
            .map((id) => tokens.byId(String(id)))
            .filter((t): t is TokenRow => !!t)
            .map((t) => tokenV4(ctx, r, t)),
      })
    })

    app.delete(
      '/:workspace/admin/tokens/:id',
      { config: { admin: true }, schema: { params: Type.Object({ workspace: Type.String(), id: Type.String({ format: 'uuid' }) }) } },
      async (req, reply) => {
        const token = tokens.byId(req.params.id)
        if (!token) throw ApiError.notFound(`Token ${req.params.id} does not exist.`)
        tokens.disable(token.id)
        return reply.code(204).send()
      },
    )
  },
}
