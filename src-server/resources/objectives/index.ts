// Objectives and their deprecated view, milestones: one record, two route
// families (v3 /objectives and /milestones), their epics, and the objectives
// of a category (v3 and v4). Categories in bodies are found or created by name.
import { Type } from 'typebox'
import { Id, listQuery } from '../../../src-shared/api/common.ts'
import {
  CreateObjectiveV3,
  UpdateObjectiveV3,
  type ObjectiveCategoryParamsV3,
  type ObjectiveState,
  type ObjectiveV3,
} from '../../../src-shared/api/v3/objectives.ts'
import { CATEGORY_OBJECTIVE_LIST, ObjectiveSlimV4 } from '../../../src-shared/api/v4/objectives.ts'
import type { Resource } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { origin, sortBy } from '../../pages.ts'
import { appUrl, globalId, type Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import { categoryV3, createCategory, type CategoryRecord } from '../categories/index.ts'
import type { EpicRecord } from '../epics/records.ts'
import { EpicViewsV3 } from '../epics/render.ts'
import { stories, type StoryRecord } from '../stories/story.ts'
import { objectives, type ObjectiveRecord } from './objective.ts'

const epics = (ctx: ServiceContext) => ctx.col<EpicRecord>('epic')
const categories = (ctx: ServiceContext) => ctx.col<CategoryRecord>('category')

const FIELDS_V4 = Object.keys(ObjectiveSlimV4.properties)

/** The flags and timestamps a state implies (transitions are not shown in the spec; see the README). */
function withState(o: ObjectiveRecord, state: ObjectiveState, now: string): ObjectiveRecord {
  const started = state !== 'to do'
  const completed = state === 'done'
  return {
    ...o,
    state,
    started,
    started_at: started ? (o.started_at ?? now) : null,
    completed,
    completed_at: completed ? (o.completed_at ?? now) : null,
  }
}

/** Categories named in a body: each the category of that name, created when missing. */
function categoryIds(ctx: ServiceContext, params: readonly ObjectiveCategoryParamsV3[]): number[] {
  const ids = params.map((p) => (categories(ctx).byName(p.name)[0] ?? createCategory(ctx, p)).id)
  return [...new Set(ids)]
}

function inOrder(ctx: ServiceContext): ObjectiveRecord[] {
  return sortBy(objectives(ctx).all(), (o) => o.position)
}

export function createObjective(ctx: ServiceContext, body: CreateObjectiveV3): ObjectiveRecord {
  const now = ctx.now()
  const last = inOrder(ctx).at(-1)
  const record: ObjectiveRecord = {
    id: ctx.nextId(),
    name: body.name,
    description: body.description ?? '',
    archived: false,
    state: 'to do',
    started: false,
    started_at: null,
    started_at_override: body.started_at_override ?? null,
    completed: false,
    completed_at: null,
    completed_at_override: body.completed_at_override ?? null,
    category_ids: categoryIds(ctx, body.categories ?? []),
    key_result_ids: [],
    owner_ids: [],
    position: (last?.position ?? 0) + 1,
    created_at: now,
    updated_at: now,
  }
  return objectives(ctx).insert(withState(record, body.state ?? 'to do', now))
}

/** Moves an objective after or before another; positions are renumbered 1..n. */
function move(ctx: ServiceContext, self: ObjectiveRecord, body: { after_id?: number; before_id?: number }): number {
  if (body.after_id !== undefined && body.before_id !== undefined) {
    throw ApiError.badRequest('Send after_id or before_id, not both.', { after_id: 'not allowed with before_id' })
  }
  const field = body.after_id !== undefined ? 'after_id' : 'before_id'
  const target = body.after_id ?? body.before_id!
  if (target === self.id) throw ApiError.unprocessable(`An objective cannot move relative to itself.`, { [field]: 'is the objective itself' })
  if (!objectives(ctx).has(target)) throw ApiError.unprocessable(`Objective ${target} does not exist.`, { [field]: `no objective ${target}` })
  const order = inOrder(ctx).filter((o) => o.id !== self.id)
  const at = order.findIndex((o) => o.id === target) + (field === 'after_id' ? 1 : 0)
  order.splice(at, 0, self)
  order.forEach((o, i) => {
    if (o.id !== self.id && o.position !== i + 1) objectives(ctx).update({ ...o, position: i + 1 })
  })
  return at + 1
}

export function updateObjective(ctx: ServiceContext, id: number, body: UpdateObjectiveV3): { before: ObjectiveRecord; after: ObjectiveRecord } {
  const before = objectives(ctx).require(id)
  const now = ctx.now()
  let after: ObjectiveRecord = { ...before, updated_at: now }
  if (body.name !== undefined) after.name = body.name
  if (body.description !== undefined) after.description = body.description
  if (body.archived !== undefined) after.archived = body.archived
  if (body.started_at_override !== undefined) after.started_at_override = body.started_at_override
  if (body.completed_at_override !== undefined) after.completed_at_override = body.completed_at_override
  if (body.categories !== undefined) after.category_ids = categoryIds(ctx, body.categories)
  if (body.state !== undefined) after = withState(after, body.state, now)
  if (body.after_id !== undefined || body.before_id !== undefined) after.position = move(ctx, before, body)
  objectives(ctx).update(after)
  return { before, after }
}

/** Deleting an objective also takes it off the epics that named it. */
export function deleteObjective(ctx: ServiceContext, id: number): ObjectiveRecord {
  const record = objectives(ctx).require(id)
  const now = ctx.now()
  for (const e of epics(ctx).all()) {
    if (e.objective_ids?.includes(id)) epics(ctx).update({ ...e, objective_ids: e.objective_ids.filter((o) => o !== id), updated_at: now })
  }
  objectives(ctx).delete(id)
  return record
}

/** Epics and their stories by objective, read once per request. */
class ObjectiveGraph {
  private epicsOf?: Map<number, EpicRecord[]>
  private storiesOf?: Map<number, StoryRecord[]>

  constructor(private readonly ctx: ServiceContext) {}

  epics(objectiveId: number): EpicRecord[] {
    if (!this.epicsOf) {
      this.epicsOf = new Map()
      for (const e of epics(this.ctx).all()) {
        for (const o of e.objective_ids ?? []) this.epicsOf.set(o, [...(this.epicsOf.get(o) ?? []), e])
      }
    }
    return sortBy(this.epicsOf.get(objectiveId) ?? [], (e) => e.position)
  }

  stories(epicId: number): StoryRecord[] {
    if (!this.storiesOf) {
      this.storiesOf = new Map()
      for (const s of stories(this.ctx).all()) if (s.epic_id !== null) this.storiesOf.set(s.epic_id, [...(this.storiesOf.get(s.epic_id) ?? []), s])
    }
    return this.storiesOf.get(epicId) ?? []
  }

  /** Average cycle and lead times in seconds over completed stories (0 when none). */
  averages(list: StoryRecord[]): { average_cycle_time: number; average_lead_time: number } {
    const done = list.filter((s) => s.completed && s.completed_at && !s.archived)
    const avg = (xs: number[]) => (xs.length === 0 ? 0 : Math.round(xs.reduce((a, b) => a + b, 0) / xs.length))
    const secs = (from: string, to: string) => Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000)
    return {
      average_cycle_time: avg(done.filter((s) => s.started_at).map((s) => secs(s.started_at!, s.completed_at!))),
      average_lead_time: avg(done.map((s) => secs(s.created_at, s.completed_at!))),
    }
  }
}

