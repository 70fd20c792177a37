// Custom fields (enum fields of stories): v3 list/get/update/delete, v4
// get/patch/delete with bulk forms, and the stories that have a value set.
// Fields are workspace settings here; creating them is not part of the API.
import { Type } from 'typebox'
import { FieldsQuery, listQuery } from '../../../src-shared/api/common.ts'
import type { CustomFieldV3, CustomFieldValueParams } from '../../../src-shared/api/v3/custom-fields.ts'
import { UpdateCustomFieldV3 } from '../../../src-shared/api/v3/custom-fields.ts'
import {
  BulkDeleteCustomFieldsV4,
  BulkUpdateCustomFieldsV4,
  CUSTOM_FIELD_LIST,
  CUSTOM_FIELD_STORY_LIST,
  CustomFieldV4,
  UpdateCustomFieldV4,
} from '../../../src-shared/api/v4/custom-fields.ts'
import type { Resource } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError, inBulkItem } from '../../errors.ts'
import { oneEntity, sortBy } from '../../pages.ts'
import type { Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import { templates } from '../entity-templates/template.ts'
import { orderStories, stories, storiesV4, STORY_FIELDS } from '../stories/story.ts'
import { customFields, type CustomFieldRecord, type CustomFieldValueRecord } from './field.ts'

export { customFields, valueText, type CustomFieldRecord, type CustomFieldValueRecord } from './field.ts'

const FIELDS = Object.keys(CustomFieldV4.properties)

export function customFieldV3(f: CustomFieldRecord): CustomFieldV3 {
  const out: CustomFieldV3 = {
    created_at: f.created_at,
    enabled: f.enabled,
    entity_type: 'custom-field',
    field_type: f.field_type,
    id: f.id,
    name: f.name,
    position: f.position,
    updated_at: f.updated_at,
    values: f.values.map((v) => ({ ...v, entity_type: 'custom-field-enum-value' })),
  }
  // What the field does not have is left out: the published v3 CustomField types these as
  // (non-empty) strings, never null.
  if (f.canonical_name !== null) out.canonical_name = f.canonical_name
  if (f.description !== '') out.description = f.description
  if (f.icon_set_identifier !== null) out.icon_set_identifier = f.icon_set_identifier
  return out
}

export function customFieldV4(refs: Refs, f: CustomFieldRecord): CustomFieldV4 {
  const field = { entity_type: 'custom-field:slim', id: f.id, name: f.name, uri: refs.uri('custom_field', f.id) }
  return {
    entity_type: 'custom-field',
    canonical_name: f.canonical_name,
    created_at: f.created_at,
    description: f.description,
    enabled: f.enabled,
    field_type: f.field_type,
    fixed_position: f.fixed_position,
    icon_set_identifier: f.icon_set_identifier,
    id: f.id,
    name: f.name,
    position: f.position,
    story_types: f.story_types,
    updated_at: f.updated_at,
    uri: field.uri,
    values: f.values.map((v) => ({
      entity_type: 'custom-field-value',
      color_key: v.color_key,
      enabled: v.enabled,
      field,
      id: v.id,
      position: v.position,
      value: v.value,
    })),
  }
}

const inOrder = (ctx: ServiceContext) => sortBy(customFields(ctx).all(), (f) => f.position)

type UpdateBody = UpdateCustomFieldV4

function conflict(message: string, errors: Record<string, string>): never {
  throw ApiError.conflict(message, 'data_conflict_error', errors)
}

/** Applies one entry of `values`/`values_add` to a value, or makes a new one. */
function valueFrom(ctx: ServiceContext, field: CustomFieldRecord, p: CustomFieldValueParams, path: string): CustomFieldValueRecord {
  if (p.id !== undefined) {
    const existing = field.values.find((v) => v.id === p.id)
    if (!existing) conflict(`Value ${p.id} is not a value of the custom field "${field.name}".`, { [`${path}.id`]: 'is not a value of this field' })
    return {
      ...existing,
      value: p.value ?? existing.value,
      color_key: p.color_key !== undefined ? p.color_key : existing.color_key,
      enabled: p.enabled ?? existing.enabled,
    }
  }
  if (p.value === undefined) throw ApiError.unprocessable('A new value needs its value text.', { [`${path}.value`]: 'is required to create a value' })
  return { id: ctx.uuid(), value: p.value, position: 0, color_key: p.color_key ?? null, enabled: p.enabled ?? true }
}

function nextValues(ctx: ServiceContext, field: CustomFieldRecord, body: UpdateBody): CustomFieldValueRecord[] {
  let values = field.values
  if (body.values !== undefined) {
    const seen = new Set<string>()
    values = body.values.map((p, i) => {
      if (p.id !== undefined) {
        if (seen.has(p.id)) conflict(`Value ${p.id} appears twice in values.`, { [`values[${i}].id`]: 'appears twice' })
        seen.add(p.id)
      }
      return valueFrom(ctx, field, p, `values[${i}]`)
    })
  }
  if (body.values_remove !== undefined) {
    body.values_remove.forEach((id, i) => {
      if (!values.some((v) => v.id === id))
        conflict(`Value ${id} is not a value of the custom field "${field.name}".`, { [`values_remove[${i}]`]: 'is not a value of this field' })
    })
    values = values.filter((v) => !body.values_remove!.includes(v.id))
  }
  if (body.values_add !== undefined) {
    body.values_add.forEach((p, i) => {
      const next = valueFrom(ctx, { ...field, values }, p, `values_add[${i}]`)
      const at = values.findIndex((v) => v.id === next.id)
      values = at >= 0 ? values.map((v, k) => (k === at ? next : v)) : [...values, next]
    })
  }
  const byText = new Map<string, string>()
  for (const v of values) {
    const key = v.value.trim().toLowerCase()
    if (byText.has(key)) conflict(`The custom field "${field.name}" would have the value "${v.value}" twice.`, { values: `duplicate value "${v.value}"` })
    byText.set(key, v.id)
  }
  return values.map((v, position) => ({ ...v, position }))
}

/** Moves a field after or before another; field positions are renumbered 1..n. */
function move(ctx: ServiceContext, self: CustomFieldRecord, body: { after_id?: string; before_id?: string }): number {
  if (body.after_id !== undefined && body.before_id !== undefined) {
    throw ApiError.badRequest('Send after_id or before_id, not both.', { after_id: 'not allowed with before_id' })
  }
  const key = body.after_id !== undefined ? 'after_id' : 'before_id'
  const target = body.after_id ?? body.before_id!
  if (target === self.id) conflict('A custom field cannot move relative to itself.', { [key]: 'is the custom field itself' })
  if (!customFields(ctx).has(target)) throw ApiError.unprocessable(`Custom field ${target} does not exist.`, { [key]: `no custom field ${target}` })
  const order = inOrder(ctx).filter((f) => f.id !== self.id)
  const at = order.findIndex((f) => f.id === target) + (key === 'after_id' ? 1 : 0)
  order.splice(at, 0, self)
  order.forEach((f, i) => {
    if (f.id !== self.id && f.position !== i + 1) customFields(ctx).update({ ...f, position: i + 1 })
  })
  return at + 1
}

/** Stories and templates forget values (and fields) that no longer exist. */
function forgetValues(ctx: ServiceContext, gone: (ref: { field_id: string; value_id: string }) => boolean): void {
  for (const s of stories(ctx).all()) {
    if (s.custom_fields.some(gone)) stories(ctx).update({ ...s, custom_fields: s.custom_fields.filter((r) => !gone(r)) })
  }
  for (const t of templates(ctx).all()) {
    const refs = t.story_contents.custom_fields
    if (refs?.some(gone)) templates(ctx).update({ ...t, story_contents: { ...t.story_contents, custom_fields: refs.filter((r) => !gone(r)) } })
  }
}

export function updateCustomField(ctx: ServiceContext, id: string, body: UpdateBody): { before: CustomFieldRecord; after: CustomFieldRecord } {
  const before = customFields(ctx).require(id)
  if (body.values !== undefined && (body.values_add !== undefined || body.values_remove !== undefined)) {
    throw ApiError.badRequest('values replaces the whole list; send it without values_add and values_remove.', {
      values: 'not allowed with values_add or values_remove',
    })
  }
  if (body.name !== undefined) {
    const wanted = body.name.trim().toLowerCase()
    if (
      customFields(ctx)
        .all()
        .some((f) => f.id !== id && f.name.trim().toLowerCase() === wanted)
    ) {
      conflict(`A custom field named "${body.name}" already exists.`, { name: 'is already taken' })
    }
  }
  const after: CustomFieldRecord = { ...before, values: nextValues(ctx, before, body), updated_at: ctx.now() }
  if (body.name !== undefined) after.name = body.name
  if (body.description !== undefined) after.description = body.description
  if (body.enabled !== undefined) after.enabled = body.enabled
  if (body.icon_set_identifier !== undefined) after.icon_set_identifier = body.icon_set_identifier
  if (body.after_id !== undefined || body.before_id !== undefined) after.position = move(ctx, before, body)
  customFields(ctx).update(after)
  const kept = new Set(after.values.map((v) => v.id))
  if (before.values.some((v) => !kept.has(v.id))) forgetValues(ctx, (r) => r.field_id === id && !kept.has(r.value_id))
  return { before, after }
}

export function deleteCustomField(ctx: ServiceContext, id: string): CustomFieldRecord {
  const gone = customFields(ctx).require(id)
  customFields(ctx).delete(id)
  inOrder(ctx).forEach((f, i) => {
    if (f.position !== i + 1) customFields(ctx).update({ ...f, position: i + 1 })
  })
  forgetValues(ctx, (r) => r.field_id === id)
  return gone
}

function changes(before: CustomFieldRecord, after: CustomFieldRecord) {
  const out: Record<string, { old: unknown; new: unknown }> = {}
  for (const key of Object.keys(after) as (keyof CustomFieldRecord)[]) {
    if (key !== 'updated_at' && JSON.stringify(before[key]) !== JSON.stringify(after[key])) out[key] = { old: before[key], new: after[key] }
  }
  return out
}

const DEMO_FIELDS: {
  name: string
  canonical: string | null
  icon: string | null
  description: string
  types: string[]
  enabled: boolean
  values: [string, string | null][]
}[] = [
  {
    name: 'Priority',
    canonical: 'priority',
    icon: 'priority',
    description: 'How soon this needs to happen.',
    types: [],
    enabled: true,
    values: [
      ['Highest', 'red'],
      ['High', 'orange'],
      ['Medium', 'yellow'],
      ['Low', 'gray'],
    ],
  },
  {
    name: 'Severity',
    canonical: 'severity',
    icon: 'severity',
    description: 'How badly a bug hurts the people who meet it.',
    types: ['bug'],
    enabled: true,
    values: [
      ['Sev 1', 'red'],
      ['Sev 2', 'orange'],
      ['Sev 3', 'yellow'],
      ['Sev 4', 'green'],
    ],
  },
  {
    name: 'Product Area',
    canonical: null,
    icon: null,
    description: 'Which part of the product this touches.',
    types: [],
    enabled: true,
    values: [
      ['Desktop app', 'purple'],
      ['Sync service', 'blue'],
      ['Website', 'turquoise'],
      ['Billing', null],
    ],
  },
  {
    name: 'Technical Area',
    canonical: 'technical-area',
    icon: null,
    description: 'Retired in favour of Product Area.',
    types: [],
    enabled: false,
    values: [
      ['Frontend', 'sky-blue'],
      ['Backend', 'midnight-blue'],
    ],
  },
]

const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) })
const V4IdParams = Type.Object({ workspace: Type.String(), id: Type.String({ format: 'uuid' }) })

