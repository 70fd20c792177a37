// What the epics resource stores: epics, their comments, health updates and
// the epic workflow's states, each in the v3 shape less what is computed.
import type { ServiceContext } from '../../context.ts'
import type { GroupRecord } from '../groups/index.ts'
import type { MemberRecord } from '../members/member.ts'
import type { StoryRecord, WorkflowStateRecord } from '../stories/story.ts'

export type { StoryRecord }

export type StateType = 'unstarted' | 'started' | 'done'

export interface EpicRecord {
  id: number
  name: string
  description: string
  archived: boolean
  epic_state_id: number
  external_id: string | null
  requested_by_id: string
  owner_ids: string[]
  follower_ids: string[]
  group_ids: string[]
  objective_ids: number[]
  label_ids: number[]
  /** Mentions found in the description when it was last written. */
  member_mention_ids: string[]
  group_mention_ids: string[]
  deadline: string | null
  planned_start_date: string | null
  started: boolean
  started_at: string | null
  started_at_override: string | null
  completed: boolean
  completed_at: string | null
  completed_at_override: string | null
  /** Sort key of the epic list; after_id/before_id moves change it. */
  position: number
  planner_id: string | null
  planner_name: string | null
  planner_plugin_id: string | null
  planner_url: string | null
  created_at: string
  updated_at: string
}

export interface CommentRecord {
  id: number
  epic_id: number
  /** The comment this one replies to; null for a top-level comment. */
  parent_id: number | null
  author_id: string
  text: string
  external_id: string | null
  /** A deleted comment that still has replies stays as a placeholder. */
  deleted: boolean
  member_mention_ids: string[]
  group_mention_ids: string[]
  created_at: string
  updated_at: string
}

export interface HealthRecord {
  id: string
  epic_id: number
  objective_id: null
  author_id: string
  status: 'At Risk' | 'No Health' | 'Off Track' | 'On Track'
  text: string
  created_at: string
  updated_at: string
}

export interface EpicStateRecord {
  id: number
  name: string
  type: StateType
  color: string | null
  description: string
  position: number
  created_at: string
  updated_at: string
}

/** The one epic workflow of the workspace, kept in meta (it has no kind of its own). */
export interface EpicWorkflowRecord {
  id: number
  default_epic_state_id: number
  created_at: string
  updated_at: string
}

export const epics = (ctx: ServiceContext) => ctx.col<EpicRecord>('epic')
export const comments = (ctx: ServiceContext) => ctx.col<CommentRecord>('epic_comment')
export const healths = (ctx: ServiceContext) => ctx.col<HealthRecord>('epic_health')
export const epicStates = (ctx: ServiceContext) => ctx.col<EpicStateRecord>('epic_state')
export const members = (ctx: ServiceContext) => ctx.col<MemberRecord>('member')
export const groups = (ctx: ServiceContext) => ctx.col<GroupRecord>('group')
export const stories = (ctx: ServiceContext) => ctx.col<StoryRecord>('story')
export const workflowStates = (ctx: ServiceContext) => ctx.col<WorkflowStateRecord>('workflow_state')

/** Doc-epic links; counted in both directions so either orientation of the relation works. */
export function relatedDocCount(ctx: ServiceContext, epicId: number): number {
  const rel = ctx.relation('doc_epic')
  return rel.asOf(epicId).length + rel.bsOf(epicId).length
}
