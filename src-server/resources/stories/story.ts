// The read-only story graph: stored records of stories, workflows, projects,
// iterations, repositories, branches and pull requests, and their v3 and v4 forms.
// Records keep the v3 shape (id fields, not objects) less what is computed on read.
import type { StorySlimV3 } from '../../../src-shared/api/v3/stories.ts'
import { StoryV4, type BranchV4, type PullRequestV4 } from '../../../src-shared/api/v4/stories.ts'
import type { ListQuery, PageOf } from '../../../src-shared/api/common.ts'
import type { ServiceContext } from '../../context.ts'
import { sortBy } from '../../pages.ts'
import type { Refs } from '../../refs.ts'
import { appUrl, globalId } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import { valueText, type FieldValueRef } from '../custom-fields/field.ts'
import { labelsV3 } from '../labels/label.ts'

export type StoryType = 'feature' | 'bug' | 'chore'

export interface StoryLinkRecord {
  id: number
  object_id: number
  subject_id: number
  verb: 'blocks' | 'duplicates' | 'relates to'
  created_at: string
  updated_at: string
}

export interface StoryRecord {
  id: number
  name: string
  description: string
  story_type: StoryType
  archived: boolean
  blocked: boolean
  blocker: boolean
  started: boolean
  started_at: string | null
  started_at_override: string | null
  completed: boolean
  completed_at: string | null
  completed_at_override: string | null
  moved_at: string | null
  deadline: string | null
  estimate: number | null
  external_id: string | null
  external_links: string[]
  epic_id: number | null
  group_id: string | null
  iteration_id: number | null
  previous_iteration_ids: number[]
  project_id: number | null
  workflow_id: number
  workflow_state_id: number
  label_ids: number[]
  owner_ids: string[]
  follower_ids: string[]
  requested_by_id: string
  custom_fields: FieldValueRef[]
  comment_ids: number[]
  task_ids: number[]
  num_tasks_completed: number
  member_mention_ids: string[]
  group_mention_ids: string[]
  mention_ids: string[]
  parent_story_id: number | null
  sub_task_story_ids: number[]
  story_links: StoryLinkRecord[]
  story_template_id: string | null
  unresolved_blocker_comments: number[]
  position: number
  created_at: string
  updated_at: string
}

export type WorkflowStateType = 'backlog' | 'unstarted' | 'started' | 'done'

export interface WorkflowRecord {
  id: number
  name: string
  description: string
  default_state_id: number
  state_ids: number[]
  auto_assign_owner: boolean
  created_at: string
  updated_at: string
}

export interface WorkflowStateRecord {
  id: number
  workflow_id: number
  name: string
  type: WorkflowStateType
  color: string
  description: string
  verb: string | null
  position: number
  created_at: string
  updated_at: string
}

export interface ProjectRecord {
  id: number
  name: string
  description: string
  abbreviation: string
  color: string
  archived: boolean
  workflow_id: number
  follower_ids: string[]
  created_at: string
  updated_at: string
}

export interface IterationRecord {
  id: number
  name: string
  description: string
  status: 'unstarted' | 'started' | 'done'
  start_date: string
  end_date: string
  group_ids: string[]
  label_ids: number[]
  follower_ids: string[]
  created_at: string
  updated_at: string
}

export interface RepositoryRecord {
  id: number
  name: string
  full_name: string
  type: 'github' | 'gitlab' | 'bitbucket'
  url: string
  external_id: string
  created_at: string
  updated_at: string
}

export interface BranchRecord {
  id: number
  name: string
  deleted: boolean
  repository_id: number
  url: string
  story_ids: number[]
  created_at: string
  updated_at: string
}

export interface PullRequestRecord {
  id: number
  title: string
  number: number
  branch_id: number
  target_branch_id: number
  repository_id: number
  closed: boolean
  merged: boolean
  draft: boolean
  external_id: string
  url: string
  story_ids: number[]
  created_at: string
  updated_at: string
}

/** Names a v4 story list's `fields` may carry. */
export const STORY_FIELDS = Object.keys(StoryV4.properties)

export const stories = (ctx: ServiceContext) => ctx.col<StoryRecord>('story')

