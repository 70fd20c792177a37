// The epic workflow: its states (created once per workspace), how a state's
// type sets an epic's started/completed flags, and the deprecated v3 `state`.
import type { EpicStateV3, EpicWorkflowV3 } from '../../../src-shared/api/v3/epics.ts'
import type { EpicStateV4, EpicWorkflowV4 } from '../../../src-shared/api/v4/epics.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { globalId, type Refs } from '../../refs.ts'
import { epicStates, type EpicRecord, type EpicStateRecord, type EpicWorkflowRecord, type StateType } from './records.ts'

const WORKFLOW_META = 'epic_workflow'

/** The default epic workflow: the real service's three states plus two a team commonly adds. */
const DEFAULT_STATES: { name: string; type: StateType; color: string; description: string }[] = [
  { name: 'To Do', type: 'unstarted', color: '#94a3b8', description: 'Not started yet.' },
  { name: 'Planned', type: 'unstarted', color: '#60a5fa', description: 'Scoped and scheduled, not started yet.' },
  { name: 'In Progress', type: 'started', color: '#f59e0b', description: 'Work has started.' },
  { name: 'In Review', type: 'started', color: '#a855f7', description: 'Done by the team, being validated.' },
  { name: 'Done', type: 'done', color: '#22c55e', description: 'Shipped.' },
]

export function initEpicWorkflow(ctx: ServiceContext): void {
  const now = ctx.now()
  const states = DEFAULT_STATES.map((s, i) => epicStates(ctx).insert({ id: ctx.nextId(), ...s, position: i + 1, created_at: now, updated_at: now }))
  const workflow: EpicWorkflowRecord = { id: ctx.nextId(), default_epic_state_id: states[0].id, created_at: now, updated_at: now }
  ctx.setMeta(WORKFLOW_META, JSON.stringify(workflow))
}

export function epicWorkflow(ctx: ServiceContext): EpicWorkflowRecord {
  const raw = ctx.meta(WORKFLOW_META)
  if (!raw) throw new Error('the epic workflow is not initialised')
  return JSON.parse(raw) as EpicWorkflowRecord
}

/** States in workflow order. */
export function orderedStates(ctx: ServiceContext): EpicStateRecord[] {
  return epicStates(ctx)
    .all()
    .sort((a, b) => a.position - b.position || a.id - b.id)
}

/** The state, or 422 naming the field that referred to it. */
export function requireState(ctx: ServiceContext, id: number, field = 'epic_state_id'): EpicStateRecord {
  const state = epicStates(ctx).get(id)
  if (!state) throw ApiError.unprocessable(`Epic state ${id} does not exist.`, { [field]: `no epic state ${id}` })
  return state
}

const TYPE_OF_V3_STATE: Record<string, StateType> = { 'to do': 'unstarted', 'in progress': 'started', done: 'done' }
const V3_STATE_OF_TYPE: Record<StateType, 'to do' | 'in progress' | 'done'> = { unstarted: 'to do', started: 'in progress', done: 'done' }

export function v3StateOf(type: StateType): 'to do' | 'in progress' | 'done' {
  return V3_STATE_OF_TYPE[type] ?? 'to do'
}

/**
 * The state a deprecated v3 `state` names: the current state when it already has
 * that type, else the default state (for "to do") or the first state of the type.
 */
export function stateForV3(ctx: ServiceContext, state: string, currentId?: number): EpicStateRecord {
  const type = TYPE_OF_V3_STATE[state]
  const all = orderedStates(ctx)
  const current = all.find((s) => s.id === currentId)
  if (current && current.type === type) return current
  const fallback = all.find((s) => s.id === epicWorkflow(ctx).default_epic_state_id)
  if (type === 'unstarted' && fallback?.type === 'unstarted') return fallback
  const found = all.find((s) => s.type === type)
  if (!found) throw ApiError.unprocessable(`The epic workflow has no state of type ${type}.`, { state: `no ${type} state` })
  return found
}

/**
 * Moving to a state sets the flags by its type: unstarted clears both; started
 * sets started (keeping the first started_at) and clears completed; done sets
 * both (started_at is filled in when the epic skipped the started states).
 */
export function applyStateType(epic: EpicRecord, type: StateType, now: string): void {
  if (type === 'unstarted') {
    epic.started = false
    epic.started_at = null
    epic.completed = false
    epic.completed_at = null
    return
  }
  epic.started = true
  epic.started_at ??= now
  if (type === 'started') {
    epic.completed = false
    epic.completed_at = null
  } else {
    epic.completed = true
    epic.completed_at ??= now
  }
}

/** What both generations show of a state. */
function epicStateFields(s: EpicStateRecord) {
  return {
    color: s.color,
    created_at: s.created_at,
    description: s.description,
    entity_type: 'epic-state' as const,
    id: s.id,
    name: s.name,
    position: s.position,
    type: s.type,
    updated_at: s.updated_at,
  }
}

export function epicStateV3(ctx: ServiceContext, s: EpicStateRecord): EpicStateV3 {
  return { ...epicStateFields(s), global_id: globalId(ctx, 'epic_state', s.id) }
}

export function epicWorkflowV3(ctx: ServiceContext): EpicWorkflowV3 {
  const w = epicWorkflow(ctx)
  return { ...w, entity_type: 'epic-workflow', epic_states: orderedStates(ctx).map((s) => epicStateV3(ctx, s)) }
}

export function epicStateV4(refs: Refs, s: EpicStateRecord): EpicStateV4 {
  return { ...epicStateFields(s), uri: refs.uri('epic_state', s.id) }
}

export function epicWorkflowV4(ctx: ServiceContext, refs: Refs): EpicWorkflowV4 {
  const w = epicWorkflow(ctx)
  const states = orderedStates(ctx).map((s) => epicStateV4(refs, s))
  const listUrl = `${refs.api}/epic-workflow/states`
  return {
    entity_type: 'epic-workflow',
    created_at: w.created_at,
    default_epic_state: refs.slim('epic_state', w.default_epic_state_id)!,
    epic_states: { current_items: states.length, entities: states, list_url: listUrl, total_items: states.length },
    id: w.id,
    updated_at: w.updated_at,
    uri: `${refs.api}/epic-workflow`,
  }
}
