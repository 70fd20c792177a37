// Stories, branches and pull requests for tests: this API has no story writes,
// so tests place the records they need straight into the store.
import type { RunningService } from '../src-server/index.ts'
import type { MemberRecord } from '../src-server/resources/members/member.ts'
import {
  branches,
  newStory,
  pullRequests,
  stories,
  type BranchRecord,
  type PullRequestRecord,
  type StoryRecord,
  type WorkflowRecord,
} from '../src-server/resources/stories/story.ts'

export function insertStory(service: RunningService, fields: Partial<StoryRecord> = {}): StoryRecord {
  const ctx = service.ctx
  const workflow = ctx.col<WorkflowRecord>('workflow').all()[0]
  const member = ctx.col<MemberRecord>('member').all()[0]
  const now = ctx.now()
  const story = newStory({
    id: ctx.nextId(),
    name: 'A test story',
    description: 'What the test needs.',
    workflow_id: workflow.id,
    workflow_state_id: workflow.default_state_id,
    requested_by_id: member.id,
    position: 1,
    created_at: now,
    updated_at: now,
    ...fields,
  })
  return ctx.tx(() => stories(ctx).insert(story))
}

export function insertBranch(service: RunningService, fields: Partial<BranchRecord> = {}): BranchRecord {
  const ctx = service.ctx
  const now = ctx.now()
  const repo = ctx.col('repository').ids()[0] as number
  return ctx.tx(() =>
    branches(ctx).insert({
      id: ctx.nextId(),
      name: 'test/branch',
      deleted: false,
      repository_id: repo,
      url: 'https://github.com/outpost/outpost-app/tree/test',
      story_ids: [],
      created_at: now,
      updated_at: now,
      ...fields,
    }),
  )
}

export function insertPullRequest(service: RunningService, branch: BranchRecord, fields: Partial<PullRequestRecord> = {}): PullRequestRecord {
  const ctx = service.ctx
  const now = ctx.now()
  const id = ctx.nextId()
  return ctx.tx(() =>
    pullRequests(ctx).insert({
      id,
      title: `PR ${id}`,
      number: id,
      branch_id: branch.id,
      target_branch_id: branch.id,
      repository_id: branch.repository_id,
      closed: false,
      merged: false,
      draft: false,
      external_id: `pr-${id}`,
      url: `https://github.com/outpost/outpost-app/pull/${id}`,
      story_ids: [],
      created_at: now,
      updated_at: now,
      ...fields,
    }),
  )
}

/** An ISO timestamp `minutes` after a fixed point, for records that must sort in a known order. */
export const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, minutes)).toISOString()