/** What a story is made of: the given fields over those of a new story nobody has touched (not started, no links, no tasks). */
export function newStory(
  fields: Pick<StoryRecord, 'id' | 'name' | 'workflow_id' | 'workflow_state_id' | 'requested_by_id' | 'position' | 'created_at' | 'updated_at'> &
    Partial<StoryRecord>,
): StoryRecord {
  return {
    description: '',
    story_type: 'feature',
    archived: false,
    blocked: false,
    blocker: false,
    started: false,
    started_at: null,
    started_at_override: null,
    completed: false,
    completed_at: null,
    completed_at_override: null,
    moved_at: null,
    deadline: null,
    estimate: null,
    external_id: null,
    external_links: [],
    epic_id: null,
    group_id: null,
    iteration_id: null,
    previous_iteration_ids: [],
    project_id: null,
    label_ids: [],
    owner_ids: [],
    follower_ids: [],
    custom_fields: [],
    comment_ids: [],
    task_ids: [],
    num_tasks_completed: 0,
    member_mention_ids: [],
    group_mention_ids: [],
    mention_ids: [],
    parent_story_id: null,
    sub_task_story_ids: [],
    story_links: [],
    story_template_id: null,
    unresolved_blocker_comments: [],
    ...fields,
  }
}
export const branches = (ctx: ServiceContext) => ctx.col<BranchRecord>('branch')
export const pullRequests = (ctx: ServiceContext) => ctx.col<PullRequestRecord>('pull_request')
export const workflowStates = (ctx: ServiceContext) => ctx.col<WorkflowStateRecord>('workflow_state')

const seconds = (from: string, to: string) => Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000))

/** The v3 StorySlim; lists leave the description out unless asked for it. */
export function storyV3(ctx: ServiceContext, origin: string, s: StoryRecord, includeDescription = false, links = new StoryLinks(ctx)): StorySlimV3 {
  const { description, custom_fields, story_links, ...rest } = s
  const out: StorySlimV3 = {
    ...rest,
    file_ids: links.files(s.id),
    linked_file_ids: links.linkedFiles(s.id),
    app_url: appUrl(origin, ctx.workspace.slug, 'story', s.id),
    entity_type: 'story',
    global_id: globalId(ctx, 'story', s.id),
    labels: labelsV3(ctx, origin, s.label_ids),
    custom_fields: custom_fields.flatMap((ref) => {
      const value = valueText(ctx, ref)
      return value === undefined ? [] : [{ field_id: ref.field_id, value_id: ref.value_id, value }]
    }),
    // A link whose other story is gone is left out, as v4 leaves it out.
    story_links: story_links.flatMap((l) => {
      const subjectState = l.subject_id === s.id ? s.workflow_state_id : links.workflowStateOf(l.subject_id)
      if (subjectState === undefined) return []
      // As the real service: the link as seen from this story.
      const type = l.subject_id === s.id ? 'subject' : 'object'
      return [{ ...l, entity_type: 'story-link' as const, subject_workflow_state_id: subjectState, type }]
    }),
    stats: { num_related_documents: 0 },
  }
  if (s.completed && s.completed_at) {
    out.lead_time = seconds(s.created_at, s.completed_at)
    if (s.started_at) out.cycle_time = seconds(s.started_at, s.completed_at)
  }
  if (includeDescription) out.description = description
  return out
}

/** Stories in board order, as v3 lists return them. */
export function storiesV3(ctx: ServiceContext, origin: string, list: StoryRecord[], includeDescription = false): StorySlimV3[] {
  const links = new StoryLinks(ctx)
  return byPosition(list).map((s) => storyV3(ctx, origin, s, includeDescription, links))
}

interface StoryOwned {
  id: number
  story_ids: number[]
  created_at: string
  updated_at: string
}

/**
 * What other records say about each story: branches, pull requests, files and
 * linked files keep the story ids (files are attached by their own resource).
 * Each index is built once per rendered list.
 */
export class StoryLinks {
  private branchesOf?: Map<number, number[]>
  private pullRequestsOf?: Map<number, number[]>
  private filesOf?: Map<number, number[]>
  private linkedFilesOf?: Map<number, number[]>
  private workflowStates?: Map<number, number>

