// The pending-changes panel's rows: each queued write in the user's words
// ("Edit epic “Launch” — name, deadline"), with the entity it is about as the
// user sees it now. A plain async read over Dexie, for liveQuery.
import type { OutpostDb } from '../data/db.ts'
import { recordSubject } from '../data/outbox/index.ts'
import type { CachedEpicState, CachedGroup, CachedLabel, CachedMember, CachedObjective, EntityKind, OutboxRecord } from '../data/types.ts'

export interface PendingChange {
  record: OutboxRecord
  seq: number
  /** "Edit epic", "Comment on", "Upload file". */
  action: string
  /** The entity's name or title as shown now ("Untitled" when it has none). */
  subject: string
  /** The fields an update changes, as labels. */
  fields: string[]
  /** Where to go to see it. */
  hash?: string
}

const KIND_NAME: Record<EntityKind, string> = {
  epic: 'epic',
  comment: 'comment',
  health: 'health',
  doc: 'doc',
  docEpic: 'doc link',
  file: 'file',
  linkedFile: 'linked file',
  category: 'category',
  objective: 'objective',
  group: 'team',
  member: 'member',
  epicState: 'epic state',
  customField: 'custom field',
  label: 'label',
}

export const FIELD_LABEL: Record<string, string> = {
  name: 'Name',
  title: 'Title',
  description: 'Description',
  epic_state_id: 'State',
  deadline: 'Deadline',
  planned_start_date: 'Planned start',
  owner_ids: 'Owners',
  follower_ids: 'Followers',
  group_ids: 'Teams',
  objective_ids: 'Objectives',
  label_ids: 'Labels',
  requested_by_id: 'Requester',
  archived: 'Archived',
  text: 'Text',
  content_markdown: 'Content',
  status: 'Health',
  url: 'Address',
  type: 'Type',
  color: 'Colour',
  state: 'State',
  category_ids: 'Categories',
  content_type: 'Content type',
  size: 'Size',
  thumbnail_url: 'Thumbnail',
}

export function fieldLabel(field: string): string {
  return (
    FIELD_LABEL[field] ??
    field
      .replace(/_ids?$/, '')
      .replace(/_/g, ' ')
      .replace(/^./, (c) => c.toUpperCase())
  )
}

function actionOf(r: OutboxRecord): string {
  const kind = KIND_NAME[r.kind] ?? r.kind
  if (r.kind === 'comment') {
    if (r.op === 'create') return r.params?.parent_id ? 'Reply on' : 'Comment on'
    if (r.op === 'update') return 'Edit comment on'
    return 'Delete comment on'
  }
  if (r.kind === 'health') return 'Set health of'
  if (r.kind === 'docEpic') return r.op === 'delete' ? 'Unlink doc from epic' : 'Link doc to epic'
  if (r.kind === 'file' && r.op === 'create') return 'Upload'
  if (r.op === 'create') return `New ${kind}`
  if (r.op === 'delete') return `Delete ${kind}`
  if (r.op === 'update' && Object.keys(r.payload).length === 1 && 'archived' in r.payload) return r.payload.archived ? `Archive ${kind}` : `Unarchive ${kind}`
  return `Edit ${kind}`
}

function nameOf(row: Record<string, unknown> | undefined): string | undefined {
  const value = row?.name ?? row?.title
  return typeof value === 'string' && value.trim() ? value : undefined
}

function hashOf(r: OutboxRecord, epicId: unknown): string | undefined {
  const id = encodeURIComponent(r.entityId)
  switch (r.kind) {
    case 'epic':
      return r.op === 'delete' ? undefined : `#/epics/${id}`
    case 'comment':
    case 'health':
      return epicId !== undefined && epicId !== null ? `#/epics/${encodeURIComponent(String(epicId))}` : undefined
    case 'doc':
      return r.op === 'delete' ? undefined : `#/docs/${id}`
    case 'docEpic':
      return r.params?.doc_id ? `#/docs/${encodeURIComponent(String(r.params.doc_id))}` : undefined
    case 'file':
      return r.op === 'delete' ? '#/files' : `#/files/${id}`
    case 'linkedFile':
      return '#/files'
    case 'objective':
      return '#/browse/objectives'
    case 'category':
      return '#/browse/categories'
    default:
      return undefined
  }
}

