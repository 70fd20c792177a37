// v4 epic routes: the list, search, create/update/delete one or in bulk, and
// the epic workflow with its states.
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { FieldsQuery, Id, listQuery, type ListQuery } from '../../../src-shared/api/common.ts'
import {
  BulkCreateEpicsV4,
  BulkDeleteEpicsV4,
  BulkUpdateEpicsV4,
  CreateEpicV4,
  DeleteEpicsQueryV4,
  EPIC_LIST,
  EPIC_STATE_LIST,
  EpicStateV4,
  EpicV4,
  EpicWorkflowV4,
  SearchEpicsQueryV4,
  UpdateEpicV4,
} from '../../../src-shared/api/v4/epics.ts'
import type { ApiApp, Deps } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError, inBulkItem } from '../../errors.ts'
import { oneEntity, parseFields } from '../../pages.ts'
import type { Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import {
  createEpic,
  deleteEpic,
  emitCreated,
  emitDeleted,
  emitUpdated,
  Mentions,
  requireGroups,
  requireMembers,
  requireObjectives,
  unique,
  updateEpic,
  type EpicInput,
  type Updated,
} from './epic.ts'
import { epicStates, epics, type EpicRecord, type EpicStateRecord } from './records.ts'
import { epicPageV4, epicV4 } from './render.ts'
import { searchEpics } from './search.ts'
import { epicStateV4, epicWorkflowV4 } from './workflow.ts'

const FIELDS = Object.keys(EpicV4.properties)
const STATE_FIELDS = Object.keys(EpicStateV4.properties)
const WORKFLOW_FIELDS = Object.keys(EpicWorkflowV4.properties)
const IdParams = Type.Object({ workspace: Type.String(), id: Id })

type CreateBody = CreateEpicV4
type UpdateBody = UpdateEpicV4

/** The id lists of a v4 body: field name, record field and what the ids must be. */
const LISTS = [
  { field: 'follower_ids', key: 'follower_ids', check: requireMembers },
  { field: 'owner_ids', key: 'owner_ids', check: requireMembers },
  { field: 'team_ids', key: 'group_ids', check: requireGroups },
  { field: 'objective_ids', key: 'objective_ids', check: requireObjectives },
] as const

function scalarInput(ctx: ServiceContext, body: CreateBody | UpdateBody): EpicInput {
  if (body.requested_by_id !== undefined) requireMembers(ctx, [body.requested_by_id], 'requested_by_id')
  return {
    name: body.name,
    description: body.description,
    archived: 'archived' in body ? body.archived : undefined,
    epic_state_id: body.epic_state_id,
    external_id: body.external_id,
    requested_by_id: body.requested_by_id,
    deadline: body.deadline,
    planned_start_date: body.planned_start_date,
    started_at_override: body.started_at_override,
    completed_at_override: body.completed_at_override,
  }
}

function createInput(ctx: ServiceContext, body: CreateBody): EpicInput & { name: string } {
  const input: EpicInput & { name: string } = { ...scalarInput(ctx, body), name: body.name }
  for (const { field, key, check } of LISTS) {
    const ids = body[field] as (string & number)[] | undefined
    check(ctx, ids, field)
    if (ids) (input as unknown as Record<string, unknown>)[key] = ids
  }
  return input
}

/** Replace form first, then `_add`, then `_remove`; ids added must exist, ids removed need not. */
function updateInput(ctx: ServiceContext, body: UpdateBody, current: EpicRecord): EpicInput {
  const input = scalarInput(ctx, body)
  for (const { field, key, check } of LISTS) {
    const replace = body[field] as (string & number)[] | undefined
    const add = body[`${field}_add`] as (string & number)[] | undefined
    const remove = body[`${field}_remove`] as (string | number)[] | undefined
    if (replace === undefined && add === undefined && remove === undefined) continue
    check(ctx, replace, field)
    check(ctx, add, `${field}_add`)
    const base: (string | number)[] = replace ?? current[key]
    const next = unique([...base, ...(add ?? [])]).filter((id) => !(remove ?? []).includes(id))
    ;(input as unknown as Record<string, unknown>)[key] = next
  }
  return input
}

/** 422 naming each epic of the request that is not archived (deleting needs archived or force). */
function notArchived(ids: { index: number; epic: EpicRecord }[]): ApiError {
  const names = ids.map(({ epic }) => epic.id).join(', ')
  return ApiError.unprocessable(
    `Epics must be archived before they are deleted, unless force=true is sent. Not archived: ${names}.`,
    Object.fromEntries(ids.map(({ index, epic }) => [`epic_ids[${index}]`, `epic ${epic.id} is not archived`])),
    'epic_not_archived',
  )
}

export function epicsV4(app: ApiApp, { ctx, pager, refs }: Deps): void {
  const listQ = listQuery(EPIC_LIST.orderBy, EPIC_LIST.filter)
  const stateListQ = listQuery(EPIC_STATE_LIST.orderBy, EPIC_STATE_LIST.filter)

  const render = (r: Refs) => (ids: EntityId[]) => {
    const found = epics(ctx).getMany(ids)
    return epicPageV4(
      ctx,
      r,
      ids.map((id) => found.get(String(id))).filter((e): e is EpicRecord => !!e),
    )
  }
  const select = (q: ListQuery) =>
    epics(ctx).ids({
      archived: q.filter === 'include_archived' ? undefined : false,
      orderBy: q.order_by === 'updated_at' ? 'updated_at' : 'seq',
      dir: q.order_dir,
    })
  /** The epics a bulk request wrote, as one page. */
  const written = (req: FastifyRequest, query: ListQuery, ids: number[]) => {
    const once = unique(ids)
    return pager.list(req, { ...query, cursor: undefined, limit: once.length }, { fieldNames: FIELDS, select: () => once, render: render(refs(req)) })
  }

  app.get('/:workspace/epics', { schema: { querystring: listQ } }, async (req) =>
    pager.list(req, req.query, { fieldNames: FIELDS, select, render: render(refs(req)) }),
  )

  app.get('/:workspace/epics/search', { schema: { querystring: SearchEpicsQueryV4 } }, async (req) => {
    const q = req.query
    if (q.cursor === undefined && q.query === undefined) {
      throw ApiError.badRequest('query is required unless cursor is sent.', { query: 'is required' })
    }
    return pager.list(req, q, {
      fieldNames: FIELDS,
      select: () => searchEpics(ctx, epics(ctx).all(), q.query ?? ''),
      render: render(refs(req)),
    })
  })

  // Writes check `fields` before they change anything: a bad name must not follow a committed write.
  const checkFields = (query: { fields?: string }) => parseFields(query.fields, FIELDS)

  app.post('/:workspace/epics', { schema: { querystring: FieldsQuery, body: CreateEpicV4 } }, async (req, reply) => {
    checkFields(req.query)
    const epic = ctx.tx(() => createEpic(ctx, createInput(ctx, req.body), req.auth.member.id, new Mentions(ctx)))
    emitCreated(ctx, epic, req.auth.member.id)
    return reply.code(201).send(oneEntity(epicV4(ctx, refs(req), epic), req.query, FIELDS))
  })

  // Bulk forms are all or nothing: one bad item and nothing changes; errors name the item.
  app.post('/:workspace/epics/bulk', { schema: { querystring: listQ, body: BulkCreateEpicsV4 } }, async (req, reply) => {
    checkFields(req.query)
    const created = ctx.tx(() => {
      const mentions = new Mentions(ctx)
      return req.body.epics.map((body, i) => inBulkItem('epics', i, () => createEpic(ctx, createInput(ctx, body), req.auth.member.id, mentions)))
    })
    for (const epic of created) emitCreated(ctx, epic, req.auth.member.id)
    return reply.code(201).send(
      written(
        req,
        req.query,
        created.map((e) => e.id),
      ),
    )
  })

  app.patch('/:workspace/epics/bulk', { schema: { querystring: listQ, body: BulkUpdateEpicsV4 } }, async (req) => {
    checkFields(req.query)
    const updated = ctx.tx(() => {
      const mentions = new Mentions(ctx)
      return req.body.epics.map(({ id, ...body }, i) =>
        inBulkItem('epics', i, () => {
          const current = epics(ctx).require(id)
          return updateEpic(ctx, id, updateInput(ctx, body, current), mentions)
        }),
      )
    })
    for (const u of updated) emitUpdated(ctx, u, req.auth.member.id)
    return written(
      req,
      req.query,
      updated.map((u) => u.epic.id),
    )
  })

  app.delete('/:workspace/epics/bulk', { schema: { querystring: DeleteEpicsQueryV4, body: BulkDeleteEpicsV4 } }, async (req, reply) => {
    const deleted = ctx.tx(() => {
      const found = req.body.epic_ids.map((id, index) => ({ index, id, epic: epics(ctx).get(id) }))
      const missing = found.filter((f) => !f.epic)
      if (missing.length > 0) {
        throw new ApiError(
          404,
          'not_found',
          `No epic ${missing.map((m) => m.id).join(', ')}: nothing was deleted.`,
          Object.fromEntries(missing.map((m) => [`epic_ids[${m.index}]`, `no epic ${m.id}`])),
        )
      }
      const present = found as { index: number; id: number; epic: EpicRecord }[]
      const live = present.filter((f) => !f.epic.archived)
      if (live.length > 0 && req.query.force !== true) throw notArchived(live)
      return unique(req.body.epic_ids).map((id) => deleteEpic(ctx, id))
    })
    for (const epic of deleted) emitDeleted(ctx, epic, req.auth.member.id)
    return reply.code(204).send()
  })

  app.get('/:workspace/epics/:id', { schema: { params: IdParams, querystring: FieldsQuery } }, async (req) =>
    oneEntity(epicV4(ctx, refs(req), epics(ctx).require(req.params.id)), req.query, FIELDS),
  )

  app.patch('/:workspace/epics/:id', { schema: { params: IdParams, querystring: FieldsQuery, body: UpdateEpicV4 } }, async (req) => {
    checkFields(req.query)
    const updated: Updated = ctx.tx(() => {
      const current = epics(ctx).require(req.params.id)
      return updateEpic(ctx, current.id, updateInput(ctx, req.body, current), undefined)
    })
    emitUpdated(ctx, updated, req.auth.member.id)
    return oneEntity(epicV4(ctx, refs(req), updated.epic), req.query, FIELDS)
  })

  app.delete('/:workspace/epics/:id', { schema: { params: IdParams, querystring: DeleteEpicsQueryV4 } }, async (req, reply) => {
    const epic = ctx.tx(() => {
      const current = epics(ctx).require(req.params.id)
      if (!current.archived && req.query.force !== true) throw notArchived([{ index: 0, epic: current }])
      return deleteEpic(ctx, current.id)
    })
    emitDeleted(ctx, epic, req.auth.member.id)
    return reply.code(204).send()
  })

  // ---- the epic workflow ----

  app.get('/:workspace/epic-workflow', { schema: { querystring: FieldsQuery } }, async (req) =>
    oneEntity(epicWorkflowV4(ctx, refs(req)), req.query, WORKFLOW_FIELDS),
  )

  app.get('/:workspace/epic-workflow/states', { schema: { querystring: stateListQ } }, async (req) => {
    const r = refs(req)
    return pager.list(req, req.query, {
      fieldNames: STATE_FIELDS,
      select: (q) => epicStates(ctx).ids({ orderBy: 'position', dir: q.order_dir }),
      render: (ids) =>
        ids
          .map((id) => epicStates(ctx).get(id))
          .filter((s): s is EpicStateRecord => !!s)
          .map((s) => epicStateV4(r, s)),
    })
  })

  app.get('/:workspace/epic-workflow/states/:id', { schema: { params: IdParams, querystring: FieldsQuery } }, async (req) =>
    oneEntity(epicStateV4(refs(req), epicStates(ctx).require(req.params.id)), req.query, STATE_FIELDS),
  )
}
