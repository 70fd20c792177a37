// The story graph of a seeded workspace: the default workflow (every workspace
// has one), then projects, iterations, repositories, stories linked to the
// seeded epics, labels, teams and custom fields, and branches with pull requests.
import type { ServiceContext } from '../../context.ts'
import { SeedRandom, type SeedContext } from '../../seed/plan.ts'
import type { EpicRecord, EpicStateRecord } from '../epics/records.ts'
import type { CustomFieldRecord } from '../custom-fields/field.ts'
import type { MemberRecord } from '../members/member.ts'
import {
  branches,
  newStory,
  pullRequests,
  stories,
  type IterationRecord,
  type ProjectRecord,
  type RepositoryRecord,
  type StoryLinkRecord,
  type StoryRecord,
  type StoryType,
  type WorkflowRecord,
  type WorkflowStateRecord,
  type WorkflowStateType,
} from './story.ts'

const WORKFLOW_STATES: [string, WorkflowStateType, string, string | null][] = [
  ['Backlog', 'backlog', '#a0a0a0', null],
  ['Ready for Development', 'unstarted', '#6a8dd4', null],
  ['In Development', 'started', '#e0a10d', 'start'],
  ['In Review', 'started', '#d46ad4', 'review'],
  ['Ready for Deploy', 'started', '#2b9cb0', null],
  ['Completed', 'done', '#43a047', 'finish'],
]

/** Every workspace has a default story workflow (whoami names it). */
export function createDefaultWorkflow(ctx: ServiceContext): WorkflowRecord {
  const now = ctx.now()
  const workflowId = ctx.nextId()
  const states = WORKFLOW_STATES.map(([name, type, color, verb], position): WorkflowStateRecord => ({
    id: ctx.nextId(),
    workflow_id: workflowId,
    name,
    type,
    color,
    description: '',
    verb,
    position,
    created_at: now,
    updated_at: now,
  }))
  for (const s of states) ctx.col<WorkflowStateRecord>('workflow_state').insert(s)
  return ctx.col<WorkflowRecord>('workflow').insert({
    id: workflowId,
    name: 'Engineering',
    description: 'The default workflow for stories.',
    default_state_id: states[0].id,
    state_ids: states.map((s) => s.id),
    auto_assign_owner: false,
    created_at: now,
    updated_at: now,
  })
}

const PROJECTS: [string, string, string][] = [
  ['Desktop App', 'APP', '#1e88e5'],
  ['Sync Service', 'SYNC', '#8e24aa'],
  ['Website', 'WEB', '#f4511e'],
]

const REPOSITORIES = ['outpost-app', 'outpost-sync']

const DEMO_STORIES: [string, StoryType][] = [
  ['Show queued writes in the status bar', 'feature'],
  ['Retry uploads after the laptop wakes from sleep', 'feature'],
  ['Crash when a doc title contains an emoji', 'bug'],
  ['Sign in with a token from the clipboard', 'feature'],
  ['Outbox replays a delete twice after a dropped answer', 'bug'],
  ['Upgrade the SQLite driver', 'chore'],
  ['Drag several files onto an epic at once', 'feature'],
  ['Epic list flickers while syncing', 'bug'],
  ['Keyboard shortcut to archive an epic', 'feature'],
  ['Explain read-only tokens on the sign-in screen', 'feature'],
  ['Rate limiter waits too long after a 429', 'bug'],
  ['Move CI to the new runners', 'chore'],
  ['Search docs by title while offline', 'feature'],
  ['Show the health history of an epic', 'feature'],
  ['Threaded comments lose their order after sync', 'bug'],
  ['Package the Linux build as an AppImage', 'chore'],
  ['Preview markdown docs side by side', 'feature'],
  ['Token stays in the keychain after sign-out', 'bug'],
  ['Add a proxy setting for hotel networks', 'feature'],
  ['Rotate the webhook signing secret', 'chore'],
  ['Filter epics by team', 'feature'],
  ['Dark mode for the doc editor', 'feature'],
  ['File upload stalls at 99 %', 'bug'],
  ['Document the offline guarantees', 'chore'],
  ['Show who changed an epic last', 'feature'],
  ['Deadline picker ignores the time zone', 'bug'],
  ['Bulk-archive finished epics', 'feature'],
  ['Remove the legacy v2 client', 'chore'],
  ['Open linked files in the browser', 'feature'],
  ['Objective progress bar counts archived epics', 'bug'],
  ['Cache team avatars', 'feature'],
  ['Collect crash reports without tokens in them', 'chore'],
  ['Resume a sync interrupted mid-page', 'feature'],
  ['Category colours are wrong on Windows', 'bug'],
  ['Warn before discarding a failed write', 'feature'],
  ['Benchmark the first sync of a large workspace', 'chore'],
]

