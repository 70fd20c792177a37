// The stored label (the v3 Label less its computed fields), its v3 form, and
// find-or-create by name, which templates and epics use for `labels` bodies.
import type { LabelV3 } from '../../../src-shared/api/v3/labels.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { appUrl, globalId } from '../../refs.ts'

export interface LabelRecord {
  id: number
  name: string
  color: string | null
  description: string | null
  external_id: string | null
  archived: boolean
  created_at: string
  updated_at: string
}

export const labels = (ctx: ServiceContext) => ctx.col<LabelRecord>('label')

export function labelV3(ctx: ServiceContext, origin: string, l: LabelRecord): LabelV3 {
  return {
    app_url: appUrl(origin, ctx.workspace.slug, 'label', l.id),
    archived: l.archived,
    color: l.color,
    created_at: l.created_at,
    description: l.description,
    entity_type: 'label',
    external_id: l.external_id,
    global_id: globalId(ctx, 'label', l.id),
    id: l.id,
    name: l.name,
    updated_at: l.updated_at,
  }
}

/** Labels of the given ids, in that order; ids of deleted labels are left out. */
export function labelsV3(ctx: ServiceContext, origin: string, ids: readonly number[]): LabelV3[] {
  const col = labels(ctx)
  return ids
    .map((id) => col.get(id))
    .filter((l): l is LabelRecord => !!l)
    .map((l) => labelV3(ctx, origin, l))
}

export interface LabelParams {
  name: string
  color?: string
  description?: string
  external_id?: string
}

/** The label of that name, or a new one: a `labels` entry never fails on an existing name. */
export function findOrCreateLabel(ctx: ServiceContext, params: LabelParams): LabelRecord {
  return labels(ctx).byName(params.name)[0] ?? insertLabel(ctx, params)
}

/** POST /labels: a new label; its name must not be taken (exactly as written, as `labels` entries match). */
export function createLabel(ctx: ServiceContext, params: LabelParams): LabelRecord {
  if (labels(ctx).byName(params.name).length > 0) {
    throw ApiError.unprocessable(`A label named "${params.name}" already exists.`, { name: 'is already taken' })
  }
  return insertLabel(ctx, params)
}

function insertLabel(ctx: ServiceContext, params: LabelParams): LabelRecord {
  const now = ctx.now()
  return labels(ctx).insert({
    id: ctx.nextId(),
    name: params.name,
    color: params.color ?? null,
    description: params.description ?? null,
    external_id: params.external_id ?? null,
    archived: false,
    created_at: now,
    updated_at: now,
  })
}