type EntityType = 'objective' | 'milestone'

export function objectiveV3(ctx: ServiceContext, o: string, r: ObjectiveRecord, entityType: EntityType, graph = new ObjectiveGraph(ctx)): ObjectiveV3 {
  const storiesOfEpics = graph.epics(r.id).flatMap((e) => graph.stories(e.id))
  return {
    app_url: appUrl(o, ctx.workspace.slug, 'objective', r.id),
    archived: r.archived,
    categories: r.category_ids
      .map((id) => categories(ctx).get(id))
      .filter((c): c is CategoryRecord => !!c)
      .map((c) => categoryV3(ctx, c)),
    completed: r.completed,
    completed_at: r.completed_at,
    completed_at_override: r.completed_at_override,
    created_at: r.created_at,
    description: r.description,
    entity_type: entityType,
    global_id: globalId(ctx, 'objective', r.id),
    id: r.id,
    key_result_ids: r.key_result_ids,
    name: r.name,
    position: r.position,
    started: r.started,
    started_at: r.started_at,
    started_at_override: r.started_at_override,
    state: r.state,
    stats: { ...graph.averages(storiesOfEpics), num_related_documents: 0 },
    updated_at: r.updated_at,
  }
}

/** An objective in a v4 list: the published ObjectiveSlim (its slim reference). */
export function objectiveV4(refs: Refs, r: ObjectiveRecord): ObjectiveSlimV4 {
  return { entity_type: 'objective:slim', app_url: refs.appUrl('objective', r.id), id: r.id, name: r.name, uri: refs.uri('objective', r.id) }
}