/**
 * The demo's epics each get a few stories of their own (beyond the stories above, spread at
 * random), so an opened epic shows its work and the list its progress. Names are about the
 * epic's own subject: "<step> for <epic name>".
 */
const DEMO_EPIC_STEPS: [string, StoryType][] = [
  ['Sketch the screens', 'feature'],
  ['Write the acceptance tests', 'chore'],
  ['Build the first version', 'feature'],
  ['Handle the offline case', 'feature'],
  ['Fix the edge cases found in review', 'bug'],
  ['Document the behaviour', 'chore'],
]

const VERBS = ['Improve', 'Fix', 'Add', 'Refactor', 'Speed up', 'Test', 'Document', 'Simplify']
const OBJECTS = [
  'epic sync',
  'doc export',
  'file upload',
  'search index',
  'comment threads',
  'team settings',
  'token storage',
  'the outbox',
  'webhook retries',
  'the status bar',
]

const DEMO_DESCRIPTION = (name: string) => `${name}.\n\nAcceptance criteria:\n- works offline and online\n- nothing is lost or sent twice\n- covered by a test`

const slugify = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)

function between(random: SeedRandom, from: number, to: number): number {
  return from + Math.floor(random.next() * Math.max(0, to - from))
}

export function seedStoryGraph({ ctx, plan, random }: SeedContext): void {
  const now = ctx.clock()
  const iso = (ms: number) => new Date(ms).toISOString()
  const workflow = ctx.col<WorkflowRecord>('workflow').all()[0] ?? createDefaultWorkflow(ctx)
  const states = workflow.state_ids.map((id) => ctx.col<WorkflowStateRecord>('workflow_state').require(id))
  const people = ctx
    .col<MemberRecord>('member')
    .all()
    .filter((m) => m.role !== 'observer' && !m.disabled)
  const teamIds = ctx.col('group').ids({ archived: false })
  const labelIds = ctx.col('label').ids({ archived: false }) as number[]
  const epicIds = ctx.col('epic').ids() as number[]
  const fields = ctx
    .col<CustomFieldRecord>('custom_field')
    .all()
    .filter((f) => f.enabled)
  const templateIds = ctx.col('entity_template').ids() as string[]

  const projects = PROJECTS.map(([name, abbreviation, color]) =>
    ctx.col<ProjectRecord>('project').insert({
      id: ctx.nextId(),
      name,
      description: `Work on the ${name.toLowerCase()}.`,
      abbreviation,
      color,
      archived: false,
      workflow_id: workflow.id,
      follower_ids: random.some(people, 2).map((p) => p.id),
      created_at: iso(now - 200 * 86_400_000),
      updated_at: iso(now - 200 * 86_400_000),
    }),
  )

  const sprintStart = now - 30 * 86_400_000
  const iterations = (['done', 'started', 'unstarted'] as const).map((status, i) => {
    const start = sprintStart + i * 14 * 86_400_000
    return ctx.col<IterationRecord>('iteration').insert({
      id: ctx.nextId(),
      name: `Sprint ${41 + i}`,
      description: '',
      status,
      start_date: iso(start).slice(0, 10),
      end_date: iso(start + 13 * 86_400_000).slice(0, 10),
      group_ids: teamIds.slice(0, 2) as string[],
      label_ids: [],
      follower_ids: [],
      created_at: iso(sprintStart - 86_400_000),
      updated_at: iso(sprintStart - 86_400_000),
    })
  })

  const repositories = REPOSITORIES.map((name) =>
    ctx.col<RepositoryRecord>('repository').insert({
      id: ctx.nextId(),
      name,
      full_name: `outpost/${name}`,
      type: 'github',
      url: `https://github.com/outpost/${name}`,
      external_id: String(random.int(10_000_000, 99_999_999)),
      created_at: iso(now - 365 * 86_400_000),
      updated_at: iso(now - 365 * 86_400_000),
    }),
  )
  const mainBranches = repositories.map((r) =>
    branches(ctx).insert({
      id: ctx.nextId(),
      name: 'main',
      deleted: false,
      repository_id: r.id,
      url: `${r.url}/tree/main`,
      story_ids: [],
      created_at: r.created_at,
      updated_at: r.updated_at,
    }),
  )

  const count = plan.demo ? DEMO_STORIES.length : Math.ceil(plan.epics / 5)
  const made: StoryRecord[] = []
  for (let i = 0; i < count; i++) {
    const [name, storyType] = plan.demo ? DEMO_STORIES[i] : [`${random.pick(VERBS)} ${random.pick(OBJECTS)}`, random.pick(['feature', 'bug', 'chore'] as const)]
    const state = random.pick(states)
    const created = now - Math.floor(random.next() * 120 * 86_400_000)
    const started = state.type === 'started' || state.type === 'done' ? between(random, created, now) : null
    const completed = state.type === 'done' && started !== null ? between(random, started, now) : null
    const moved = completed ?? started ?? null
    const updated = Math.max(created, moved ?? created, between(random, created, now))
    const owner = random.pick(people)
    const epicId = epicIds.length > 0 && (plan.demo ? random.chance(0.75) : true) ? random.pick(epicIds) : null
    const iteration = state.type === 'backlog' ? null : random.pick(iterations)
    const story = newStory({
      id: ctx.nextId(),
      name,
      description: plan.demo ? DEMO_DESCRIPTION(name) : '',
      story_type: storyType,
      archived: state.type === 'done' && random.chance(0.15),
      started: started !== null,
      started_at: started === null ? null : iso(started),
      completed: completed !== null,
      completed_at: completed === null ? null : iso(completed),
      moved_at: moved === null ? null : iso(moved),
      deadline: random.chance(0.2) ? iso(now + random.int(1, 40) * 86_400_000) : null,
      estimate: random.pick([null, 1, 2, 3, 5, 8]),
      external_links: random.chance(0.25) ? [`https://github.com/outpost/outpost-app/issues/${random.int(100, 999)}`] : [],
      epic_id: epicId,
      group_id: teamIds.length > 0 && random.chance(0.85) ? String(random.pick(teamIds)) : null,
      iteration_id: iteration?.id ?? null,
      project_id: random.pick(projects).id,
      workflow_id: workflow.id,
      workflow_state_id: state.id,
      label_ids: random.some(labelIds, random.int(0, 2)),
      owner_ids: [owner.id],
      follower_ids: [
        owner.id,
        ...random
          .some(
            people.filter((p) => p.id !== owner.id),
            random.int(0, 2),
          )
          .map((p) => p.id),
      ],
      requested_by_id: random.pick(people).id,
      custom_fields: fields.flatMap((f) => {
        const enabled = f.values.filter((v) => v.enabled)
        return enabled.length > 0 && random.chance(0.5) ? [{ field_id: f.id, value_id: random.pick(enabled).id }] : []
      }),
      story_template_id: templateIds.length > 0 && random.chance(0.2) ? random.pick(templateIds) : null,
      position: (i + 1) * 1024,
      created_at: iso(created),
      updated_at: iso(updated),
    })
    made.push(story)
  }

  if (plan.demo && made.length >= 15) {
    // One support ticket reported twice, and a few links between stories.
    const ticket = 'https://support.example.com/tickets/4821'
    made[2].external_links.push(ticket)
    made[4].external_links.push(ticket)
    linkStories(ctx, made[4], made[1], 'blocks')
    linkStories(ctx, made[5], made[0], 'relates to')
    linkStories(ctx, made[7], made[14], 'duplicates')
  }
  for (const s of made) stories(ctx).insert(s)

  // Branches for started work; pull requests for most of them.
  let prNumber = 100
  for (const s of made) {
    if (!s.started || !random.chance(plan.demo ? 0.6 : 0.3)) continue
    const repoIndex = random.int(0, repositories.length - 1)
    const repo = repositories[repoIndex]
    const owner = people.find((p) => p.id === s.owner_ids[0])
    const name = `${owner?.profile.mention_name ?? 'dev'}/sc-${s.id}/${slugify(s.name)}`
    const startedAt = Date.parse(s.started_at!)
    const branchUpdated = s.completed_at ? Date.parse(s.completed_at) : between(random, startedAt, now)
    const branch = branches(ctx).insert({
      id: ctx.nextId(),
      name,
      deleted: s.completed && random.chance(0.5),
      repository_id: repo.id,
      url: `${repo.url}/tree/${name}`,
      story_ids: [s.id],
      created_at: iso(startedAt),
      updated_at: iso(branchUpdated),
    })
    const prs = random.chance(0.8) ? (random.chance(0.2) ? 2 : 1) : 0
    for (let k = 0; k < prs; k++) {
      const first = prs === 2 && k === 0
      const closed = first || s.completed
      const number = prNumber++
      const created = between(random, startedAt, branchUpdated + 1)
      pullRequests(ctx).insert({
        id: ctx.nextId(),
        title: first ? `WIP: ${s.name}` : s.name,
        number,
        branch_id: branch.id,
        target_branch_id: mainBranches[repoIndex].id,
        repository_id: repo.id,
        closed,
        merged: closed && !first,
        draft: !closed && random.chance(0.3),
        external_id: `${repo.external_id}-${number}`,
        url: `${repo.url}/pull/${number}`,
        story_ids: [s.id],
        created_at: iso(created),
        updated_at: iso(Math.max(created, branchUpdated)),
      })
    }
  }

  // Last, so the branches above and everything seeded after stories draw what they drew before.
  if (plan.demo) for (const s of demoEpicStories(ctx, epicIds, states, people, projects, iterations, made.length)) stories(ctx).insert(s)
}

