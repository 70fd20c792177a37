// The stored epic as v3 EpicSlim/Epic and as v4 Epic. Both are views of the
// same record, so the two generations always agree.
import type { EpicSlimV3, EpicStatsV3, EpicV3 } from '../../../src-shared/api/v3/epics.ts'
import type { LabelV3 } from '../../../src-shared/api/v3/labels.ts'
import type { EpicV4 } from '../../../src-shared/api/v4/epics.ts'
import type { ServiceContext } from '../../context.ts'
import { appUrl, globalId, type Refs } from '../../refs.ts'
import type { EntityId } from '../../store.ts'
import { CommentThreads, inWrittenOrder } from './comments.ts'
import { currentHealthV3, newestFirst } from './health.ts'
import { labels, labelV3 } from '../labels/label.ts'
import { comments, epicStates, healths, relatedDocCount, stories, workflowStates, type EpicRecord, type StateType, type StoryRecord } from './records.ts'
import { v3StateOf } from './workflow.ts'

type StoryStateType = 'backlog' | 'unstarted' | 'started' | 'done'

/** Renders v3 epics for one request; caches what several epics share. */
export class EpicViewsV3 {
  private readonly slug: string
  private readonly labelCache = new Map<number, LabelV3 | null>()
  private readonly stateTypes = new Map<number, StateType>()
  private readonly workflowStateTypes = new Map<EntityId, StoryStateType | undefined>()
  private storiesByEpic?: Map<number, StoryRecord[]>

  constructor(
    private readonly ctx: ServiceContext,
    private readonly origin: string,
  ) {
    this.slug = ctx.workspace.slug
  }

  /** Lists read every story once instead of once per epic. */
  preloadStories(): this {
    const map = new Map<number, StoryRecord[]>()
    for (const s of stories(this.ctx).all()) {
      if (typeof s.epic_id !== 'number') continue
      const list = map.get(s.epic_id) ?? []
      list.push(s)
      map.set(s.epic_id, list)
    }
    this.storiesByEpic = map
    return this
  }

  slim(e: EpicRecord, includeDescription = true): EpicSlimV3 {
    const epicStories = this.storiesByEpic ? (this.storiesByEpic.get(e.id) ?? []) : stories(this.ctx).byParent(e.id)
    const live = epicStories.filter((s) => s.archived !== true)
    const groupCounts = new Map<string, number>()
    for (const s of live) if (s.group_id) groupCounts.set(s.group_id, (groupCounts.get(s.group_id) ?? 0) + 1)
    for (const g of e.group_ids) if (!groupCounts.has(g)) groupCounts.set(g, 0)
    const projectIds = [...new Set(live.map((s) => s.project_id).filter((p): p is number => typeof p === 'number'))]
    const slim: EpicSlimV3 = {
      app_url: appUrl(this.origin, this.slug, 'epic', e.id),
      archived: e.archived,
      associated_groups: [...groupCounts].map(([group_id, associated_stories_count]) => ({ associated_stories_count, group_id })),
      completed: e.completed,
      completed_at: e.completed_at,
      completed_at_override: e.completed_at_override,
      created_at: e.created_at,
      deadline: e.deadline,
      entity_type: 'epic',
      epic_state_id: e.epic_state_id,
      external_id: e.external_id,
      follower_ids: e.follower_ids,
      global_id: globalId(this.ctx, 'epic', e.id),
      group_id: e.group_ids[0] ?? null,
      group_ids: e.group_ids,
      group_mention_ids: e.group_mention_ids,
      id: e.id,
      label_ids: e.label_ids,
      labels: e.label_ids.map((id) => this.label(id)).filter((l): l is LabelV3 => l !== null),
      member_mention_ids: e.member_mention_ids,
      mention_ids: e.member_mention_ids,
      milestone_id: e.objective_ids[0] ?? null,
      name: e.name,
      objective_ids: e.objective_ids,
      owner_ids: e.owner_ids,
      planned_start_date: e.planned_start_date,
      planner_id: e.planner_id,
      planner_name: e.planner_name,
      planner_plugin_id: e.planner_plugin_id,
      planner_url: e.planner_url,
      position: e.position,
      project_ids: projectIds,
      requested_by_id: e.requested_by_id,
      started: e.started,
      started_at: e.started_at,
      started_at_override: e.started_at_override,
      state: v3StateOf(this.stateType(e.epic_state_id)),
      stats: this.stats(e, live),
      stories_without_projects: live.filter((s) => typeof s.project_id !== 'number').length,
      updated_at: e.updated_at,
    }
    if (includeDescription) slim.description = e.description
    return slim
  }

  full(e: EpicRecord): EpicV3 {
    return {
      ...this.slim(e),
      description: e.description,
      comments: CommentThreads.of(this.ctx, this.origin, e.id).top(),
      health: currentHealthV3(this.ctx, e),
    }
  }

  private stateType(id: number): StateType {
    if (!this.stateTypes.has(id)) this.stateTypes.set(id, epicStates(this.ctx).get(id)?.type ?? 'unstarted')
    return this.stateTypes.get(id)!
  }

  private label(id: number): LabelV3 | null {
    if (!this.labelCache.has(id)) {
      const l = labels(this.ctx).get(id)
      this.labelCache.set(id, l ? labelV3(this.ctx, this.origin, l) : null)
    }
    return this.labelCache.get(id)!
  }