function changes(before: ObjectiveRecord, after: ObjectiveRecord) {
  const out: Record<string, { old: unknown; new: unknown }> = {}
  for (const key of Object.keys(after) as (keyof ObjectiveRecord)[]) {
    if (key !== 'updated_at' && JSON.stringify(before[key]) !== JSON.stringify(after[key])) out[key] = { old: before[key], new: after[key] }
  }
  return out
}

const DEMO_OBJECTIVES: { name: string; description: string; state: ObjectiveState; categories: ObjectiveCategoryParamsV3[]; archived?: boolean }[] = [
  {
    name: 'Ship offline sync',
    description: 'Everything people have seen stays readable, and every change reaches the server exactly once.',
    state: 'in progress',
    categories: [{ name: 'Platform' }, { name: 'Reliability' }],
  },
  {
    name: 'Launch the desktop beta',
    description: 'Signed builds for Windows, macOS and Linux, with 200 beta testers by the end of the quarter.',
    state: 'in progress',
    categories: [{ name: 'Growth' }, { name: 'Customer' }],
  },
  {
    name: 'Cut support tickets by a third',
    description: 'Clear errors, self-service fixes and fewer lost writes.',
    state: 'to do',
    categories: [{ name: 'Customer' }],
  },
  {
    name: 'Harden token storage',
    description: 'Tokens live in the OS keychain only, never on disk or in logs.',
    state: 'done',
    categories: [{ name: 'Reliability' }, { name: 'Security', color: '#37474f' }],
  },
  {
    name: 'Onboarding revamp',
    description: 'The first-run experience of the old web client.',
    state: 'done',
    categories: [{ name: 'Design' }],
    archived: true,
  },
]

const IdParams = Type.Object({ id: Id })
const V4IdParams = Type.Object({ workspace: Type.String(), id: Id })

