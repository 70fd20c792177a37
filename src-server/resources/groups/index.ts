// Groups (teams): v3 list, create, get, update, their stories, and the
// workspace switch that turns teams off and on.
import { Type } from 'typebox'
import { CreateGroupV3, GROUP_STORIES_LIMIT, GroupStoriesQueryV3, UpdateGroupV3, type GroupColorKey, type GroupV3 } from '../../../src-shared/api/v3/groups.ts'
import type { Resource } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { origin } from '../../pages.ts'
import { appUrl, globalId } from '../../refs.ts'
import type { MemberRecord } from '../members/member.ts'
import { byPosition, stories, storiesV3, workflowStates } from '../stories/story.ts'

export interface GroupRecord {
  id: string
  name: string
  mention_name: string
  description: string
  color: string | null
  color_key: GroupColorKey | null
  archived: boolean
  /** The icon named by display_icon_id; its url is built on read. */
  display_icon: { id: string; created_at: string; updated_at: string } | null
  member_ids: string[]
  workflow_ids: number[]
  default_workflow_id: number | null
  created_at: string
  updated_at: string
}

interface EpicLike {
  id: number
  group_ids?: string[]
  group_id?: string | null
  started?: boolean
  completed?: boolean
}

export const groups = (ctx: ServiceContext) => ctx.col<GroupRecord>('group')

interface GroupCounts {
  num_epics_started: number
  num_stories: number
  num_stories_backlog: number
  num_stories_started: number
}

/** Story and epic counts of every team, in one pass over stories and epics. */
function countsByGroup(ctx: ServiceContext): (id: string) => GroupCounts {
  const counts = new Map<string, GroupCounts>()
  const of = (id: string) => {
    let c = counts.get(id)
    if (!c) counts.set(id, (c = { num_epics_started: 0, num_stories: 0, num_stories_backlog: 0, num_stories_started: 0 }))
    return c
  }
  const stateType = new Map(
    workflowStates(ctx)
      .all()
      .map((s) => [s.id, s.type]),
  )
  for (const s of stories(ctx).all()) {
    if (!s.group_id || s.archived) continue
    const c = of(s.group_id)
    c.num_stories++
    const type = stateType.get(s.workflow_state_id)
    if (type === 'backlog') c.num_stories_backlog++
    if (type === 'started') c.num_stories_started++
  }
  for (const e of ctx.col<EpicLike & { created_at: string; updated_at: string }>('epic').all()) {
    if (e.started !== true || e.completed === true) continue
    const ids = new Set([...(e.group_ids ?? []), ...(e.group_id ? [e.group_id] : [])])
    for (const id of ids) of(id).num_epics_started++
  }
  return (id) => counts.get(id) ?? { num_epics_started: 0, num_stories: 0, num_stories_backlog: 0, num_stories_started: 0 }
}

export function groupV3(ctx: ServiceContext, o: string, g: GroupRecord, counts = countsByGroup(ctx)): GroupV3 {
  const { display_icon, ...rest } = g
  return {
    ...rest,
    ...counts(g.id),
    app_url: appUrl(o, ctx.workspace.slug, 'group', g.id),
    display_icon: display_icon && { ...display_icon, entity_type: 'icon', url: `${o}/${ctx.workspace.slug}/icons/${display_icon.id}` },
    entity_type: 'group',
    global_id: globalId(ctx, 'group', g.id),
  }
}

/** Mention names are shared by members and teams (an @mention names one of them), case-insensitively. */
function assertMentionNameFree(ctx: ServiceContext, mention: string, self?: string): void {
  const wanted = mention.toLowerCase()
  const team = groups(ctx)
    .all()
    .some((g) => g.id !== self && g.mention_name.toLowerCase() === wanted)
  const member = ctx
    .col<MemberRecord>('member')
    .all()
    .some((m) => m.profile.mention_name.toLowerCase() === wanted)
  if (team || member) throw ApiError.unprocessable(`The mention name "${mention}" is already taken.`, { mention_name: 'is already taken' })
}

function assertRefs(ctx: ServiceContext, body: { member_ids?: string[]; workflow_ids?: number[]; default_workflow_id?: number | null }): void {
  const errors: Record<string, string> = {}
  const badMember = body.member_ids?.find((id) => !ctx.col('member').has(id))
  if (badMember) errors.member_ids = `no member ${badMember}`
  const badWorkflow = body.workflow_ids?.find((id) => !ctx.col('workflow').has(id))
  if (badWorkflow) errors.workflow_ids = `no workflow ${badWorkflow}`
  if (typeof body.default_workflow_id === 'number' && !ctx.col('workflow').has(body.default_workflow_id)) {
    errors.default_workflow_id = `no workflow ${body.default_workflow_id}`
  }
  if (Object.keys(errors).length > 0) throw ApiError.unprocessable('The team names something that does not exist.', errors)
}

function assertTeamsUsable(ctx: ServiceContext): void {
  if (!ctx.featureEnabled('groups')) {
    throw ApiError.forbidden('Teams are disabled for this workspace; PUT /api/v3/groups/enable turns them on.', 'unusable_entitlement_error')
  }
}

const icon = (id: string | undefined | null, now: string) => (id ? { id, created_at: now, updated_at: now } : null)

export function createGroup(ctx: ServiceContext, body: CreateGroupV3): GroupRecord {
  assertMentionNameFree(ctx, body.mention_name)
  assertRefs(ctx, body)
  const now = ctx.now()
  return groups(ctx).insert({
    id: ctx.uuid(),
    name: body.name,
    mention_name: body.mention_name,
    description: body.description ?? '',
    color: body.color ?? null,
    color_key: body.color_key ?? null,
    archived: false,
    display_icon: icon(body.display_icon_id, now),
    member_ids: [...new Set(body.member_ids ?? [])],
    workflow_ids: [...new Set(body.workflow_ids ?? [])],
    default_workflow_id: null,
    created_at: now,
    updated_at: now,
  })
}

