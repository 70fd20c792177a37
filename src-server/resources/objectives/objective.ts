// The stored objective (the v3 Objective less its computed fields), which
// epics name by id and which milestones show under their deprecated name.
import type { ObjectiveState } from '../../../src-shared/api/v3/objectives.ts'
import type { ServiceContext } from '../../context.ts'

export interface ObjectiveRecord {
  id: number
  name: string
  description: string
  archived: boolean
  state: ObjectiveState
  started: boolean
  started_at: string | null
  started_at_override: string | null
  completed: boolean
  completed_at: string | null
  completed_at_override: string | null
  category_ids: number[]
  key_result_ids: string[]
  owner_ids: string[]
  position: number
  created_at: string
  updated_at: string
}

export const objectives = (ctx: ServiceContext) => ctx.col<ObjectiveRecord>('objective')
