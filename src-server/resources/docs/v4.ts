// v4 docs and collections (part 2 §4.2), plus the doc operations the spec marks
// "not shown" that the real service has: update, delete, followers, collections.
import Fuse from 'fuse.js'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { FieldsQuery, listQuery, Uuid, type ListQuery } from '../../../src-shared/api/common.ts'
import {
  BulkCreateDocsV4,
  COLLECTION_LIST,
  CollectionV4,
  CreateCollectionV4,
  CreateDocV4,
  DOC_FOLLOWER_LIST,
  DOC_LIST,
  DocV4,
  GetDocQueryV4,
  SearchDocsQueryV4,
  UpdateDocV4,
} from '../../../src-shared/api/v4/docs.ts'
import { MemberV4 } from '../../../src-shared/api/v4/members.ts'
import type { ApiApp, Deps } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError, inBulkItem } from '../../errors.ts'
import { oneEntity, sortBy } from '../../pages.ts'
import type { Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import { memberV4 } from '../members/index.ts'
import type { MemberRecord } from '../members/member.ts'
import type { DocStreams } from './events.ts'
import { collectionV4, docV4 } from './render.ts'
import {
  assertDocAdmin,
  collections,
  createCollection,
  createDoc,
  deleteDoc,
  docHeaders,
  docs,
  setDocCollections,
  updateDoc,
  type CollectionRecord,
  type DocRecord,
} from './store.ts'

const DOC_FIELDS = Object.keys(DocV4.properties)
const COLLECTION_FIELDS = Object.keys(CollectionV4.properties)
const MEMBER_FIELDS = Object.keys(MemberV4.properties)
const DocParams = Type.Object({ workspace: Type.String(), id: Uuid })
const DocCollectionParams = Type.Object({ workspace: Type.String(), id: Uuid, collectionId: Uuid })
const CollectionParams = Type.Object({ workspace: Type.String(), id: Uuid })

type OrderQuery = Pick<ListQuery, 'order_by' | 'order_dir' | 'filter'>

/** Fuzzy title match: typos and partial words still find a doc; best matches first. */
const FUSE_OPTIONS = { keys: ['title'], threshold: 0.4, ignoreLocation: true }

/** Collection ids in list order; `within` narrows to a doc's collections. */
function collectionIds(ctx: ServiceContext, memberId: string, q: OrderQuery, within?: readonly string[]): string[] {
  let found = collections(ctx).all()
  if (within) found = found.filter((c) => within.includes(c.id))
  if (q.filter === 'favorited') found = found.filter((c) => c.favorite_member_ids.includes(memberId))
  else if (q.filter !== 'include_archived') found = found.filter((c) => !c.archived)
  if (q.order_by === 'name') found = sortBy(found, (c) => c.name.toLowerCase(), q.order_dir)
  else if (q.order_by === 'created_at') found = sortBy(found, (c) => c.created_at, q.order_dir)
  else if (q.order_dir === 'desc') found.reverse()
  return found.map((c) => c.id)
}

const renderCollections = (ctx: ServiceContext, r: Refs, memberId: string) => (ids: EntityId[]) =>
  ids
    .map((id) => collections(ctx).get(id))
    .filter((c): c is CollectionRecord => c !== undefined)
    .map((c) => collectionV4(r, c, memberId))

export function docRoutesV4(app: ApiApp, { ctx, pager, refs }: Deps, streams: DocStreams): void {
  const listQ = listQuery(DOC_LIST.orderBy, DOC_LIST.filter)
  const selectDocs = (q: OrderQuery) =>
    docs(ctx).ids({
      archived: q.filter === 'include_archived' ? undefined : false,
      orderBy: (q.order_by as 'created_at' | 'updated_at' | undefined) ?? 'seq',
      dir: q.order_dir,
    })
  const renderDocs = (r: Refs) => (ids: EntityId[]) =>
    ids
      .map((id) => docs(ctx).get(id))
      .filter((d): d is DocRecord => d !== undefined)
      .map((d) => docV4(r, d, 'both'))
  const emitCreate = (req: FastifyRequest, d: DocRecord) =>
    ctx.emit({ entity_type: 'doc', action: 'create', id: d.id, name: d.title, member_id: req.auth.member.id })

  app.get('/:workspace/documents', { schema: { querystring: listQ } }, async (req) =>
    pager.list(req, req.query, { fieldNames: DOC_FIELDS, select: selectDocs, render: renderDocs(refs(req)) }),
  )

  app.post('/:workspace/documents', { schema: { querystring: FieldsQuery, body: CreateDocV4 } }, async (req, reply) => {
    const doc = ctx.tx(() => createDoc(ctx, req.auth.member, req.body))
    emitCreate(req, doc)
    return reply.code(201).send(oneEntity(docV4(refs(req), doc, 'both'), req.query, DOC_FIELDS))
  })

  app.post('/:workspace/documents/bulk', { schema: { querystring: listQ, body: BulkCreateDocsV4 } }, async (req, reply) => {
    const created = ctx.tx(() => req.body.documents.map((d, i) => inBulkItem('documents', i, () => createDoc(ctx, req.auth.member, d))))
    for (const d of created) emitCreate(req, d)
    const ids = created.map((d) => d.id)
    return reply
      .code(201)
      .send(pager.list(req, { ...req.query, limit: ids.length }, { fieldNames: DOC_FIELDS, select: () => ids, render: renderDocs(refs(req)) }))
  })

  app.get('/:workspace/documents/search', { schema: { querystring: SearchDocsQueryV4 } }, async (req) => {
    const q = req.query
    if (q.cursor === undefined && q.query === undefined) {
      throw ApiError.badRequest('query is required unless cursor is sent.', { query: 'is required unless cursor is sent' })
    }
    const me = req.auth.member.id
    return pager.list(req, q, {
      fieldNames: DOC_FIELDS,
      select: () => {
        // Absent flags do not filter; false selects the complement.
        const candidates = docHeaders(ctx).filter(
          (d) =>
            (q.archived === undefined || d.archived === q.archived) &&
            (q.created_by_me === undefined || (d.creator_id === me) === q.created_by_me) &&
            (q.followed_by_me === undefined || d.follower_ids.includes(me) === q.followed_by_me),
        )
        return new Fuse(candidates, FUSE_OPTIONS).search(q.query ?? '').map((r) => r.item.id)
      },
      render: renderDocs(refs(req)),
    })
  })

  app.get('/:workspace/documents/:id', { schema: { params: DocParams, querystring: GetDocQueryV4 } }, async (req) =>
    oneEntity(docV4(refs(req), docs(ctx).require(req.params.id), req.query.content_format ?? 'markdown'), req.query, DOC_FIELDS),
  )

  app.patch('/:workspace/documents/:id', { schema: { params: DocParams, querystring: FieldsQuery, body: UpdateDocV4 } }, async (req) => {
    const { doc, changes } = ctx.tx(() => updateDoc(ctx, req.params.id, req.body))
    if (Object.keys(changes).length > 0) ctx.emit({ entity_type: 'doc', action: 'update', id: doc.id, name: doc.title, member_id: req.auth.member.id, changes })
    return oneEntity(docV4(refs(req), doc, 'both'), req.query, DOC_FIELDS)
  })

  app.delete('/:workspace/documents/:id', { schema: { params: DocParams } }, async (req, reply) => {
    const doc = ctx.tx(() => {
      assertDocAdmin(docs(ctx).require(req.params.id), req.auth.member)
      return deleteDoc(ctx, req.params.id)
    })
    ctx.emit({ entity_type: 'doc', action: 'delete', id: doc.id, name: doc.title, member_id: req.auth.member.id })
    return reply.code(204).send()
  })

  app.get('/:workspace/documents/:id/events', { schema: { params: DocParams } }, async (req, reply) => {
    streams.open(reply, docs(ctx).require(req.params.id))
  })

  app.get(
    '/:workspace/documents/:id/followers',
    { schema: { params: DocParams, querystring: listQuery(DOC_FOLLOWER_LIST.orderBy, DOC_FOLLOWER_LIST.filter) } },
    async (req) => {
      const doc = docs(ctx).require(req.params.id)
      const r = refs(req)
      const members = () => ctx.col<MemberRecord>('member')
      return pager.list(req, req.query, {
        fieldNames: MEMBER_FIELDS,
        select: (q) => {
          const found = doc.follower_ids
            .map((id) => members().get(id))
            .filter((m): m is MemberRecord => !!m && (q.filter === 'include_disabled' || !m.disabled))
          const ordered = q.order_by === 'name' ? sortBy(found, (m) => m.profile.name, q.order_dir) : found
          return ordered.map((m) => m.id)
        },
        render: (ids) =>
          ids
            .map((id) => members().get(id))
            .filter((m): m is MemberRecord => !!m)
            .map((m) => memberV4(ctx, r, m)),
      })
    },
  )

  const collectionListQ = listQuery(COLLECTION_LIST.orderBy, COLLECTION_LIST.filter)

  app.get('/:workspace/documents/:id/collections', { schema: { params: DocParams, querystring: collectionListQ } }, async (req) => {
    const doc = docs(ctx).require(req.params.id)
    const me = req.auth.member.id
    return pager.list(req, req.query, {
      fieldNames: COLLECTION_FIELDS,
      select: (q) => collectionIds(ctx, me, q, doc.collection_ids),
      render: renderCollections(ctx, refs(req), me),
    })
  })

  const changeMembership = (req: FastifyRequest, docId: string, collectionId: string, add: boolean) => {
    if (!ctx.featureEnabled('collections')) throw ApiError.disabledFeature('collections')
    const result = ctx.tx(() => {
      const doc = docs(ctx).require(docId)
      collections(ctx).require(collectionId)
      const has = doc.collection_ids.includes(collectionId)
      if (has === add) return { doc, changed: false }
      const next = add ? [...doc.collection_ids, collectionId] : doc.collection_ids.filter((c) => c !== collectionId)
      return { doc: setDocCollections(ctx, doc, next), changed: true, old: doc.collection_ids }
    })
    if (result.changed) {
      ctx.emit({
        entity_type: 'doc',
        action: 'update',
        id: docId,
        name: result.doc.title,
        member_id: req.auth.member.id,
        changes: { collection_ids: { old: result.old, new: result.doc.collection_ids } },
      })
    }
    return result.doc
  }

  app.put('/:workspace/documents/:id/collections/:collectionId', { schema: { params: DocCollectionParams, querystring: FieldsQuery } }, async (req) =>
    oneEntity(docV4(refs(req), changeMembership(req, req.params.id, req.params.collectionId, true), 'both'), req.query, DOC_FIELDS),
  )

  app.delete('/:workspace/documents/:id/collections/:collectionId', { schema: { params: DocCollectionParams } }, async (req, reply) => {
    changeMembership(req, req.params.id, req.params.collectionId, false)
    return reply.code(204).send()
  })
}

export function collectionRoutesV4(app: ApiApp, { ctx, pager, refs }: Deps): void {
  const listQ = listQuery(COLLECTION_LIST.orderBy, COLLECTION_LIST.filter)

  app.get('/:workspace/collections', { schema: { querystring: listQ } }, async (req) =>
    pager.list(req, req.query, {
      fieldNames: COLLECTION_FIELDS,
      select: (q) => collectionIds(ctx, req.auth.member.id, q),
      render: renderCollections(ctx, refs(req), req.auth.member.id),
    }),
  )

  app.post('/:workspace/collections', { schema: { querystring: FieldsQuery, body: CreateCollectionV4 } }, async (req, reply) => {
    const c = ctx.tx(() => createCollection(ctx, req.body))
    return reply.code(201).send(oneEntity(collectionV4(refs(req), c, req.auth.member.id), req.query, COLLECTION_FIELDS))
  })

  app.get('/:workspace/collections/:id', { schema: { params: CollectionParams, querystring: FieldsQuery } }, async (req) =>
    oneEntity(collectionV4(refs(req), collections(ctx).require(req.params.id), req.auth.member.id), req.query, COLLECTION_FIELDS),
  )

  // Favorites are the caller's own: Observers may keep them too.
  const favorite = (id: string, memberId: string, on: boolean) =>
    ctx.tx(() => {
      const c = collections(ctx).require(id)
      const has = c.favorite_member_ids.includes(memberId)
      if (has === on) return c
      const ids = on ? [...c.favorite_member_ids, memberId] : c.favorite_member_ids.filter((m) => m !== memberId)
      return collections(ctx).update({ ...c, favorite_member_ids: ids })
    })

  app.put(
    '/:workspace/collections/:id/favorite',
    { config: { observerWrites: true }, schema: { params: CollectionParams, querystring: FieldsQuery } },
    async (req) => oneEntity(collectionV4(refs(req), favorite(req.params.id, req.auth.member.id, true), req.auth.member.id), req.query, COLLECTION_FIELDS),
  )

  app.delete('/:workspace/collections/:id/favorite', { config: { observerWrites: true }, schema: { params: CollectionParams } }, async (req, reply) => {
    favorite(req.params.id, req.auth.member.id, false)
    return reply.code(204).send()
  })
}
