// v3 epic routes: epics, their threaded comments, health, the planner link
// and the epic workflow.
import { Type } from 'typebox'
import { Id } from '../../../src-shared/api/common.ts'
import {
  CreateEpicCommentV3,
  CreateEpicHealthV3,
  CreateEpicV3,
  ListEpicsQueryV3,
  UpdateEpicCommentV3,
  UpdateEpicV3,
  type EpicSlimV3,
} from '../../../src-shared/api/v3/epics.ts'
import type { ApiApp, Deps } from '../../resource.ts'
import type { Auth } from '../../auth.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { jsonArrayStream } from '../../json-stream.ts'
import { origin } from '../../pages.ts'
import { CommentThreads, createComment, deleteComment, requireComment, requireLiveComment, updateComment } from './comments.ts'
import {
  createEpic,
  deleteEpic,
  emitCreated,
  emitDeleted,
  emitUpdated,
  ensureLabels,
  Mentions,
  requireGroups,
  requireMembers,
  requireObjectives,
  touchEpic,
  unlinkPlanner,
  updateEpic,
  type EpicInput,
} from './epic.ts'
import { createHealth, currentHealthV3, healthHistory, healthV3 } from './health.ts'
import { epics, type CommentRecord, type EpicRecord } from './records.ts'
import { EpicViewsV3 } from './render.ts'
import { epicWorkflowV3, stateForV3 } from './workflow.ts'

const EpicParams = Type.Object({ id: Id })
const CommentParams = Type.Object({ id: Id, commentId: Id })
const PaginatedQuery = Type.Object(
  {
    includes_description: Type.Optional(Type.Boolean()),
    page: Type.Optional(Type.Integer({ minimum: 1 })),
    page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 250 })),
  },
  { additionalProperties: false },
)

type V3Body = CreateEpicV3 | UpdateEpicV3

/**
 * A v3 body in record terms. Deprecated fields give way to their successors:
 * group_ids over group_id, objective_ids over milestone_id, epic_state_id over state.
 */
function inputOf(ctx: ServiceContext, body: V3Body, current?: EpicRecord): EpicInput {
  requireMembers(ctx, body.owner_ids, 'owner_ids')
  requireMembers(ctx, body.follower_ids, 'follower_ids')
  if (body.requested_by_id !== undefined) requireMembers(ctx, [body.requested_by_id], 'requested_by_id')
  const groupIds = body.group_ids ?? (body.group_id === undefined ? undefined : body.group_id === null ? [] : [body.group_id])
  requireGroups(ctx, groupIds, body.group_ids ? 'group_ids' : 'group_id')
  const objectiveIds = body.objective_ids ?? (body.milestone_id === undefined ? undefined : body.milestone_id === null ? [] : [body.milestone_id])
  requireObjectives(ctx, objectiveIds, body.objective_ids ? 'objective_ids' : 'milestone_id')
  const epicStateId = body.epic_state_id ?? (body.state ? stateForV3(ctx, body.state, current?.epic_state_id).id : undefined)
  return {
    name: body.name,
    description: body.description,
    archived: 'archived' in body ? body.archived : undefined,
    epic_state_id: epicStateId,
    external_id: body.external_id,
    requested_by_id: body.requested_by_id,
    owner_ids: body.owner_ids,
    follower_ids: body.follower_ids,
    group_ids: groupIds,
    objective_ids: objectiveIds,
    label_ids: body.labels ? ensureLabels(ctx, body.labels) : undefined,
    deadline: body.deadline,
    planned_start_date: body.planned_start_date,
    started_at_override: body.started_at_override,
    completed_at_override: body.completed_at_override,
  }
}

/** Observers may comment, and change or delete only what they wrote themselves. */
function checkCommentAuthor(auth: Auth, comment: CommentRecord): void {
  if (auth.member.role === 'observer' && comment.author_id !== auth.member.id) {
    throw ApiError.forbidden('Observers can only change their own comments.', 'observer')
  }
}