export const objectivesResource: Resource = {
  seed: ({ ctx, plan }) => {
    const extra = plan.demo ? 0 : Math.floor(plan.epics / 1000)
    const all = [
      ...DEMO_OBJECTIVES,
      ...Array.from({ length: extra }, (_, i) => ({
        name: `Objective ${i + 1}`,
        description: '',
        state: 'to do' as const,
        categories: [{ name: 'Platform' }],
      })),
    ]
    for (const o of all) {
      const made = createObjective(ctx, { name: o.name, description: o.description, state: o.state, categories: o.categories })
      if ('archived' in o && o.archived) objectives(ctx).update({ ...made, archived: true })
    }
  },

  v3: (app, { ctx }) => {
    for (const [path, entityType] of [
      ['objectives', 'objective'],
      ['milestones', 'milestone'],
    ] as const) {
      app.get(`/${path}`, async (req) => {
        const graph = new ObjectiveGraph(ctx)
        const o = origin(req)
        return inOrder(ctx).map((r) => objectiveV3(ctx, o, r, entityType, graph))
      })

      app.post(`/${path}`, { schema: { body: CreateObjectiveV3 } }, async (req, reply) => {
        const r = ctx.tx(() => createObjective(ctx, req.body))
        ctx.emit({ entity_type: 'objective', action: 'create', id: r.id, name: r.name, member_id: req.auth.member.id })
        return reply.code(201).send(objectiveV3(ctx, origin(req), r, entityType))
      })

      app.get(`/${path}/:id`, { schema: { params: IdParams } }, async (req) =>
        objectiveV3(ctx, origin(req), objectives(ctx).require(req.params.id), entityType),
      )

      app.put(`/${path}/:id`, { schema: { params: IdParams, body: UpdateObjectiveV3 } }, async (req) => {
        const { before, after } = ctx.tx(() => updateObjective(ctx, req.params.id, req.body))
        ctx.emit({ entity_type: 'objective', action: 'update', id: after.id, name: after.name, member_id: req.auth.member.id, changes: changes(before, after) })
        return objectiveV3(ctx, origin(req), after, entityType)
      })

      app.delete(`/${path}/:id`, { schema: { params: IdParams } }, async (req, reply) => {
        const gone = ctx.tx(() => deleteObjective(ctx, req.params.id))
        ctx.emit({ entity_type: 'objective', action: 'delete', id: gone.id, name: gone.name, member_id: req.auth.member.id })
        return reply.code(204).send()
      })

      app.get(`/${path}/:id/epics`, { schema: { params: IdParams } }, async (req) => {
        const id = objectives(ctx).require(req.params.id).id
        const graph = new ObjectiveGraph(ctx)
        const views = new EpicViewsV3(ctx, origin(req)).preloadStories()
        // Objective-scoped epic lists add average cycle and lead times to the stats (part 1 §2.3).
        return graph.epics(id).map((e) => {
          const slim = views.slim(e, false)
          return { ...slim, stats: { ...slim.stats, ...graph.averages(graph.stories(e.id)) } }
        })
      })

      app.get(`/categories/:id/${path}`, { schema: { params: IdParams } }, async (req) => {
        const id = categories(ctx).require(req.params.id).id
        const graph = new ObjectiveGraph(ctx)
        const o = origin(req)
        return inOrder(ctx)
          .filter((r) => r.category_ids.includes(id))
          .map((r) => objectiveV3(ctx, o, r, entityType, graph))
      })
    }
  },

  v4: (app, { ctx, pager, refs }) => {
    app.get(
      '/:workspace/categories/:id/objectives',
      { schema: { params: V4IdParams, querystring: listQuery(CATEGORY_OBJECTIVE_LIST.orderBy, CATEGORY_OBJECTIVE_LIST.filter) } },
      async (req) => {
        const id = categories(ctx).require(req.params.id).id
        const r = refs(req)
        return pager.list(req, req.query, {
          fieldNames: FIELDS_V4,
          select: (q) => {
            const kept = objectives(ctx)
              .all()
              .filter((o) => o.category_ids.includes(id) && (q.filter === 'include_archived' || !o.archived))
            // Default order: the objectives' own order (position).
            return sortBy(kept, (o) => (q.order_by === 'updated_at' ? o.updated_at : o.position), q.order_dir).map((o) => o.id)
          },
          render: (ids: EntityId[]) =>
            ids
              .map((oid) => objectives(ctx).get(oid))
              .filter((o): o is ObjectiveRecord => !!o)
              .map((o) => objectiveV4(r, o)),
        })
      },
    )
  },
}