export const customFieldsResource: Resource = {
  seed: ({ ctx }) => {
    const now = ctx.now()
    DEMO_FIELDS.forEach((f, i) => {
      customFields(ctx).insert({
        id: ctx.uuid(),
        name: f.name,
        description: f.description,
        canonical_name: f.canonical,
        enabled: f.enabled,
        field_type: 'enum',
        fixed_position: false,
        icon_set_identifier: f.icon,
        position: i + 1,
        story_types: f.types,
        values: f.values.map(([value, color_key], position) => ({ id: ctx.uuid(), value, position, color_key, enabled: true })),
        created_at: now,
        updated_at: now,
      })
    })
  },

  v3: (app, { ctx }) => {
    app.get('/custom-fields', async () => inOrder(ctx).map(customFieldV3))

    app.get('/custom-fields/:id', { schema: { params: IdParams } }, async (req) => customFieldV3(customFields(ctx).require(req.params.id)))

    app.put('/custom-fields/:id', { schema: { params: IdParams, body: UpdateCustomFieldV3 } }, async (req) => {
      const { before, after } = ctx.tx(() => updateCustomField(ctx, req.params.id, req.body))
      ctx.emit({
        entity_type: 'custom-field',
        action: 'update',
        id: after.id,
        name: after.name,
        member_id: req.auth.member.id,
        changes: changes(before, after),
      })
      return customFieldV3(after)
    })

    app.delete('/custom-fields/:id', { schema: { params: IdParams } }, async (req, reply) => {
      const gone = ctx.tx(() => deleteCustomField(ctx, req.params.id))
      ctx.emit({ entity_type: 'custom-field', action: 'delete', id: gone.id, name: gone.name, member_id: req.auth.member.id })
      return reply.code(204).send()
    })
  },

  v4: (app, { ctx, pager, refs }) => {
    const listQ = listQuery(CUSTOM_FIELD_LIST.orderBy, CUSTOM_FIELD_LIST.filter)
    const order = (list: CustomFieldRecord[], q: { order_by?: string; order_dir?: 'asc' | 'desc' }) =>
      sortBy(list, (f) => (q.order_by === 'name' ? f.name : q.order_by === 'updated_at' ? f.updated_at : f.position), q.order_dir).map((f) => f.id)
    const render = (r: Refs) => (ids: EntityId[]) =>
      ids
        .map((id) => customFields(ctx).get(id))
        .filter((f): f is CustomFieldRecord => !!f)
        .map((f) => customFieldV4(r, f))

    // Listing is "not shown" in the spec; the real service has it and it costs nothing here.
    app.get('/:workspace/custom-fields', { schema: { querystring: listQ } }, async (req) =>
      pager.list(req, req.query, { fieldNames: FIELDS, select: (q) => order(customFields(ctx).all(), q), render: render(refs(req)) }),
    )

    app.patch('/:workspace/custom-fields/bulk', { schema: { querystring: listQ, body: BulkUpdateCustomFieldsV4 } }, async (req) => {
      const updated = ctx.tx(() => req.body.custom_fields.map(({ id, ...patch }, i) => inBulkItem('custom_fields', i, () => updateCustomField(ctx, id, patch))))
      for (const { before, after } of updated) {
        ctx.emit({
          entity_type: 'custom-field',
          action: 'update',
          id: after.id,
          name: after.name,
          member_id: req.auth.member.id,
          changes: changes(before, after),
        })
      }
      const latest = updated.map((u) => customFields(ctx).get(u.after.id)).filter((f): f is CustomFieldRecord => !!f)
      const ids = req.query.order_by ? order(latest, req.query) : [...new Set(latest.map((f) => f.id))]
      return pager.list(req, { ...req.query, limit: ids.length }, { fieldNames: FIELDS, select: () => ids, render: render(refs(req)) })
    })

    app.delete('/:workspace/custom-fields/bulk', { schema: { body: BulkDeleteCustomFieldsV4 } }, async (req, reply) => {
      const gone = ctx.tx(() => req.body.custom_field_ids.map((id, i) => inBulkItem('custom_field_ids', i, () => deleteCustomField(ctx, id))))
      for (const f of gone) ctx.emit({ entity_type: 'custom-field', action: 'delete', id: f.id, name: f.name, member_id: req.auth.member.id })
      return reply.code(204).send()
    })

    app.get('/:workspace/custom-fields/:id', { schema: { params: V4IdParams, querystring: FieldsQuery } }, async (req) =>
      oneEntity(customFieldV4(refs(req), customFields(ctx).require(req.params.id)), req.query, FIELDS),
    )

    app.patch('/:workspace/custom-fields/:id', { schema: { params: V4IdParams, querystring: FieldsQuery, body: UpdateCustomFieldV4 } }, async (req) => {
      const { before, after } = ctx.tx(() => updateCustomField(ctx, req.params.id, req.body))
      ctx.emit({
        entity_type: 'custom-field',
        action: 'update',
        id: after.id,
        name: after.name,
        member_id: req.auth.member.id,
        changes: changes(before, after),
      })
      return oneEntity(customFieldV4(refs(req), after), req.query, FIELDS)
    })

    app.delete('/:workspace/custom-fields/:id', { schema: { params: V4IdParams } }, async (req, reply) => {
      const gone = ctx.tx(() => deleteCustomField(ctx, req.params.id))
      ctx.emit({ entity_type: 'custom-field', action: 'delete', id: gone.id, name: gone.name, member_id: req.auth.member.id })
      return reply.code(204).send()
    })

    app.get(
      '/:workspace/custom-fields/:id/stories',
      { schema: { params: V4IdParams, querystring: listQuery(CUSTOM_FIELD_STORY_LIST.orderBy, CUSTOM_FIELD_STORY_LIST.filter) } },
      async (req) => {
        const id = customFields(ctx).require(req.params.id).id
        const r = refs(req)
        return pager.list(req, req.query, {
          fieldNames: STORY_FIELDS,
          select: (q) =>
            orderStories(
              stories(ctx)
                .all()
                .filter((s) => s.custom_fields.some((c) => c.field_id === id)),
              q,
            ),
          render: (ids) => storiesV4(ctx, r, ids),
        })
      },
    )
  },
}
