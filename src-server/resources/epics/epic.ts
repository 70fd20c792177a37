// Creating, changing, moving and deleting epics: the rules both API
// generations share. Routes translate their bodies into an EpicInput first.
import type { Activity, ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { findOrCreateLabel, type LabelParams } from '../labels/label.ts'
import { objectives } from '../objectives/objective.ts'
import { comments, epics, groups, healths, members, stories, type EpicRecord } from './records.ts'
import { applyStateType, epicWorkflow, requireState } from './workflow.ts'

/** A change to an epic in record terms (v3 and v4 bodies are translated into it). */
export interface EpicInput {
  name?: string
  description?: string
  archived?: boolean
  epic_state_id?: number
  external_id?: string | null
  requested_by_id?: string
  owner_ids?: string[]
  follower_ids?: string[]
  group_ids?: string[]
  objective_ids?: number[]
  label_ids?: number[]
  deadline?: string | null
  planned_start_date?: string | null
  started_at_override?: string | null
  completed_at_override?: string | null
}

export interface Move {
  after_id?: number
  before_id?: number
}

/** The v3 fields whose old and new values an update activity reports. */
const TRACKED: (keyof EpicRecord)[] = [
  'name',
  'description',
  'archived',
  'epic_state_id',
  'external_id',
  'requested_by_id',
  'owner_ids',
  'follower_ids',
  'group_ids',
  'objective_ids',
  'label_ids',
  'deadline',
  'planned_start_date',
  'started',
  'started_at',
  'started_at_override',
  'completed',
  'completed_at',
  'completed_at_override',
  'position',
  'planner_id',
  'planner_name',
  'planner_plugin_id',
  'planner_url',
]

export type Changes = NonNullable<Activity['changes']>

const POSITION_STEP = 1024

export const unique = <T>(items: readonly T[]): T[] => [...new Set(items)]

// ---- references to other resources: unknown ids are 422 naming the field ----

function requireAll<T extends string | number>(ids: readonly T[] | undefined, field: string, what: string, exists: (id: T) => boolean): void {
  if (!ids) return
  const missing = unique(ids).filter((id) => !exists(id))
  if (missing.length > 0) {
    throw ApiError.unprocessable(`No ${what} ${missing.join(', ')} in this workspace.`, { [field]: `no ${what} ${missing.join(', ')}` })
  }
}

export function requireMembers(ctx: ServiceContext, ids: readonly string[] | undefined, field: string): void {
  requireAll(ids, field, 'member', (id) => members(ctx).has(id))
}
export function requireGroups(ctx: ServiceContext, ids: readonly string[] | undefined, field: string): void {
  requireAll(ids, field, 'team', (id) => groups(ctx).has(id))
}
export function requireObjectives(ctx: ServiceContext, ids: readonly number[] | undefined, field: string): void {
  requireAll(ids, field, 'objective', (id) => objectives(ctx).has(id))
}

// ---- mentions: @mention_name of members and teams in a text ----

export class Mentions {
  private readonly memberByName = new Map<string, string>()
  private readonly groupByName = new Map<string, string>()

  constructor(ctx: ServiceContext) {
    for (const m of members(ctx).all()) this.memberByName.set(m.profile.mention_name.toLowerCase(), m.id)
    for (const g of groups(ctx).all()) if (g.mention_name) this.groupByName.set(g.mention_name.toLowerCase(), g.id)
  }

  in(text: string): { member_mention_ids: string[]; group_mention_ids: string[] } {
    const memberIds: string[] = []
    const groupIds: string[] = []
    if (text.includes('@')) {
      for (const match of text.matchAll(/(?<![\w@])@([a-z0-9][\w.-]*)/gi)) {
        const name = match[1].replace(/[.-]+$/, '').toLowerCase()
        const m = this.memberByName.get(name)
        const g = this.groupByName.get(name)
        if (m && !memberIds.includes(m)) memberIds.push(m)
        else if (g && !groupIds.includes(g)) groupIds.push(g)
      }
    }
    return { member_mention_ids: memberIds, group_mention_ids: groupIds }
  }
}

// ---- labels named by v3 bodies ----

/** Label ids for the names given; a name no label has yet becomes a new label. */
export function ensureLabels(ctx: ServiceContext, params: readonly LabelParams[]): number[] {
  return unique(params.map((p) => findOrCreateLabel(ctx, p).id))
}

// ---- time and position ----

/** The last instant an ISO 8601 date-time writes with a four-digit year; one later is `+010000-…`, no date-time. */
const LAST_DATE_TIME = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * Now, but always after `previous`: every change moves updated_at forward, except
 * past an imported 9999-12-31T23:59:59.999Z, where it stays (still a date-time).
 */
export function laterThan(previous: string, now: string): string {
  const p = Date.parse(previous)
  return Date.parse(now) > p ? now : new Date(Math.min(p + 1, LAST_DATE_TIME)).toISOString()
}

function lastPosition(ctx: ServiceContext): number {
  const row = ctx.db.prepare<[], { p: number | null }>("SELECT max(position) AS p FROM entities WHERE kind = 'epic'").get()
  return row?.p ?? 0
}

/** The position for an epic placed next to another one; renumbers when there is no room. */
function positionFor(ctx: ServiceContext, epic: EpicRecord, move: Move): number {
  if (move.after_id !== undefined && move.before_id !== undefined) {
    throw ApiError.unprocessable('Send after_id or before_id, not both.', { after_id: 'cannot be combined with before_id' })
  }
  const field = move.after_id !== undefined ? 'after_id' : 'before_id'
  const targetId = (move.after_id ?? move.before_id)!
  if (targetId === epic.id) throw ApiError.unprocessable(`An epic cannot move relative to itself.`, { [field]: 'is the epic itself' })
  if (!epics(ctx).has(targetId)) throw ApiError.unprocessable(`Epic ${targetId} does not exist.`, { [field]: `no epic ${targetId}` })
  const order = ctx.db
    .prepare<[], { id: string; position: number }>("SELECT id, position FROM entities WHERE kind = 'epic' ORDER BY position, seq")
    .all()
    .map((r) => ({ id: Number(r.id), position: r.position }))
    .filter((r) => r.id !== epic.id)
  const at = order.findIndex((r) => r.id === targetId)
  const insertAt = field === 'after_id' ? at + 1 : at
  const prev = order[insertAt - 1]?.position
  const next = order[insertAt]?.position
  if (prev === undefined) return next - POSITION_STEP
  if (next === undefined) return prev + POSITION_STEP
  if (next - prev >= 2) return Math.floor((prev + next) / 2)
  // No room between the neighbours: spread every epic out again, keeping order.
  // Other epics' positions are bookkeeping, so their updated_at stays as it was.
  order.splice(insertAt, 0, { id: epic.id, position: 0 })
  let mine = 0
  order.forEach((r, i) => {
    const position = (i + 1) * POSITION_STEP
    if (r.id === epic.id) mine = position
    else if (r.position !== position) {
      const other = epics(ctx).get(r.id)
      if (other) epics(ctx).update({ ...other, position })
    }
  })
  return mine
}

// ---- create, update, delete ----

export function createEpic(
  ctx: ServiceContext,
  input: EpicInput & { name: string },
  actorId: string,
  mentions: Mentions,
  times: { created_at?: string; updated_at?: string } = {},
): EpicRecord {
  const now = ctx.now()
  const state = requireState(ctx, input.epic_state_id ?? epicWorkflow(ctx).default_epic_state_id)
  const description = input.description ?? ''
  const createdAt = times.created_at ?? now
  const epic: EpicRecord = {
    id: ctx.nextId(),
    name: input.name,
    description,
    archived: input.archived ?? false,
    epic_state_id: state.id,
    external_id: input.external_id ?? null,
    requested_by_id: input.requested_by_id ?? actorId,
    owner_ids: unique(input.owner_ids ?? []),
    follower_ids: unique(input.follower_ids ?? []),
    group_ids: unique(input.group_ids ?? []),
    objective_ids: unique(input.objective_ids ?? []),
    label_ids: unique(input.label_ids ?? []),
    ...mentions.in(description),
    deadline: input.deadline ?? null,
    planned_start_date: input.planned_start_date ?? null,
    started: false,
    started_at: null,
    started_at_override: input.started_at_override ?? null,
    completed: false,
    completed_at: null,
    completed_at_override: input.completed_at_override ?? null,
    position: lastPosition(ctx) + POSITION_STEP,
    planner_id: null,
    planner_name: null,
    planner_plugin_id: null,
    planner_url: null,
    created_at: createdAt,
    updated_at: times.updated_at ?? createdAt,
  }
  applyStateType(epic, state.type, createdAt)
  return epics(ctx).insert(epic)
}

export interface Updated {
  epic: EpicRecord
  /** field -> {old, new}; empty when the update changed nothing. */
  changes: Changes
}

export function updateEpic(ctx: ServiceContext, id: number, input: EpicInput, mentions: Mentions | undefined, move: Move = {}): Updated {
  const before = epics(ctx).require(id)
  const now = ctx.now()
  const next: EpicRecord = structuredClone(before)
  const set = <K extends keyof EpicInput & keyof EpicRecord>(key: K) => {
    if (input[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = input[key]
  }
  for (const key of [
    'name',
    'archived',
    'external_id',
    'requested_by_id',
    'deadline',
    'planned_start_date',
    'started_at_override',
    'completed_at_override',
  ] as const)
    set(key)
  for (const key of ['owner_ids', 'follower_ids', 'group_ids', 'objective_ids', 'label_ids'] as const) {
    const list = input[key]
    if (list !== undefined) (next as unknown as Record<string, unknown>)[key] = unique<string | number>(list)
  }
  if (input.description !== undefined && input.description !== before.description) {
    next.description = input.description
    Object.assign(next, (mentions ?? new Mentions(ctx)).in(input.description))
  }
  if (input.epic_state_id !== undefined && input.epic_state_id !== before.epic_state_id) {
    const state = requireState(ctx, input.epic_state_id)
    next.epic_state_id = state.id
    applyStateType(next, state.type, now)
  }
  if (move.after_id !== undefined || move.before_id !== undefined) next.position = positionFor(ctx, before, move)

  const changes = diff(before, next)
  if (Object.keys(changes).length === 0) return { epic: before, changes }
  next.updated_at = laterThan(before.updated_at, now)
  return { epic: epics(ctx).update(next), changes }
}

/** Marks an epic as changed (a comment or health was written on it). */
export function touchEpic(ctx: ServiceContext, epic: EpicRecord): EpicRecord {
  return epics(ctx).update({ ...epic, updated_at: laterThan(epic.updated_at, ctx.now()) })
}

export function unlinkPlanner(ctx: ServiceContext, id: number): Updated {
  const before = epics(ctx).require(id)
  const next = { ...before, planner_id: null, planner_name: null, planner_plugin_id: null, planner_url: null }
  const changes = diff(before, next)
  if (Object.keys(changes).length === 0) return { epic: before, changes }
  return { epic: epics(ctx).update({ ...next, updated_at: laterThan(before.updated_at, ctx.now()) }), changes }
}

/**
 * Deletes the epic with its comments and health history. Its stories stay and
 * lose their epic; doc links to it go.
 */
export function deleteEpic(ctx: ServiceContext, id: number): EpicRecord {
  const epic = epics(ctx).require(id)
  for (const c of comments(ctx).byParent(id)) comments(ctx).delete(c.id)
  for (const h of healths(ctx).byParent(id)) healths(ctx).delete(h.id)
  const now = ctx.now()
  for (const s of stories(ctx).byParent(id)) stories(ctx).update({ ...s, epic_id: null, updated_at: laterThan(s.updated_at, now) })
  const docs = ctx.relation('doc_epic')
  docs.forgetA(id)
  docs.forgetB(id)
  epics(ctx).delete(id)
  return epic
}

function diff(before: EpicRecord, after: EpicRecord): Changes {
  const changes: Changes = {}
  for (const key of TRACKED) {
    const old = before[key]
    const now = after[key]
    if (JSON.stringify(old) !== JSON.stringify(now)) changes[key] = { old, new: now }
  }
  return changes
}

// ---- activity for webhooks ----

export function emitCreated(ctx: ServiceContext, epic: EpicRecord, memberId: string): void {
  ctx.emit({ entity_type: 'epic', action: 'create', id: epic.id, name: epic.name, member_id: memberId })
}

/** An update; a change of epic_state_id in it is a move between states. */
export function emitUpdated(ctx: ServiceContext, updated: Updated, memberId: string): void {
  if (Object.keys(updated.changes).length === 0) return
  ctx.emit({ entity_type: 'epic', action: 'update', id: updated.epic.id, name: updated.epic.name, member_id: memberId, changes: updated.changes })
}

export function emitDeleted(ctx: ServiceContext, epic: EpicRecord, memberId: string): void {
  ctx.emit({ entity_type: 'epic', action: 'delete', id: epic.id, name: epic.name, member_id: memberId })
}