/** Epics from which the v3 list of every epic is sent as it is rendered. */
const STREAMED_LIST = 1000

export function epicsV3(app: ApiApp, { ctx }: Deps): void {
  const views = (req: Parameters<typeof origin>[0]) => new EpicViewsV3(ctx, origin(req))

  app.get('/epic-workflow', async () => epicWorkflowV3(ctx))

  app.get('/epics', { schema: { querystring: ListEpicsQueryV3 } }, async (req, reply) => {
    const { includes_description } = req.query
    const list = epics(ctx).all()
    const v = views(req)
    if (list.length > 20) v.preloadStories()
    const slim = (e: EpicRecord): EpicSlimV3 => v.slim(e, includes_description === true)
    // A long list goes as it is rendered, letting other requests through (json-stream.ts).
    if (list.length < STREAMED_LIST) return list.map(slim)
    return reply.type('application/json; charset=utf-8').send(jsonArrayStream(list, slim))
  })

  // The real service's paginated list (page numbers, not cursors).
  app.get('/epics/paginated', { schema: { querystring: PaginatedQuery } }, async (req) => {
    const page = req.query.page ?? 1
    const size = req.query.page_size ?? 10
    const ids = epics(ctx).ids()
    const v = views(req)
    const data = ids
      .slice((page - 1) * size, page * size)
      .map((id) => epics(ctx).get(id))
      .filter((e): e is EpicRecord => !!e)
      .map((e) => v.slim(e, req.query.includes_description === true))
    return { data, next: page * size < ids.length ? page + 1 : null, total: ids.length }
  })

  app.post('/epics', { schema: { body: CreateEpicV3 } }, async (req, reply) => {
    const { created_at, updated_at, name } = req.body
    const epic = ctx.tx(() => createEpic(ctx, { ...inputOf(ctx, req.body), name }, req.auth.member.id, new Mentions(ctx), { created_at, updated_at }))
    emitCreated(ctx, epic, req.auth.member.id)
    return reply.code(201).send(views(req).full(epic))
  })

  app.get('/epics/:id', { schema: { params: EpicParams } }, async (req) => views(req).full(epics(ctx).require(req.params.id)))

  app.put('/epics/:id', { schema: { params: EpicParams, body: UpdateEpicV3 } }, async (req) => {
    const { after_id, before_id } = req.body
    const updated = ctx.tx(() => {
      const current = epics(ctx).require(req.params.id)
      return updateEpic(ctx, current.id, inputOf(ctx, req.body, current), undefined, { after_id, before_id })
    })
    emitUpdated(ctx, updated, req.auth.member.id)
    return views(req).full(updated.epic)
  })

  app.delete('/epics/:id', { schema: { params: EpicParams } }, async (req, reply) => {
    const epic = ctx.tx(() => deleteEpic(ctx, req.params.id))
    emitDeleted(ctx, epic, req.auth.member.id)
    return reply.code(204).send()
  })

  app.post('/epics/:id/unlink-planner', { schema: { params: EpicParams } }, async (req, reply) => {
    const updated = ctx.tx(() => unlinkPlanner(ctx, req.params.id))
    emitUpdated(ctx, updated, req.auth.member.id)
    return reply.code(204).send()
  })

  // ---- threaded comments (Observers may write them) ----

  const commentActivity = (c: CommentRecord, action: 'create' | 'update' | 'delete', memberId: string, epic: EpicRecord) =>
    ctx.emit({
      entity_type: 'epic-comment',
      action,
      id: c.id,
      name: c.text.slice(0, 100),
      member_id: memberId,
      references: [{ id: epic.id, entity_type: 'epic', name: epic.name }],
    })

  app.get('/epics/:id/comments', { schema: { params: EpicParams } }, async (req) => {
    epics(ctx).require(req.params.id)
    return CommentThreads.of(ctx, origin(req), req.params.id).top()
  })

  const addComment = (parent: 'top' | 'reply') => async (req: { params: { id: number; commentId?: number }; body: CreateEpicCommentV3; auth: Auth }) => {
    const authorId = req.body.author_id ?? req.auth.member.id
    return ctx.tx(() => {
      const epic = epics(ctx).require(req.params.id)
      const parentId = parent === 'reply' ? requireLiveComment(ctx, epic.id, req.params.commentId!).id : null
      requireMembers(ctx, [authorId], 'author_id')
      const comment = createComment(ctx, epic.id, parentId, req.body, authorId, new Mentions(ctx))
      return { comment, epic: touchEpic(ctx, epic) }
    })
  }

  app.post('/epics/:id/comments', { config: { observerWrites: true }, schema: { params: EpicParams, body: CreateEpicCommentV3 } }, async (req, reply) => {
    const { comment, epic } = await addComment('top')(req)
    commentActivity(comment, 'create', req.auth.member.id, epic)
    return reply.code(201).send(CommentThreads.of(ctx, origin(req), epic.id).render(comment))
  })

  app.get('/epics/:id/comments/:commentId', { schema: { params: CommentParams } }, async (req) => {
    epics(ctx).require(req.params.id)
    const comment = requireComment(ctx, req.params.id, req.params.commentId)
    return CommentThreads.of(ctx, origin(req), req.params.id).render(comment)
  })

  app.post(
    '/epics/:id/comments/:commentId',
    { config: { observerWrites: true }, schema: { params: CommentParams, body: CreateEpicCommentV3 } },
    async (req, reply) => {
      const { comment, epic } = await addComment('reply')(req)
      commentActivity(comment, 'create', req.auth.member.id, epic)
      return reply.code(201).send(CommentThreads.of(ctx, origin(req), epic.id).render(comment))
    },
  )

  app.put('/epics/:id/comments/:commentId', { config: { observerWrites: true }, schema: { params: CommentParams, body: UpdateEpicCommentV3 } }, async (req) => {
    const { comment, epic, changed } = ctx.tx(() => {
      const epic = epics(ctx).require(req.params.id)
      const before = requireLiveComment(ctx, epic.id, req.params.commentId)
      checkCommentAuthor(req.auth, before)
      const comment = updateComment(ctx, before, req.body.text, new Mentions(ctx))
      const changed = comment !== before
      return { comment, epic: changed ? touchEpic(ctx, epic) : epic, changed }
    })
    if (changed) commentActivity(comment, 'update', req.auth.member.id, epic)
    return CommentThreads.of(ctx, origin(req), epic.id).render(comment)
  })

  app.delete('/epics/:id/comments/:commentId', { config: { observerWrites: true }, schema: { params: CommentParams } }, async (req, reply) => {
    const { comment, epic } = ctx.tx(() => {
      const epic = epics(ctx).require(req.params.id)
      const comment = requireLiveComment(ctx, epic.id, req.params.commentId)
      checkCommentAuthor(req.auth, comment)
      deleteComment(ctx, comment)
      return { comment, epic: touchEpic(ctx, epic) }
    })
    commentActivity(comment, 'delete', req.auth.member.id, epic)
    return reply.code(204).send()
  })

  // ---- health ----

  app.get('/epics/:id/health', { schema: { params: EpicParams } }, async (req) => currentHealthV3(ctx, epics(ctx).require(req.params.id)))

  app.post('/epics/:id/health', { schema: { params: EpicParams, body: CreateEpicHealthV3 } }, async (req, reply) => {
    const health = ctx.tx(() => {
      const epic = epics(ctx).require(req.params.id)
      const h = createHealth(ctx, epic.id, req.body, req.auth.member.id)
      touchEpic(ctx, epic)
      return h
    })
    return reply.code(201).send(healthV3(health))
  })

  app.get('/epics/:id/health-history', { schema: { params: EpicParams } }, async (req) => {
    epics(ctx).require(req.params.id)
    return healthHistory(ctx, req.params.id).map(healthV3)
  })
}