  constructor(private readonly ctx: ServiceContext) {}

  /** The workflow state of a story (the subject of a link), or undefined when it is gone. */
  workflowStateOf(storyId: number): number | undefined {
    this.workflowStates ??= new Map(
      stories(this.ctx)
        .all()
        .map((s) => [s.id, s.workflow_state_id]),
    )
    return this.workflowStates.get(storyId)
  }

  files(storyId: number): number[] {
    this.filesOf ??= index(this.ctx.col<StoryOwned>('file').all())
    return this.filesOf.get(storyId) ?? []
  }

  linkedFiles(storyId: number): number[] {
    this.linkedFilesOf ??= index(this.ctx.col<StoryOwned>('linked_file').all())
    return this.linkedFilesOf.get(storyId) ?? []
  }

  branches(storyId: number): number[] {
    this.branchesOf ??= index(branches(this.ctx).all())
    return this.branchesOf.get(storyId) ?? []
  }

  pullRequests(storyId: number): number[] {
    this.pullRequestsOf ??= index(pullRequests(this.ctx).all())
    return this.pullRequestsOf.get(storyId) ?? []
  }
}

function index(records: { id: number; story_ids?: number[] }[]): Map<number, number[]> {
  const map = new Map<number, number[]>()
  for (const r of records) {
    for (const s of r.story_ids ?? []) {
      const list = map.get(s)
      if (list) list.push(r.id)
      else map.set(s, [r.id])
    }
  }
  return map
}

function items<T>(entities: T[], listUrl: string): PageOf<T> {
  return { current_items: entities.length, entities, list_url: listUrl, total_items: entities.length }
}

/** The v4 Story of part 1 §2.2. */
export function storyV4(ctx: ServiceContext, refs: Refs, links: StoryLinks, s: StoryRecord): StoryV4 {
  const uri = refs.uri('story', s.id)
  const sub = (path: string) => `${uri}/${path}`
  const fieldValues = s.custom_fields.flatMap((ref) => {
    const value = valueText(ctx, ref)
    const field = refs.slim('custom_field', ref.field_id)
    return value === undefined || !field ? [] : [{ entity_type: 'custom-field-value:slim' as const, field, id: ref.value_id, value }]
  })
  const storyLinks = s.story_links.flatMap((l) => {
    const object = refs.slim('story', l.object_id)
    const subject = refs.slim('story', l.subject_id)
    return object && subject
      ? [{ entity_type: 'story-link:slim' as const, id: l.id, object, subject, uri: `${refs.api}/story-links/${l.id}`, verb: l.verb }]
      : []
  })
  const template = s.story_template_id ? refs.record('entity_template', s.story_template_id) : null
  return {
    entity_type: 'story',
    app_url: refs.appUrl('story', s.id),
    archived: s.archived,
    blocked: s.blocked,
    blocker: s.blocker,
    branches: refs.page('branch', links.branches(s.id), sub('branches')),
    checklist_items: refs.page('story', [], sub('checklist-items')),
    comments: refs.page('story', [], sub('comments')),
    commits: refs.page('story', [], sub('commits')),
    completed: s.completed,
    completed_at: s.completed_at,
    completed_at_override: s.completed_at_override,
    created_at: s.created_at,
    custom_field_values: items(fieldValues, sub('custom-field-values')),
    deadline: s.deadline,
    description: s.description,
    epic: refs.slim('epic', s.epic_id),
    estimate: s.estimate,
    external_id: s.external_id,
    external_links: items(
      s.external_links.map((value) => ({ entity_type: 'external-link' as const, value })),
      sub('external-links'),
    ),
    files: refs.page('file', links.files(s.id), sub('files')),
    followers: refs.page('member', s.follower_ids, sub('followers')),
    id: s.id,
    iterations: refs.page('iteration', [...(s.iteration_id ? [s.iteration_id] : []), ...s.previous_iteration_ids], sub('iterations')),
    labels: refs.page('label', s.label_ids, sub('labels')),
    linked_files: refs.page('linked_file', links.linkedFiles(s.id), sub('linked-files')),
    mentioned_members: refs.page('member', s.member_mention_ids, sub('mentioned-members')),
    mentioned_teams: refs.page('group', s.group_mention_ids, sub('mentioned-teams')),
    moved_at: s.moved_at,
    name: s.name,
    owners: refs.page('member', s.owner_ids, sub('owners')),
    parent_story: refs.slim('story', s.parent_story_id),
    position: s.position,
    project: refs.slim('project', s.project_id),
    pull_requests: refs.page('pull_request', links.pullRequests(s.id), sub('pull-requests')),
    requester: refs.slim('member', s.requested_by_id),
    started: s.started,
    started_at: s.started_at,
    started_at_override: s.started_at_override,
    story_links: items(storyLinks, sub('story-links')),
    // The official client names this reference story-template:slim.
    story_template: template
      ? { entity_type: 'story-template:slim', id: template.id, name: String(template.name), uri: refs.uri('entity_template', template.id) }
      : null,
    story_type: s.story_type,
    sub_task_stories: refs.page('story', s.sub_task_story_ids, sub('sub-task-stories')),
    team: refs.slim('group', s.group_id),
    updated_at: s.updated_at,
    uri,
    workflow: refs.slim('workflow', s.workflow_id),
    workflow_state: refs.slim('workflow_state', s.workflow_state_id),
  }
}

