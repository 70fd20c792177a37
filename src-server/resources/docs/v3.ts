// v3 docs (part 2 §4.4): CRUD, doc-epic relations, and the doc's event stream.
import { Type } from 'typebox'
import { Id, Uuid } from '../../../src-shared/api/common.ts'
import { CreateDocV3, DeleteDocV3, GetDocQueryV3, UpdateDocV3 } from '../../../src-shared/api/v3/docs.ts'
import type { ApiApp, Deps } from '../../resource.ts'
import { ApiError } from '../../errors.ts'
import { origin } from '../../pages.ts'
import type { DocStreams } from './events.ts'
import { EpicViewsV3 } from '../epics/render.ts'
import { epics as epicRecords } from '../epics/records.ts'
import { docSlimV3, docV3 } from './render.ts'
import { assertDocAdmin, createDoc, deleteDoc, docHeaders, docs, DOC_EPIC, updateDoc } from './store.ts'

const DocParams = Type.Object({ id: Uuid })
const EpicParams = Type.Object({ id: Id })
const DocEpicParams = Type.Object({ id: Uuid, epicId: Id })

export function docRoutesV3(app: ApiApp, { ctx }: Deps, streams: DocStreams): void {
  app.get('/documents', async (req) => docHeaders(ctx).map((d) => docSlimV3(ctx, origin(req), d)))

  app.post('/documents', { schema: { body: CreateDocV3 } }, async (req, reply) => {
    const doc = ctx.tx(() => createDoc(ctx, req.auth.member, req.body))
    ctx.emit({ entity_type: 'doc', action: 'create', id: doc.id, name: doc.title, member_id: req.auth.member.id })
    return reply.code(201).send(docSlimV3(ctx, origin(req), doc))
  })

  app.get('/documents/:id', { schema: { params: DocParams, querystring: GetDocQueryV3 } }, async (req) =>
    docV3(ctx, origin(req), docs(ctx).require(req.params.id), req.query.content_format ?? 'markdown'),
  )

  // content_format is the input format (default html) and the answer's (default markdown).
  app.put('/documents/:id', { schema: { params: DocParams, body: UpdateDocV3 } }, async (req) => {
    const { doc, changes } = ctx.tx(() => updateDoc(ctx, req.params.id, { ...req.body, content_format: req.body.content_format ?? 'html' }))
    if (Object.keys(changes).length > 0) ctx.emit({ entity_type: 'doc', action: 'update', id: doc.id, name: doc.title, member_id: req.auth.member.id, changes })
    return docV3(ctx, origin(req), doc, req.body.content_format ?? 'markdown')
  })

  app.delete('/documents/:id', { schema: { params: DocParams, body: DeleteDocV3 } }, async (req, reply) => {
    const doc = ctx.tx(() => {
      assertDocAdmin(docs(ctx).require(req.params.id), req.auth.member)
      return deleteDoc(ctx, req.params.id)
    })
    ctx.emit({ entity_type: 'doc', action: 'delete', id: doc.id, name: doc.title, member_id: req.auth.member.id })
    return reply.code(204).send()
  })

  app.get('/documents/:id/events', { schema: { params: DocParams } }, async (req, reply) => {
    streams.open(reply, docs(ctx).require(req.params.id))
  })

  app.get('/documents/:id/epics', { schema: { params: DocParams } }, async (req) => {
    docs(ctx).require(req.params.id)
    // The EpicSlim every epic list gives (lists leave descriptions out).
    const views = new EpicViewsV3(ctx, origin(req))
    return ctx
      .relation(DOC_EPIC)
      .bsOf(req.params.id)
      .map((id) => epicRecords(ctx).get(Number(id)))
      .filter((e): e is NonNullable<typeof e> => e !== undefined)
      .map((e) => views.slim(e, false))
  })

  app.put('/documents/:id/epics/:epicId', { schema: { params: DocEpicParams } }, async (req, reply) => {
    const { id, epicId } = req.params
    const change = ctx.tx(() => {
      const doc = docs(ctx).require(id)
      const epic = epicRecords(ctx).get(epicId)
      if (!epic)
        throw ApiError.unprocessable(`Epic ${epicId} does not exist, so doc ${id} cannot be related to it.`, { epic_id: 'no such epic' }, 'unprocessable_error')
      const relation = ctx.relation(DOC_EPIC)
      const before = relation.bsOf(id).map(Number)
      if (before.includes(epicId)) return undefined
      relation.add(id, epicId, ctx.now())
      return { doc, epic, before }
    })
    if (change) {
      ctx.emit({
        entity_type: 'doc',
        action: 'update',
        id,
        name: change.doc.title,
        member_id: req.auth.member.id,
        changes: { epic_ids: { old: change.before, new: [...change.before, epicId] } },
        references: [{ id: epicId, entity_type: 'epic', name: String(change.epic.name ?? '') }],
      })
    }
    return reply.code(204).send()
  })

  app.delete('/documents/:id/epics/:epicId', { schema: { params: DocEpicParams } }, async (req, reply) => {
    const { id, epicId } = req.params
    const change = ctx.tx(() => {
      const doc = docs(ctx).require(id)
      const epic = epicRecords(ctx).get(epicId)
      if (!epic) throw ApiError.notFound(`Epic ${epicId} does not exist.`)
      const relation = ctx.relation(DOC_EPIC)
      const before = relation.bsOf(id).map(Number)
      return relation.remove(id, epicId) ? { doc, epic, before } : undefined
    })
    if (change) {
      ctx.emit({
        entity_type: 'doc',
        action: 'update',
        id,
        name: change.doc.title,
        member_id: req.auth.member.id,
        changes: { epic_ids: { old: change.before, new: change.before.filter((e) => e !== epicId) } },
        references: [{ id: epicId, entity_type: 'epic', name: String(change.epic.name ?? '') }],
      })
    }
    return reply.code(204).send()
  })

  app.get('/epics/:id/documents', { schema: { params: EpicParams } }, async (req) => {
    epicRecords(ctx).require(req.params.id)
    return ctx
      .relation(DOC_EPIC)
      .asOf(req.params.id)
      .map((id) => docs(ctx).get(id))
      .filter((d) => d !== undefined)
      .map((d) => docSlimV3(ctx, origin(req), d))
  })
}
