// Categories: v3 CRUD, v4 CRUD with bulk forms. Names are unique (422 on a clash).
import { Type } from 'typebox'
import { FieldsQuery, Id, listQuery } from '../../../src-shared/api/common.ts'
import { CreateCategoryV3, UpdateCategoryV3, type CategoryV3 } from '../../../src-shared/api/v3/categories.ts'
import {
  BulkCreateCategoriesV4,
  BulkDeleteCategoriesV4,
  BulkUpdateCategoriesV4,
  CATEGORY_LIST,
  CategoryV4,
  CreateCategoryV4,
  UpdateCategoryV4,
} from '../../../src-shared/api/v4/categories.ts'
import type { Resource } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError, inBulkItem } from '../../errors.ts'
import { oneEntity, parseFields } from '../../pages.ts'
import { globalId, type Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'

export interface CategoryRecord {
  id: number
  archived: boolean
  color: string | null
  created_at: string
  external_id: string | null
  name: string
  updated_at: string
}

type CategoryPatch = Partial<Pick<CategoryRecord, 'archived' | 'color' | 'external_id' | 'name'>>

const FIELDS = Object.keys(CategoryV4.properties)
const IdParams = Type.Object({ id: Id })
const V4IdParams = Type.Object({ workspace: Type.String(), id: Id })

const categories = (ctx: ServiceContext) => ctx.col<CategoryRecord>('category')

function assertNameFree(ctx: ServiceContext, name: string, self?: number): void {
  if (
    categories(ctx)
      .byName(name)
      .some((c) => c.id !== self)
  ) {
    throw ApiError.unprocessable(`A category named "${name}" already exists.`, { name: 'is already taken' })
  }
}

export function createCategory(ctx: ServiceContext, input: { name: string; color?: string; external_id?: string }): CategoryRecord {
  assertNameFree(ctx, input.name)
  const now = ctx.now()
  return categories(ctx).insert({
    id: ctx.nextId(),
    archived: false,
    color: input.color ?? null,
    created_at: now,
    external_id: input.external_id ?? null,
    name: input.name,
    updated_at: now,
  })
}

export function updateCategory(ctx: ServiceContext, id: EntityId, patch: CategoryPatch): CategoryRecord {
  const current = categories(ctx).require(id)
  if (patch.name !== undefined) assertNameFree(ctx, patch.name, current.id)
  return categories(ctx).update({ ...current, ...patch, updated_at: ctx.now() })
}

export function deleteCategory(ctx: ServiceContext, id: EntityId): void {
  if (!categories(ctx).delete(id)) throw ApiError.notFound(`Category ${id} does not exist.`)
}

/** Every category groups objectives (formerly milestones): the published description's one type, 'milestone'. */
export const categoryV3 = (ctx: ServiceContext, c: CategoryRecord): CategoryV3 => ({
  ...c,
  entity_type: 'category',
  global_id: globalId(ctx, 'category', c.id),
  type: 'milestone',
})
export const categoryV4 = (refs: Refs, c: CategoryRecord): CategoryV4 => ({ entity_type: 'category', ...c, uri: refs.uri('category', c.id) })

const DEMO_CATEGORIES: [string, string][] = [
  ['Growth', '#2e7d32'],
  ['Platform', '#1565c0'],
  ['Reliability', '#c62828'],
  ['Customer', '#6a1b9a'],
  ['Design', '#ef6c00'],
]

export const categoriesResource: Resource = {
  seed: ({ ctx }) => {
    for (const [name, color] of DEMO_CATEGORIES) createCategory(ctx, { name, color })
  },

  v3: (app, { ctx }) => {
    app.get('/categories', async () =>
      categories(ctx)
        .all()
        .map((c) => categoryV3(ctx, c)),
    )

    app.post('/categories', { schema: { body: CreateCategoryV3 } }, async (req, reply) => {
      return reply.code(201).send(
        categoryV3(
          ctx,
          ctx.tx(() => createCategory(ctx, req.body)),
        ),
      )
    })

    app.get('/categories/:id', { schema: { params: IdParams } }, async (req) => categoryV3(ctx, categories(ctx).require(req.params.id)))

    app.put('/categories/:id', { schema: { params: IdParams, body: UpdateCategoryV3 } }, async (req) =>
      categoryV3(
        ctx,
        ctx.tx(() => updateCategory(ctx, req.params.id, req.body)),
      ),
    )

    app.delete('/categories/:id', { schema: { params: IdParams } }, async (req, reply) => {
      ctx.tx(() => deleteCategory(ctx, req.params.id))
      return reply.code(204).send()
    })
  },

  v4: (app, { ctx, pager, refs }) => {
    const listQ = listQuery(CATEGORY_LIST.orderBy, CATEGORY_LIST.filter)
    const select = (q: { order_by?: string; order_dir?: 'asc' | 'desc'; filter?: string }) =>
      categories(ctx).ids({
        archived: q.filter === 'include_archived' ? undefined : false,
        orderBy: (q.order_by as 'name' | 'updated_at' | undefined) ?? 'seq',
        dir: q.order_dir,
      })
    const render = (r: Refs) => (ids: EntityId[]) =>
      ids
        .map((id) => categories(ctx).get(id))
        .filter((c): c is CategoryRecord => !!c)
        .map((c) => categoryV4(r, c))

    app.get('/:workspace/categories', { schema: { querystring: listQ } }, async (req) =>
      pager.list(req, req.query, { fieldNames: FIELDS, select, render: render(refs(req)) }),
    )

    app.post('/:workspace/categories', { schema: { querystring: FieldsQuery, body: CreateCategoryV4 } }, async (req, reply) => {
      parseFields(req.query.fields, FIELDS) // a bad `fields` must fail before anything is written
      const c = ctx.tx(() => createCategory(ctx, req.body))
      return reply.code(201).send(oneEntity(categoryV4(refs(req), c), req.query, FIELDS))
    })

    // Bulk forms are all or nothing: one bad item and nothing changes.
    app.post('/:workspace/categories/bulk', { schema: { querystring: listQ, body: BulkCreateCategoriesV4 } }, async (req, reply) => {
      parseFields(req.query.fields, FIELDS)
      const created = ctx.tx(() => req.body.categories.map((c, i) => inBulkItem('categories', i, () => createCategory(ctx, c))))
      const ids = created.map((c) => c.id)
      return reply.code(201).send(pager.list(req, { ...req.query, limit: ids.length }, { fieldNames: FIELDS, select: () => ids, render: render(refs(req)) }))
    })

    app.patch('/:workspace/categories/bulk', { schema: { querystring: listQ, body: BulkUpdateCategoriesV4 } }, async (req) => {
      parseFields(req.query.fields, FIELDS)
      const updated = ctx.tx(() => req.body.categories.map(({ id, ...patch }, i) => inBulkItem('categories', i, () => updateCategory(ctx, id, patch))))
      const ids = updated.map((c) => c.id)
      return pager.list(req, { ...req.query, limit: ids.length }, { fieldNames: FIELDS, select: () => ids, render: render(refs(req)) })
    })

    app.delete('/:workspace/categories/bulk', { schema: { body: BulkDeleteCategoriesV4 } }, async (req, reply) => {
      ctx.tx(() => req.body.category_ids.forEach((id, i) => inBulkItem('category_ids', i, () => deleteCategory(ctx, id))))
      return reply.code(204).send()
    })

    app.get('/:workspace/categories/:id', { schema: { params: V4IdParams, querystring: FieldsQuery } }, async (req) =>
      oneEntity(categoryV4(refs(req), categories(ctx).require(req.params.id)), req.query, FIELDS),
    )

    app.patch('/:workspace/categories/:id', { schema: { params: V4IdParams, querystring: FieldsQuery, body: UpdateCategoryV4 } }, async (req) => {
      parseFields(req.query.fields, FIELDS)
      const c = ctx.tx(() => updateCategory(ctx, req.params.id, req.body))
      return oneEntity(categoryV4(refs(req), c), req.query, FIELDS)
    })

    app.delete('/:workspace/categories/:id', { schema: { params: V4IdParams } }, async (req, reply) => {
      ctx.tx(() => deleteCategory(ctx, req.params.id))
      return reply.code(204).send()
    })
  },
}
