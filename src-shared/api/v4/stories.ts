// v4 Story, Branch and PullRequest (spec part 1 §2.2) and their list parameters (part 2 §4.2).
import { Type, type Static } from 'typebox'
import { Nullable, PageOf, Slim } from '../common.ts'

export const ExternalLinkV4 = Type.Object({ entity_type: Type.Literal('external-link'), value: Type.String() })

export const CustomFieldValueSlimV4 = Type.Object({
  entity_type: Type.Literal('custom-field-value:slim'),
  field: Slim,
  id: Type.String(),
  value: Type.String(),
})

export const StoryLinkSlimV4 = Type.Object({
  entity_type: Type.Literal('story-link:slim'),
  id: Type.Integer(),
  object: Slim,
  subject: Slim,
  uri: Type.String(),
  verb: Type.String(),
})

export const StoryV4 = Type.Object({
  entity_type: Type.Literal('story'),
  app_url: Type.String(),
  archived: Type.Boolean(),
  blocked: Type.Boolean(),
  blocker: Type.Boolean(),
  branches: PageOf(Slim),
  checklist_items: PageOf(Slim),
  comments: PageOf(Slim),
  commits: PageOf(Slim),
  completed: Type.Boolean(),
  completed_at: Nullable(Type.String()),
  completed_at_override: Nullable(Type.String()),
  created_at: Type.String(),
  custom_field_values: PageOf(CustomFieldValueSlimV4),
  deadline: Nullable(Type.String()),
  description: Type.String(),
  epic: Nullable(Slim),
  estimate: Nullable(Type.Integer()),
  external_id: Nullable(Type.String()),
  external_links: PageOf(ExternalLinkV4),
  files: PageOf(Slim),
  followers: PageOf(Slim),
  id: Type.Integer(),
  iterations: PageOf(Slim),
  labels: PageOf(Slim),
  linked_files: PageOf(Slim),
  mentioned_members: PageOf(Slim),
  mentioned_teams: PageOf(Slim),
  moved_at: Nullable(Type.String()),
  name: Type.String(),
  owners: PageOf(Slim),
  parent_story: Nullable(Slim),
  position: Type.Integer(),
  project: Nullable(Slim),
  pull_requests: PageOf(Slim),
  requester: Nullable(Slim),
  started: Type.Boolean(),
  started_at: Nullable(Type.String()),
  started_at_override: Nullable(Type.String()),
  story_links: PageOf(StoryLinkSlimV4),
  story_template: Nullable(Slim),
  story_type: Type.String(),
  sub_task_stories: PageOf(Slim),
  team: Nullable(Slim),
  updated_at: Type.String(),
  uri: Type.String(),
  workflow: Nullable(Slim),
  workflow_state: Nullable(Slim),
})
export type StoryV4 = Static<typeof StoryV4>

export const BranchV4 = Type.Object({
  entity_type: Type.Literal('branch'),
  created_at: Type.String(),
  deleted: Type.Boolean(),
  external_url: Type.String(),
  id: Type.Integer(),
  name: Type.String(),
  pull_requests: PageOf(Slim),
  repository: Nullable(Slim),
  stories: PageOf(Slim),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type BranchV4 = Static<typeof BranchV4>

export const PullRequestV4 = Type.Object({
  entity_type: Type.Literal('pull-request'),
  branch: Nullable(Slim),
  closed: Type.Boolean(),
  created_at: Type.String(),
  draft: Type.Boolean(),
  external_id: Type.String(),
  external_url: Type.String(),
  id: Type.Integer(),
  repository: Nullable(Slim),
  stories: PageOf(Slim),
  target_branch: Nullable(Slim),
  title: Type.String(),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type PullRequestV4 = Static<typeof PullRequestV4>

export const BRANCH_LIST = { orderBy: ['name', 'updated_at'], filter: ['exclude_deleted', 'include_deleted'] } as const
export const BRANCH_STORY_LIST = { orderBy: ['updated_at', 'position', 'created_at'], filter: ['exclude_archived', 'include_archived'] } as const
export const BRANCH_PULL_REQUEST_LIST = { orderBy: ['updated_at', 'created_at'], filter: ['exclude_closed', 'include_closed'] } as const