/**
 * 2 to 5 stories for each demo epic, their states following the epic's (a done epic's are done,
 * a to-do epic's not started). Drawn from a random stream of their own, so that nothing seeded
 * after them (branches, docs, files) changes.
 */
function demoEpicStories(
  ctx: ServiceContext,
  epicIds: number[],
  states: WorkflowStateRecord[],
  people: MemberRecord[],
  projects: ProjectRecord[],
  iterations: IterationRecord[],
  already: number,
): StoryRecord[] {
  const random = new SeedRandom(0x5703)
  const now = ctx.clock()
  const iso = (ms: number) => new Date(ms).toISOString()
  const ofType = (types: WorkflowStateType[]) => states.filter((s) => types.includes(s.type))
  const out: StoryRecord[] = []
  for (const epicId of epicIds) {
    const epic = ctx.col<EpicRecord>('epic').require(epicId)
    const epicState = ctx.col<EpicStateRecord>('epic_state').get(epic.epic_state_id)?.type
    const count = random.int(2, 5)
    for (let k = 0; k < count; k++) {
      const [step, storyType] = DEMO_EPIC_STEPS[k % DEMO_EPIC_STEPS.length]
      const pool =
        epicState === 'done'
          ? ofType(['done'])
          : epicState === 'unstarted'
            ? ofType(['backlog', 'unstarted'])
            : k === 0
              ? ofType(['done'])
              : random.chance(0.5)
                ? ofType(['started'])
                : ofType(['unstarted', 'done'])
      const state = random.pick(pool)
      const created = now - random.int(20, 90) * 86_400_000
      const started = state.type === 'started' || state.type === 'done' ? between(random, created, now - 86_400_000) : null
      const completed = state.type === 'done' && started !== null ? between(random, started, now) : null
      const updated = Math.max(created, completed ?? started ?? created)
      const owner = random.pick(people)
      const name = `${step} for ${epic.name.charAt(0).toLowerCase()}${epic.name.slice(1)}`
      out.push(
        newStory({
          id: ctx.nextId(),
          name,
          description: DEMO_DESCRIPTION(name),
          story_type: storyType,
          started: started !== null,
          started_at: started === null ? null : iso(started),
          completed: completed !== null,
          completed_at: completed === null ? null : iso(completed),
          moved_at: completed === null && started === null ? null : iso(completed ?? started!),
          estimate: random.pick([null, 1, 2, 3, 5, 8]),
          epic_id: epicId,
          iteration_id: state.type === 'backlog' ? null : random.pick(iterations).id,
          project_id: random.pick(projects).id,
          workflow_id: state.workflow_id,
          workflow_state_id: state.id,
          owner_ids: random.chance(0.85) ? [owner.id] : [],
          follower_ids: [owner.id],
          requested_by_id: random.pick(people).id,
          position: (already + out.length + 1) * 1024,
          created_at: iso(created),
          updated_at: iso(updated),
        }),
      )
    }
  }
  return out
}

/** A link both stories carry (the v3 form says which side each is on). */
function linkStories(ctx: ServiceContext, subject: StoryRecord, object: StoryRecord, verb: StoryLinkRecord['verb']): void {
  const at = subject.created_at > object.created_at ? subject.created_at : object.created_at
  const link: StoryLinkRecord = { id: ctx.nextId(), subject_id: subject.id, object_id: object.id, verb, created_at: at, updated_at: at }
  subject.story_links.push(link)
  object.story_links.push(link)
  if (verb === 'blocks' && !object.completed) {
    subject.blocker = true
    object.blocked = true
  }
}