/** Renders the stories of the given ids (a v4 list page); missing ids are left out. */
export function storiesV4(ctx: ServiceContext, refs: Refs, ids: EntityId[]): StoryV4[] {
  const links = new StoryLinks(ctx)
  const col = stories(ctx)
  return ids
    .map((id) => col.get(id))
    .filter((s): s is StoryRecord => !!s)
    .map((s) => storyV4(ctx, refs, links, s))
}

export function branchV4(ctx: ServiceContext, refs: Refs, b: BranchRecord): BranchV4 {
  const uri = refs.uri('branch', b.id)
  return {
    entity_type: 'branch',
    created_at: b.created_at,
    deleted: b.deleted,
    external_url: b.url,
    id: b.id,
    name: b.name,
    pull_requests: refs.page(
      'pull_request',
      pullRequests(ctx)
        .byParent(b.id)
        .map((p) => p.id),
      `${uri}/pull-requests`,
    ),
    repository: refs.slim('repository', b.repository_id),
    stories: refs.page('story', b.story_ids, `${uri}/stories`),
    updated_at: b.updated_at,
    uri,
  }
}

export function pullRequestV4(refs: Refs, p: PullRequestRecord): PullRequestV4 {
  const uri = refs.uri('pull_request', p.id)
  return {
    entity_type: 'pull-request',
    branch: refs.slim('branch', p.branch_id),
    closed: p.closed,
    created_at: p.created_at,
    draft: p.draft,
    external_id: p.external_id,
    external_url: p.url,
    id: p.id,
    repository: refs.slim('repository', p.repository_id),
    stories: refs.page('story', p.story_ids, `${uri}/stories`),
    target_branch: refs.slim('branch', p.target_branch_id),
    title: p.title,
    updated_at: p.updated_at,
    uri,
  }
}

/** The type of a story's workflow state ('backlog', 'unstarted', 'started', 'done'). */
export function stateTypeOf(ctx: ServiceContext, s: StoryRecord): WorkflowStateType | undefined {
  return workflowStates(ctx).get(s.workflow_state_id)?.type
}

type Order = Pick<ListQuery, 'order_by' | 'order_dir'>

/** Story ids in the order a v4 story list asks for (default: creation order). */
export function orderStories(list: StoryRecord[], q: Order & { filter?: string }): EntityId[] {
  const kept = q.filter === 'include_archived' ? list : list.filter((s) => !s.archived)
  const key = q.order_by as 'updated_at' | 'position' | 'created_at' | undefined
  return (key ? sortBy(kept, (s) => s[key], q.order_dir) : sortBy(kept, (s) => s.id, q.order_dir)).map((s) => s.id)
}

/** Stories in board order (position), as the v3 lists return them. */
export function byPosition(list: StoryRecord[]): StoryRecord[] {
  return sortBy(list, (s) => s.position)
}