  /** A story's progress by its workflow state's type, else by its own flags. */
  private storyType(s: StoryRecord): StoryStateType {
    const stateId = s.workflow_state_id
    if (stateId !== undefined && stateId !== null) {
      if (!this.workflowStateTypes.has(stateId)) {
        const t = workflowStates(this.ctx).get(stateId)?.type
        this.workflowStateTypes.set(stateId, t === 'backlog' || t === 'unstarted' || t === 'started' || t === 'done' ? t : undefined)
      }
      const t = this.workflowStateTypes.get(stateId)
      if (t) return t
    }
    return s.completed ? 'done' : s.started ? 'started' : 'unstarted'
  }

  private stats(e: EpicRecord, live: StoryRecord[]): EpicStatsV3 {
    const stats: EpicStatsV3 = {
      last_story_update: null,
      num_points: 0,
      num_points_backlog: 0,
      num_points_done: 0,
      num_points_started: 0,
      num_points_unstarted: 0,
      num_related_documents: relatedDocCount(this.ctx, e.id),
      num_stories_backlog: 0,
      num_stories_done: 0,
      num_stories_started: 0,
      num_stories_total: live.length,
      num_stories_unestimated: 0,
      num_stories_unstarted: 0,
    }
    for (const s of live) {
      const points = typeof s.estimate === 'number' ? s.estimate : 0
      if (typeof s.estimate !== 'number') stats.num_stories_unestimated++
      stats.num_points += points
      const type = this.storyType(s)
      stats[`num_points_${type}`] += points
      stats[`num_stories_${type}`]++
      if (!stats.last_story_update || s.updated_at > stats.last_story_update) stats.last_story_update = s.updated_at
    }
    return stats
  }
}

/** The v4 Epic: references as slims, related collections as page<slim> wrappers. */
export function epicV4(ctx: ServiceContext, refs: Refs, e: EpicRecord): EpicV4 {
  return epicPageV4(ctx, refs, [e])[0]
}

/**
 * v4 Epics, such as a page of them. What they refer to (comments, health, stories, members,
 * teams, labels, objectives, states) is read once for all of them, one statement a kind,
 * not epic by epic.
 */
export function epicPageV4(ctx: ServiceContext, refs: Refs, list: readonly EpicRecord[]): EpicV4[] {
  const epicIds = list.map((e) => e.id)
  const commentsByEpic = comments(ctx).byParents(epicIds)
  const healthsByEpic = healths(ctx).byParents(epicIds)
  const storiesByEpic = stories(ctx).byParents(epicIds)
  for (const c of commentsByEpic.values()) refs.remember('epic_comment', c)
  for (const h of healthsByEpic.values()) refs.remember('epic_health', h)
  for (const s of storiesByEpic.values()) refs.remember('story', s)
  refs.preload(
    'member',
    list.flatMap((e) => [...e.follower_ids, ...e.owner_ids, ...e.member_mention_ids, e.requested_by_id]),
  )
  refs.preload(
    'group',
    list.flatMap((e) => [...e.group_ids, ...e.group_mention_ids]),
  )
  refs.preload(
    'label',
    list.flatMap((e) => e.label_ids),
  )
  refs.preload(
    'objective',
    list.flatMap((e) => e.objective_ids),
  )
  refs.preload(
    'epic_state',
    list.map((e) => e.epic_state_id),
  )
  return list.map((e) => {
    const uri = refs.uri('epic', e.id)
    const page = (kind: Parameters<Refs['page']>[0], ids: readonly EntityId[], sub: string) => refs.page(kind, ids, `${uri}/${sub}`)
    return {
      entity_type: 'epic',
      app_url: refs.appUrl('epic', e.id),
      archived: e.archived,
      comments: page(
        'epic_comment',
        inWrittenOrder(commentsByEpic.get(String(e.id)) ?? []).map((c) => c.id),
        'comments',
      ),
      completed: e.completed,
      completed_at: e.completed_at,
      completed_at_override: e.completed_at_override,
      created_at: e.created_at,
      deadline: e.deadline,
      description: e.description,
      epic_state: refs.slim('epic_state', e.epic_state_id) ?? { entity_type: 'epic-state:slim', id: e.epic_state_id },
      external_id: e.external_id,
      followers: page('member', e.follower_ids, 'followers'),
      healths: page(
        'epic_health',
        newestFirst(healthsByEpic.get(String(e.id)) ?? []).map((h) => h.id),
        'epic-healths',
      ),
      id: e.id,
      labels: page('label', e.label_ids, 'labels'),
      mentioned_members: page('member', e.member_mention_ids, 'mentioned-members'),
      mentioned_teams: page('group', e.group_mention_ids, 'mentioned-teams'),
      name: e.name,
      objectives: page('objective', e.objective_ids, 'objectives'),
      owners: page('member', e.owner_ids, 'owners'),
      planned_start_date: e.planned_start_date,
      requester: refs.slim('member', e.requested_by_id),
      started: e.started,
      started_at: e.started_at,
      started_at_override: e.started_at_override,
      stories: page(
        'story',
        (storiesByEpic.get(String(e.id)) ?? []).map((s) => s.id),
        'stories',
      ),
      teams: page('group', e.group_ids, 'teams'),
      updated_at: e.updated_at,
      uri,
    }
  })
}
