// Epic health: each POST adds a health update; the newest is the current one
// and the older ones stay in the history, newest first.
import type { HealthV3 } from '../../../src-shared/api/v3/epics.ts'
import type { ServiceContext } from '../../context.ts'
import { sortBy } from '../../pages.ts'
import { healths, type EpicRecord, type HealthRecord } from './records.ts'

/** The health updates of an epic, most recent first. */
export function healthHistory(ctx: ServiceContext, epicId: number): HealthRecord[] {
  return newestFirst(healths(ctx).byParent(epicId))
}

/** An epic's health updates (in row order), most recent first. */
export function newestFirst(list: HealthRecord[]): HealthRecord[] {
  return list.length < 2 ? list : sortBy(list, (h) => h.created_at, 'desc')
}

export function createHealth(ctx: ServiceContext, epicId: number, input: { status: HealthRecord['status']; text?: string }, authorId: string): HealthRecord {
  const now = ctx.now()
  const latest = healthHistory(ctx, epicId)[0]
  // Strictly newer than the previous update, so "current" is never ambiguous.
  const at = latest && Date.parse(latest.created_at) >= Date.parse(now) ? new Date(Date.parse(latest.created_at) + 1).toISOString() : now
  return healths(ctx).insert({
    id: ctx.uuid(),
    epic_id: epicId,
    objective_id: null,
    author_id: authorId,
    status: input.status,
    text: input.text ?? '',
    created_at: at,
    updated_at: at,
  })
}

export function healthV3(h: HealthRecord): HealthV3 {
  // The record's objective_id is always null (an epic's health): left out, as the published Health allows.
  const { objective_id: _none, ...rest } = h
  return { ...rest, entity_type: 'health' }
}

/** The current health; an epic nobody has rated yet has "No Health" (id null). */
export function currentHealthV3(ctx: ServiceContext, epic: EpicRecord): HealthV3 {
  const latest = healthHistory(ctx, epic.id)[0]
  if (latest) return healthV3(latest)
  return {
    created_at: epic.created_at,
    entity_type: 'health',
    epic_id: epic.id,
    id: null,
    status: 'No Health',
    text: '',
    updated_at: epic.created_at,
  }
}
