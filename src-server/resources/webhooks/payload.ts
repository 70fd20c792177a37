// One activity of the service as the real service's v1 webhook event:
// {id, changed_at, primary_id, member_id, version, actions[], references[]}.
import type { WebhookAction, WebhookChange, WebhookPayloadV1, WebhookReference } from '../../../src-shared/api/v3/webhooks.ts'
import type { Activity, ServiceContext } from '../../context.ts'
import { KINDS, type Kind } from '../../kinds.ts'
import { appUrl } from '../../refs.ts'
import type { EntityId } from '../../store.ts'

/** Fields whose values are ids of other entities: the payload names those in `references`. */
const REFERENCED_FIELDS: Record<string, { kind: Kind; entity_type: string }> = {
  epic_state_id: { kind: 'epic_state', entity_type: 'epic-state' },
  workflow_state_id: { kind: 'workflow_state', entity_type: 'workflow-state' },
  group_id: { kind: 'group', entity_type: 'group' },
  group_ids: { kind: 'group', entity_type: 'group' },
  milestone_id: { kind: 'objective', entity_type: 'milestone' },
  objective_ids: { kind: 'objective', entity_type: 'objective' },
  label_ids: { kind: 'label', entity_type: 'label' },
  category_ids: { kind: 'category', entity_type: 'category' },
  epic_id: { kind: 'epic', entity_type: 'epic' },
  epic_ids: { kind: 'epic', entity_type: 'epic' },
  doc_ids: { kind: 'doc', entity_type: 'doc' },
  project_id: { kind: 'project', entity_type: 'project' },
  iteration_id: { kind: 'iteration', entity_type: 'iteration' },
}

/** Activity entity types that have a page in the web app (their actions carry app_url). */
const APP_KINDS: Record<string, Kind> = { epic: 'epic', story: 'story', doc: 'doc', objective: 'objective', milestone: 'objective' }

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b)

/** `{old, new}` for scalars; lists become `{adds, removes}` as in the real v1 payload. */
export function changesV1(changes: Activity['changes']): Record<string, WebhookChange> | undefined {
  if (!changes) return undefined
  const out: Record<string, WebhookChange> = {}
  for (const [field, change] of Object.entries(changes)) {
    if (Array.isArray(change.old) || Array.isArray(change.new)) {
      const before: unknown[] = Array.isArray(change.old) ? change.old : []
      const after: unknown[] = Array.isArray(change.new) ? change.new : []
      const adds = after.filter((v) => !before.some((o) => same(o, v)))
      const removes = before.filter((v) => !after.some((n) => same(n, v)))
      if (adds.length === 0 && removes.length === 0) continue
      out[field] = { ...(adds.length ? { adds } : {}), ...(removes.length ? { removes } : {}) }
    } else {
      const entry: WebhookChange = {}
      if ('old' in change) entry.old = change.old ?? null
      if ('new' in change) entry.new = change.new ?? null
      out[field] = entry
    }
  }
  return out
}

function idsIn(value: unknown): EntityId[] {
  const values = Array.isArray(value) ? value : [value]
  return values.filter((v): v is EntityId => typeof v === 'number' || (typeof v === 'string' && v !== ''))
}

function referenceTo(ctx: ServiceContext, kind: Kind, entityType: string, id: EntityId): WebhookReference | undefined {
  const record = ctx.col<{ id: EntityId; created_at: string; updated_at: string } & Record<string, unknown>>(kind).get(id)
  if (!record) return undefined
  const spec: { label: string; nameField?: string } = KINDS[kind]
  const name = record[spec.nameField ?? 'name']
  const ref: WebhookReference = { id: record.id, entity_type: entityType, name: typeof name === 'string' ? name : '' }
  if (typeof record.type === 'string') ref.type = record.type
  return ref
}

/**
 * Builds the event for one activity. Reads the names of referenced entities,
 * so it runs right after the write, while they are as the change left them.
 */
export function payloadOf(ctx: ServiceContext, activity: Activity, origin: string | undefined): WebhookPayloadV1 {
  const action: WebhookAction = { id: activity.id, entity_type: activity.entity_type, action: activity.action }
  if (activity.name !== undefined) action.name = activity.name
  const appKind = APP_KINDS[activity.entity_type]
  if (appKind && origin) action.app_url = appUrl(origin, ctx.workspace.slug, appKind, activity.id)
  const changes = changesV1(activity.changes)
  if (changes && Object.keys(changes).length > 0) action.changes = changes

  const references: WebhookReference[] = []
  const add = (ref: WebhookReference | undefined) => {
    if (ref && !references.some((r) => r.entity_type === ref.entity_type && r.id === ref.id)) references.push(ref)
  }
  for (const [field, change] of Object.entries(activity.changes ?? {})) {
    const target = REFERENCED_FIELDS[field]
    if (!target) continue
    for (const id of [...idsIn(change.new), ...idsIn(change.old)]) add(referenceTo(ctx, target.kind, target.entity_type, id))
  }
  for (const ref of activity.references ?? []) add({ ...ref })

  return {
    id: ctx.uuid(),
    changed_at: activity.changed_at,
    primary_id: activity.id,
    member_id: activity.member_id,
    version: 'v1',
    actions: [action],
    references,
  }
}