export function updateGroup(ctx: ServiceContext, id: string, body: UpdateGroupV3): { before: GroupRecord; after: GroupRecord } {
  const before = groups(ctx).require(id)
  if (body.mention_name !== undefined) assertMentionNameFree(ctx, body.mention_name, id)
  assertRefs(ctx, body)
  const now = ctx.now()
  const after: GroupRecord = { ...before, updated_at: now }
  if (body.name !== undefined) after.name = body.name
  if (body.mention_name !== undefined) after.mention_name = body.mention_name
  if (body.description !== undefined) after.description = body.description
  if (body.color !== undefined) after.color = body.color
  if (body.color_key !== undefined) after.color_key = body.color_key
  // archived: null leaves it as it is (the spec's "or null").
  if (body.archived !== undefined && body.archived !== null) after.archived = body.archived
  if (body.display_icon_id !== undefined) {
    after.display_icon = body.display_icon_id === before.display_icon?.id ? before.display_icon : icon(body.display_icon_id, now)
  }
  if (body.member_ids !== undefined) after.member_ids = [...new Set(body.member_ids)]
  if (body.workflow_ids !== undefined) after.workflow_ids = [...new Set(body.workflow_ids)]
  if (body.default_workflow_id !== undefined) after.default_workflow_id = body.default_workflow_id
  groups(ctx).update(after)
  return { before, after }
}

function changes(before: GroupRecord, after: GroupRecord): Record<string, { old: unknown; new: unknown }> {
  const out: Record<string, { old: unknown; new: unknown }> = {}
  for (const key of Object.keys(after) as (keyof GroupRecord)[]) {
    if (key === 'updated_at') continue
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) out[key] = { old: before[key], new: after[key] }
  }
  return out
}

const DEMO_TEAMS: { name: string; mention: string; color: string; key: GroupColorKey; description: string; archived?: boolean }[] = [
  { name: 'Mobile', mention: 'mobile', color: '#8e24aa', key: 'purple', description: 'The iOS and Android apps.' },
  { name: 'Web', mention: 'web', color: '#1e88e5', key: 'blue', description: 'The web app and the website.' },
  { name: 'Infrastructure', mention: 'infra', color: '#43a047', key: 'green', description: 'Servers, CI, releases and on-call.' },
  { name: 'Desktop', mention: 'desktop', color: '#fb8c00', key: 'orange', description: 'The Outpost desktop client.' },
  { name: 'Growth Experiments', mention: 'growth', color: '#e53935', key: 'red', description: 'Disbanded in the spring reorganisation.', archived: true },
]

const StoriesParams = Type.Object({ id: Type.String({ format: 'uuid' }) })

export const groupsResource: Resource = {
  seed: ({ ctx, random }) => {
    const people = ctx
      .col<MemberRecord>('member')
      .all()
      .filter((m) => m.role !== 'observer')
    const workflowIds = ctx.col('workflow').ids() as number[]
    for (const t of DEMO_TEAMS) {
      const g = createGroup(ctx, {
        name: t.name,
        mention_name: t.mention,
        color: t.color,
        color_key: t.key,
        description: t.description,
        member_ids: random.some(people, random.int(2, 4)).map((m) => m.id),
        workflow_ids: workflowIds.slice(0, 1),
      })
      if (t.archived) groups(ctx).update({ ...g, archived: true })
    }
  },

  v3: (app, { ctx }) => {
    app.get('/groups', async (req) => {
      const counts = countsByGroup(ctx)
      const o = origin(req)
      return groups(ctx)
        .all()
        .map((g) => groupV3(ctx, o, g, counts))
    })

    app.post('/groups', { schema: { body: CreateGroupV3 } }, async (req, reply) => {
      assertTeamsUsable(ctx)
      const g = ctx.tx(() => createGroup(ctx, req.body))
      ctx.emit({ entity_type: 'group', action: 'create', id: g.id, name: g.name, member_id: req.auth.member.id })
      return reply.code(201).send(groupV3(ctx, origin(req), g))
    })

    app.put('/groups/disable', async (_req, reply) => {
      ctx.tx(() => ctx.setFeature('groups', false))
      return reply.code(204).send()
    })

    app.put('/groups/enable', async (_req, reply) => {
      ctx.tx(() => ctx.setFeature('groups', true))
      return reply.code(204).send()
    })

    app.get('/groups/:id', { schema: { params: StoriesParams } }, async (req) => groupV3(ctx, origin(req), groups(ctx).require(req.params.id)))

    app.put('/groups/:id', { schema: { params: StoriesParams, body: UpdateGroupV3 } }, async (req) => {
      assertTeamsUsable(ctx)
      const { before, after } = ctx.tx(() => updateGroup(ctx, req.params.id, req.body))
      ctx.emit({ entity_type: 'group', action: 'update', id: after.id, name: after.name, member_id: req.auth.member.id, changes: changes(before, after) })
      return groupV3(ctx, origin(req), after)
    })

    app.get('/groups/:id/stories', { schema: { params: StoriesParams, querystring: GroupStoriesQueryV3 } }, async (req) => {
      const id = groups(ctx).require(req.params.id).id
      const offset = req.query.offset ?? 0
      const limit = req.query.limit ?? GROUP_STORIES_LIMIT
      const o = origin(req)
      const assigned = byPosition(
        stories(ctx)
          .all()
          .filter((s) => s.group_id === id),
      )
      return storiesV3(ctx, o, assigned.slice(offset, offset + limit))
    })
  },
}