/** Every queued write, oldest first, described. */
export async function pendingChanges(db: OutpostDb): Promise<PendingChange[]> {
  const records = await db.outbox.orderBy('seq').toArray()
  return Promise.all(
    records.map(async (r): Promise<PendingChange> => {
      const subjectRow = (await recordSubject(db, r).catch(() => undefined)) as Record<string, unknown> | undefined
      let subject = nameOf(subjectRow) ?? nameOf(r.payload) ?? (r.staged?.name as string | undefined)
      const epicId = r.params?.epic_id ?? (subjectRow?.epic_id as unknown)
      if ((r.kind === 'comment' || r.kind === 'health' || r.kind === 'docEpic') && epicId !== undefined && epicId !== null) {
        const epic = (await recordSubject(db, { ...r, kind: 'epic', entityId: String(epicId) }).catch(() => undefined)) as Record<string, unknown> | undefined
        subject = nameOf(epic) ?? subject
      }
      if (!subject && r.op === 'delete') subject = `#${r.entityId}`
      return {
        record: r,
        seq: r.seq!,
        action: actionOf(r),
        subject: subject ?? 'Untitled',
        fields: r.op === 'update' ? Object.keys(r.payload).map(fieldLabel) : [],
        hash: hashOf(r, epicId),
      }
    }),
  )
}

/** Names for the ids a conflict or a failed write shows (owners, states, teams...). */
export interface Lookups {
  members: Map<string, string>
  groups: Map<string, string>
  states: Map<string, string>
  objectives: Map<string, string>
  labels: Map<string, string>
}

export async function lookups(db: OutpostDb): Promise<Lookups> {
  const [members, groups, states, objectives, labels] = await Promise.all([
    db.members.toArray() as Promise<CachedMember[]>,
    db.groups.toArray() as Promise<CachedGroup[]>,
    db.epicStates.toArray() as Promise<CachedEpicState[]>,
    db.objectives.toArray() as Promise<CachedObjective[]>,
    db.labels.toArray() as Promise<CachedLabel[]>,
  ])
  const map = <T extends { id: unknown; name: string }>(rows: T[]) => new Map(rows.map((r) => [String(r.id), r.name]))
  return { members: map(members), groups: map(groups), states: map(states), objectives: map(objectives), labels: map(labels) }
}

const LOOKUP_OF: Record<string, keyof Lookups> = {
  owner_ids: 'members',
  follower_ids: 'members',
  requested_by_id: 'members',
  group_ids: 'groups',
  epic_state_id: 'states',
  objective_ids: 'objectives',
  label_ids: 'labels',
}

/** A field's value as words: names for ids, dates as dates, "—" for nothing. */
export function describeValue(field: string, value: unknown, names?: Lookups): string {
  if (value === null || value === undefined || value === '') return '—'
  const table = names && LOOKUP_OF[field] ? names[LOOKUP_OF[field]] : undefined
  const one = (v: unknown) => table?.get(String(v)) ?? String(v)
  if (Array.isArray(value)) return value.length ? value.map(one).join(', ') : '—'
  if (typeof value === 'boolean') return value ? 'Yes' : 'No'
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T|$)/.test(value)) {
    const date = new Date(value)
    if (!Number.isNaN(date.getTime()))
      return value.length <= 10 || /T00:00:00(\.000)?Z$/.test(value)
        ? date.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' })
        : date.toLocaleString()
  }
  if (typeof value === 'object') return JSON.stringify(value)
  return one(value)
}
