// Entity (story) templates: v3 list/create/get/update/delete and the feature
// switch, v4 update and delete. Behind the entity_templates feature switch.
import { Type } from 'typebox'
import { FieldsQuery } from '../../../src-shared/api/common.ts'
import {
  CreateEntityTemplateV3,
  UpdateEntityTemplateV3,
  type EntityTemplateV3,
  type StoryContentsParamsV3,
  type StoryContentsV3,
  type TemplateCustomFieldParams,
} from '../../../src-shared/api/v3/entity-templates.ts'
import { EntityTemplateV4, UpdateEntityTemplateV4, type StoryContentsV4, type UpdateStoryContentsV4 } from '../../../src-shared/api/v4/entity-templates.ts'
import type { Slim } from '../../../src-shared/api/common.ts'
import type { Resource } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import type { Kind } from '../../kinds.ts'
import { oneEntity, origin } from '../../pages.ts'
import type { Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import { customFields, valueText, type FieldValueRef } from '../custom-fields/field.ts'
import { Mentions, linkedFileV3, uploadedFileV3 } from '../files/render.ts'
import { files, linkedFiles } from '../files/store.ts'
import { findOrCreateLabel, labelsV3 } from '../labels/label.ts'
import type { MemberRecord } from '../members/member.ts'
import { stories } from '../stories/story.ts'
import { templates, type EntityTemplateRecord, type StoryContentsRecord } from './template.ts'

export { templates, type EntityTemplateRecord } from './template.ts'

const FIELDS = Object.keys(EntityTemplateV4.properties)

function assertTemplatesEnabled(ctx: ServiceContext): void {
  if (!ctx.featureEnabled('entity_templates')) throw ApiError.disabledFeature('entity_templates')
}

/** story_contents as both generations' bodies carry it, labels already resolved to ids. */
type ContentsPatch = Omit<UpdateStoryContentsV4, 'label_ids'> & { label_ids?: number[] }

const ID_LISTS = ['external_links', 'file_ids', 'follower_ids', 'label_ids', 'linked_file_ids', 'owner_ids'] as const
type IdList = (typeof ID_LISTS)[number]

/** Every id a template names must exist: 422 naming the field otherwise. */
function checkReferences(ctx: ServiceContext, c: StoryContentsRecord): void {
  const errors: Record<string, string> = {}
  const one = (field: string, kind: Kind, id: EntityId | undefined) => {
    if (id !== undefined && !ctx.col(kind).has(id)) errors[`story_contents.${field}`] = `no ${kind.replace('_', ' ')} ${id}`
  }
  const many = (field: string, kind: Kind, ids: readonly EntityId[] | undefined) => {
    const bad = ids?.find((id) => !ctx.col(kind).has(id))
    if (bad !== undefined) errors[`story_contents.${field}`] = `no ${kind.replace('_', ' ')} ${bad}`
  }
  one('epic_id', 'epic', c.epic_id)
  one('group_id', 'group', c.group_id)
  one('iteration_id', 'iteration', c.iteration_id)
  one('project_id', 'project', c.project_id)
  one('workflow_state_id', 'workflow_state', c.workflow_state_id)
  many('owner_ids', 'member', c.owner_ids)
  many('follower_ids', 'member', c.follower_ids)
  many('label_ids', 'label', c.label_ids)
  many('file_ids', 'file', c.file_ids)
  many('linked_file_ids', 'linked_file', c.linked_file_ids)
  c.tasks?.forEach((t, i) => many(`tasks[${i}].owner_ids`, 'member', t.owner_ids))
  c.sub_tasks?.forEach((t, i) => {
    many(`sub_tasks[${i}].owner_ids`, 'member', t.owner_ids)
    one(`sub_tasks[${i}].workflow_state_id`, 'workflow_state', t.workflow_state_id ?? undefined)
  })
  c.custom_fields?.forEach((ref, i) => {
    const field = customFields(ctx).get(ref.field_id)
    if (!field) errors[`story_contents.custom_fields[${i}].field_id`] = `no custom field ${ref.field_id}`
    else if (!field.enabled) errors[`story_contents.custom_fields[${i}].field_id`] = 'is disabled; only enabled fields apply to stories'
    else if (!field.values.some((v) => v.id === ref.value_id)) errors[`story_contents.custom_fields[${i}].value_id`] = `is not a value of "${field.name}"`
  })
  if (Object.keys(errors).length > 0) throw ApiError.unprocessable('The template names something that does not exist.', errors)
}

const unique = <T>(xs: readonly T[]) => [...new Set(xs)]

/** One value per field: a later entry for the same field wins. */
const byField = (refs: readonly TemplateCustomFieldParams[]): FieldValueRef[] => [
  ...new Map(refs.map((r) => [r.field_id, { field_id: r.field_id, value_id: r.value_id }])).values(),
]

/** Applies a story_contents body: keys sent replace, null unsets, _add/_remove edit lists. */
function applyContents(current: StoryContentsRecord, patch: ContentsPatch): StoryContentsRecord {
  const next: Record<string, unknown> = { ...current }
  const scalars = [
    'deadline',
    'description',
    'epic_id',
    'estimate',
    'group_id',
    'iteration_id',
    'name',
    'project_id',
    'story_type',
    'workflow_state_id',
  ] as const
  for (const key of scalars) {
    const v = patch[key]
    if (v === null) delete next[key]
    else if (v !== undefined) next[key] = v
  }
  for (const key of ID_LISTS) {
    const replace = patch[key] as readonly (string | number)[] | undefined
    const add = patch[`${key}_add` as `${IdList}_add`] as readonly (string | number)[] | undefined
    const remove = patch[`${key}_remove` as `${IdList}_remove`] as readonly (string | number)[] | undefined
    if (replace === undefined && add === undefined && remove === undefined) continue
    let list = (replace ?? (next[key] as (string | number)[] | undefined) ?? []).slice()
    if (add) list = [...list, ...add]
    if (remove) list = list.filter((x) => !remove.includes(x))
    next[key] = unique(list)
  }
  if (patch.custom_fields !== undefined || patch.custom_fields_add !== undefined || patch.custom_fields_remove !== undefined) {
    let refs: FieldValueRef[] = patch.custom_fields ? byField(patch.custom_fields) : (current.custom_fields ?? [])
    if (patch.custom_fields_add) refs = byField([...refs, ...patch.custom_fields_add])
    if (patch.custom_fields_remove) {
      const gone = patch.custom_fields_remove
      refs = refs.filter((r) => !gone.some((g) => g.field_id === r.field_id && g.value_id === r.value_id))
    }
    next.custom_fields = refs
  }
  if (patch.tasks !== undefined) {
    next.tasks = patch.tasks.map((t, i) => ({
      description: t.description,
      complete: t.complete ?? false,
      owner_ids: unique(t.owner_ids ?? []),
      external_id: t.external_id ?? null,
      position: i + 1,
    }))
  }
  if (patch.sub_tasks !== undefined) {
    next.sub_tasks = patch.sub_tasks.map((t, i) => ({
      name: t.name,
      owner_ids: unique(t.owner_ids ?? []),
      workflow_state_id: t.workflow_state_id ?? null,
      position: i + 1,
    }))
  }
  return next as StoryContentsRecord
}

/** A v3 story_contents body: `labels` name labels, found or created by name. */
function fromV3(ctx: ServiceContext, body: StoryContentsParamsV3): ContentsPatch {
  const { labels, ...rest } = body
  return labels === undefined ? rest : { ...rest, label_ids: labels.map((l) => findOrCreateLabel(ctx, l).id) }
}

export function createTemplate(ctx: ServiceContext, authorId: string, body: CreateEntityTemplateV3): EntityTemplateRecord {
  if (body.author_id !== undefined && !ctx.col<MemberRecord>('member').has(body.author_id)) {
    throw ApiError.unprocessable(`Member ${body.author_id} does not exist.`, { author_id: 'no such member' })
  }
  const contents = applyContents({}, fromV3(ctx, body.story_contents))
  checkReferences(ctx, contents)
  const now = ctx.now()
  return templates(ctx).insert({
    id: ctx.uuid(),
    name: body.name,
    author_id: body.author_id ?? authorId,
    // Not shown: no operation here creates a story from a template, so it is the creation time.
    last_used_at: now,
    story_contents: contents,
    created_at: now,
    updated_at: now,
  })
}

export function updateTemplate(ctx: ServiceContext, id: string, name: string | undefined, patch: ContentsPatch | undefined): EntityTemplateRecord {
  const current = templates(ctx).require(id)
  const contents = patch ? applyContents(current.story_contents, patch) : current.story_contents
  if (patch) checkReferences(ctx, contents)
  return templates(ctx).update({ ...current, name: name ?? current.name, story_contents: contents, updated_at: ctx.now() })
}

export function deleteTemplate(ctx: ServiceContext, id: string): EntityTemplateRecord {
  const gone = templates(ctx).require(id)
  templates(ctx).delete(id)
  // Stories made from it keep no dangling reference.
  for (const s of stories(ctx).all()) if (s.story_template_id === id) stories(ctx).update({ ...s, story_template_id: null })
  return gone
}

/** Renders v3 templates for one request (files need the mention index). */
class TemplateViewsV3 {
  private mentions?: Mentions

  constructor(
    private readonly ctx: ServiceContext,
    private readonly origin: string,
  ) {}

  template(t: EntityTemplateRecord): EntityTemplateV3 {
    return { ...t, entity_type: 'entity-template', story_contents: this.contents(t.story_contents) }
  }

  private contents(c: StoryContentsRecord): StoryContentsV3 {
    const { custom_fields, file_ids, linked_file_ids, sub_tasks, ...rest } = c
    const out: StoryContentsV3 = { ...rest, entity_type: 'story' }
    if (sub_tasks) {
      out.sub_tasks = sub_tasks.map((t) => ({
        name: t.name,
        owner_ids: t.owner_ids,
        ...(t.workflow_state_id === null ? {} : { workflow_state_id: t.workflow_state_id }),
      }))
    }
    if (c.label_ids) out.labels = labelsV3(this.ctx, this.origin, c.label_ids)
    if (custom_fields) {
      out.custom_fields = custom_fields.flatMap((ref) => {
        const value = valueText(this.ctx, ref)
        return value === undefined ? [] : [{ ...ref, value }]
      })
    }
    if (file_ids) {
      this.mentions ??= new Mentions(this.ctx)
      out.files = file_ids.flatMap((id) => {
        const f = files(this.ctx).get(id)
        return f ? [uploadedFileV3(this.origin, this.mentions!, f)] : []
      })
    }
    if (linked_file_ids) {
      this.mentions ??= new Mentions(this.ctx)
      out.linked_files = linked_file_ids.flatMap((id) => {
        const f = linkedFiles(this.ctx).get(id)
        return f ? [linkedFileV3(this.mentions!, f)] : []
      })
    }
    return out
  }
}

export function templateV4(refs: Refs, t: EntityTemplateRecord): EntityTemplateV4 {
  const c = t.story_contents
  const slims = (kind: Kind, ids: readonly EntityId[] | undefined) => ids?.flatMap((id) => refs.slim(kind, id) ?? [])
  const slim = (kind: Kind, id: EntityId | undefined) => refs.slim(kind, id) ?? undefined
  const contents: StoryContentsV4 = {
    custom_fields: c.custom_fields,
    deadline: c.deadline,
    description: c.description,
    entity_type: 'story',
    epic: slim('epic', c.epic_id),
    estimate: c.estimate,
    external_links: c.external_links,
    files: slims('file', c.file_ids),
    followers: slims('member', c.follower_ids),
    iteration: slim('iteration', c.iteration_id),
    labels: slims('label', c.label_ids),
    linked_files: slims('linked_file', c.linked_file_ids),
    name: c.name,
    owners: slims('member', c.owner_ids),
    project: slim('project', c.project_id),
    story_type: c.story_type,
    sub_tasks: c.sub_tasks?.map((s) => {
      const state = slim('workflow_state', s.workflow_state_id ?? undefined)
      return { name: s.name, owners: slims('member', s.owner_ids) ?? [], position: s.position, ...(state ? { workflow_state: state } : {}) }
    }),
    tasks: c.tasks?.map((s) => ({ complete: s.complete, description: s.description, owners: slims('member', s.owner_ids) ?? [], position: s.position })),
    team: slim('group', c.group_id),
    workflow_state: slim('workflow_state', c.workflow_state_id),
  }
  // Only the keys the template sets.
  for (const key of Object.keys(contents) as (keyof StoryContentsV4)[]) if (contents[key] === undefined) delete contents[key]
  return {
    entity_type: 'entity-template',
    author: refs.slim('member', t.author_id) as Slim | null,
    created_at: t.created_at,
    id: t.id,
    last_used_at: t.last_used_at,
    name: t.name,
    story_contents: contents,
    updated_at: t.updated_at,
    uri: refs.uri('entity_template', t.id),
  }
}

const IdParams = Type.Object({ id: Type.String({ format: 'uuid' }) })
const V4IdParams = Type.Object({ workspace: Type.String(), id: Type.String({ format: 'uuid' }) })

export const entityTemplatesResource: Resource = {
  seed: ({ ctx }) => {
    const author = ctx
      .col<MemberRecord>('member')
      .all()
      .find((m) => m.role === 'admin')
    if (!author) return
    const label = (name: string) => ctx.col<{ id: number; created_at: string; updated_at: string }>('label').byName(name)[0]?.id
    const field = (name: string, value: string) => {
      const f = customFields(ctx).byName(name)[0]
      const v = f?.values.find((x) => x.value === value)
      return f && v ? [{ field_id: f.id, value_id: v.id }] : []
    }
    const team = (name: string) => ctx.col('group').byName(name)[0]?.id as string | undefined
    const workflow = ctx.col<{ id: number; default_state_id: number; created_at: string; updated_at: string }>('workflow').all()[0]
    const ids = (...xs: (number | undefined)[]) => xs.filter((x): x is number => x !== undefined)
    createTemplate(ctx, author.id, {
      name: 'Bug report',
      story_contents: {
        story_type: 'bug',
        name: 'Bug: ',
        description: '## What happened\n\n## What I expected\n\n## Steps to reproduce\n1. \n\n## Version and OS\n',
        custom_fields: [...field('Severity', 'Sev 3'), ...field('Priority', 'Medium')],
        ...(workflow ? { workflow_state_id: workflow.default_state_id } : {}),
        ...(team('Web') ? { group_id: team('Web') } : {}),
        tasks: [{ description: 'Reproduce on the latest build' }, { description: 'Add a regression test' }],
      },
    })
    const made = createTemplate(ctx, author.id, {
      name: 'Feature request',
      story_contents: {
        story_type: 'feature',
        description: '## Problem\n\nWho is stuck, and on what?\n\n## Proposal\n\n## Out of scope\n',
        estimate: 2,
        owner_ids: [author.id],
        tasks: [{ description: 'Write the acceptance criteria' }, { description: 'Review the design with the team' }],
      },
    })
    const labelIds = ids(label('customer-request'), label('ux'))
    if (labelIds.length > 0) templates(ctx).update({ ...made, story_contents: { ...made.story_contents, label_ids: labelIds } })
  },

  v3: (app, { ctx }) => {
    app.get('/entity-templates', async (req) => {
      assertTemplatesEnabled(ctx)
      const views = new TemplateViewsV3(ctx, origin(req))
      return templates(ctx)
        .all()
        .map((t) => views.template(t))
    })

    app.post('/entity-templates', { schema: { body: CreateEntityTemplateV3 } }, async (req, reply) => {
      assertTemplatesEnabled(ctx)
      const t = ctx.tx(() => createTemplate(ctx, req.auth.member.id, req.body))
      ctx.emit({ entity_type: 'entity-template', action: 'create', id: t.id, name: t.name, member_id: req.auth.member.id })
      return reply.code(201).send(new TemplateViewsV3(ctx, origin(req)).template(t))
    })

    app.put('/entity-templates/disable', async (_req, reply) => {
      ctx.tx(() => ctx.setFeature('entity_templates', false))
      return reply.code(204).send()
    })

    app.put('/entity-templates/enable', async (_req, reply) => {
      ctx.tx(() => ctx.setFeature('entity_templates', true))
      return reply.code(204).send()
    })

    app.get('/entity-templates/:id', { schema: { params: IdParams } }, async (req) => {
      assertTemplatesEnabled(ctx)
      return new TemplateViewsV3(ctx, origin(req)).template(templates(ctx).require(req.params.id))
    })

    app.put('/entity-templates/:id', { schema: { params: IdParams, body: UpdateEntityTemplateV3 } }, async (req) => {
      assertTemplatesEnabled(ctx)
      const body = req.body
      const t = ctx.tx(() => updateTemplate(ctx, req.params.id, body.name, body.story_contents && fromV3(ctx, body.story_contents)))
      ctx.emit({ entity_type: 'entity-template', action: 'update', id: t.id, name: t.name, member_id: req.auth.member.id })
      return new TemplateViewsV3(ctx, origin(req)).template(t)
    })

    app.delete('/entity-templates/:id', { schema: { params: IdParams } }, async (req, reply) => {
      assertTemplatesEnabled(ctx)
      const gone = ctx.tx(() => deleteTemplate(ctx, req.params.id))
      ctx.emit({ entity_type: 'entity-template', action: 'delete', id: gone.id, name: gone.name, member_id: req.auth.member.id })
      return reply.code(204).send()
    })
  },

  v4: (app, { ctx, refs }) => {
    // Get is "not shown" in the spec; the real service has it, and a PATCH client wants to read back.
    app.get('/:workspace/entity-templates/:id', { schema: { params: V4IdParams, querystring: FieldsQuery } }, async (req) => {
      assertTemplatesEnabled(ctx)
      return oneEntity(templateV4(refs(req), templates(ctx).require(req.params.id)), req.query, FIELDS)
    })

    app.patch('/:workspace/entity-templates/:id', { schema: { params: V4IdParams, querystring: FieldsQuery, body: UpdateEntityTemplateV4 } }, async (req) => {
      assertTemplatesEnabled(ctx)
      const t = ctx.tx(() => updateTemplate(ctx, req.params.id, req.body.name, req.body.story_contents))
      ctx.emit({ entity_type: 'entity-template', action: 'update', id: t.id, name: t.name, member_id: req.auth.member.id })
      return oneEntity(templateV4(refs(req), t), req.query, FIELDS)
    })

    app.delete('/:workspace/entity-templates/:id', { schema: { params: V4IdParams } }, async (req, reply) => {
      assertTemplatesEnabled(ctx)
      const gone = ctx.tx(() => deleteTemplate(ctx, req.params.id))
      ctx.emit({ entity_type: 'entity-template', action: 'delete', id: gone.id, name: gone.name, member_id: req.auth.member.id })
      return reply.code(204).send()
    })
  },
}
