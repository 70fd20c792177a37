// Seeded epics: a few dozen believable ones with comment threads and health
// history for the demo workspace, or many plain ones, fast, for large workspaces.
import type { ServiceContext } from '../../context.ts'
import type { SeedContext, SeedRandom } from '../../seed/plan.ts'
import type { MemberRecord } from '../members/member.ts'
import { Mentions } from './epic.ts'
import { labels } from '../labels/label.ts'
import { objectives } from '../objectives/objective.ts'
import { comments, epics, groups, healths, members, type CommentRecord, type EpicRecord, type HealthRecord } from './records.ts'
import { applyStateType, orderedStates } from './workflow.ts'

const DEMO_EPICS: [string, string][] = [
  ['Offline mode for the desktop app', 'People work on trains and planes; the app should keep working and sync when the network is back.'],
  ['Onboarding checklist redesign', 'Half of new workspaces never invite a teammate. A clearer first week should fix that.'],
  ['Billing: annual plans and proration', 'Customers keep asking for annual invoices, and upgrades mid-cycle are charged by hand today.'],
  ['SSO with SAML and SCIM provisioning', 'Enterprise trials stall at the security review without SAML and automatic deprovisioning.'],
  ['Search that understands typos', 'Searching "retension" finds nothing. Fuzzy matching and better ranking for titles first.'],
  ['Mobile push notifications', 'Mentions and assignments should reach people on their phones, with sensible quiet hours.'],
  ['Dark mode across web and desktop', 'The most upvoted request on the feedback board, two years running.'],
  ['Audit log export', 'Admins need to export who changed what, for compliance reviews, as CSV and via the API.'],
  ['Performance: sub-second dashboard loads', 'The dashboard takes 3.8 s at p95 for large workspaces. Target: under 1 s.'],
  ['Public API v2 rollout', 'Cursor pagination, bulk endpoints and consistent errors; v1 stays for a year.'],
  ['Data retention controls', 'Let workspace owners choose how long archived items and files are kept.'],
  ['Accessibility audit fixes (WCAG 2.2 AA)', 'The external audit found 41 issues; 9 of them are blockers for public-sector customers.'],
  ['Slack integration: threaded updates', 'Post updates into one thread per item instead of flooding the channel.'],
  ['Import from CSV and spreadsheets', 'Teams moving from spreadsheets should be able to bring their backlog in ten minutes.'],
  ['Usage-based pricing experiment', 'Test a metered add-on with 5% of new signups before deciding on a pricing change.'],
  ['Incident response runbooks', 'Every on-call alert should link to a runbook that a new engineer can follow at 3 am.'],
  ['Migrate background jobs to the new queue', 'The old job runner drops work on deploys. Move every job and delete the old runner.'],
  ['Customer health scores', 'Give account managers one number per customer, built from usage, support and billing signals.'],
  ['Localisation: French, German and Japanese', 'A third of signups come from these markets; the app is English only.'],
  ['Self-serve workspace deletion', 'Deletion requests go through support today and take a week.'],
  ['Two-factor authentication for all plans', 'Make 2FA available on the free plan and let admins require it.'],
  ['Kubernetes cost reduction', 'The cluster bill grew 60% this year while traffic grew 20%. Right-size and use spot nodes.'],
  ['Reporting: cycle time and lead time charts', 'Managers export data to spreadsheets to build these charts; build them in.'],
  ['In-app feedback widget', 'Collect feedback where people are, with a screenshot and the page they were on.'],
  ['Rate limit dashboards for API customers', 'Integrators cannot see how close they are to the limit until they hit it.'],
  ['Postgres 16 upgrade', 'Version 12 leaves support in November. Upgrade with no more than five minutes of downtime.'],
  ['Referral programme', 'Give a month free to both sides when a referred workspace becomes paid.'],
  ['Design system: tokens and components', 'Three button styles and eleven greys. One set of tokens, one component library.'],
  ['Email digest of weekly activity', 'A Monday email of what moved last week, for people who do not live in the app.'],
  ['GDPR data subject requests automation', 'Access and erasure requests are handled by hand in four systems.'],
  ['Webhook retries and delivery log', 'Failed deliveries are lost today. Retry with backoff and show a delivery log.'],
  ['Team templates for new workspaces', 'Start from a template for engineering, design or marketing teams.'],
  ['File previews for PDFs and images', 'Opening an attachment downloads it; preview it inline instead.'],
  ['Churn interviews and win-back flow', 'Talk to twenty churned customers and build an offer flow from what we learn.'],
  ['Status page and uptime reporting', 'A public status page fed by our monitoring, with monthly uptime figures.'],
  ['Replace the legacy admin console', 'The old console is a separate app nobody wants to touch. Fold it into settings.'],
]

const SCOPE_BULLETS = [
  'Design review with the team before building',
  'Instrument the flow and set a baseline metric first',
  'Behind a feature flag, rolled out to 10%, then everyone',
  'Write the migration and a rollback plan',
  'Update the help centre articles and the changelog',
  'Load test with production-sized data',
  'Support playbook for the first two weeks',
  'API endpoints and docs for integrators',
  'Security review sign-off',
  'Keyboard shortcuts and screen reader labels',
  'Empty states and error messages reviewed by design',
  'Beta with five design partners',
]

const OUT_OF_SCOPE = ['Mobile apps (next quarter)', 'Custom roles', 'Self-hosted installs', 'Historical backfill beyond 90 days', 'Bulk editing']

const COMMENTS = [
  'I talked to three customers about this last week and all of them asked for it unprompted.',
  'Can we split the first milestone so we ship something in two weeks?',
  'Design is ready for review: the Figma link is in the description.',
  'Blocked on the infrastructure change; @linus is looking into it.',
  'Agreed with the scope. Let us leave the edge cases for a follow-up.',
  'The numbers from the beta look good: activation up 12%.',
  'Heads up: legal wants to review the wording before launch.',
  'I moved the deadline by a week; the migration took longer than planned.',
  'What happens to existing data when this ships? We should write it down.',
  '@grace can you take a look at the rollout plan?',
  'Shipped to 10% this morning. No errors so far.',
  'This overlaps with the work on search; let us sync on Thursday.',
]

const REPLIES = [
  'Good point, I will add it to the plan.',
  'Yes, that works for me.',
  'Done, see the updated description.',
  'Let us discuss it in the planning meeting.',
  'I think we can, if we drop the export part for now.',
  'Thanks! Looking now.',
]

const HEALTH_NOTES: Record<HealthRecord['status'], string[]> = {
  'On Track': ['On schedule; the last milestone shipped on time.', 'Going well, beta feedback is positive.', 'All tasks estimated and staffed.'],
  'At Risk': ['Two people out next week; the deadline may slip.', 'Waiting on a dependency from another team.', 'Scope grew after the design review.'],
  'Off Track': ['The migration failed twice; we need a new plan.', 'Deadline will be missed by about three weeks.'],
  'No Health': ['Reset after re-planning.'],
}

function later(random: SeedRandom, from: string, maxDays: number, nowMs: number): string {
  const start = Date.parse(from)
  const end = Math.min(nowMs, start + maxDays * 86_400_000)
  return new Date(start + Math.floor(random.next() * Math.max(0, end - start))).toISOString()
}

/** Sets state flags with believable timestamps between creation and last update. */
function placeInState(epic: EpicRecord, type: 'unstarted' | 'started' | 'done', random: SeedRandom, nowMs: number): void {
  applyStateType(epic, type, epic.created_at)
  if (type === 'unstarted') return
  epic.started_at = later(random, epic.created_at, 30, nowMs)
  if (type === 'done') epic.completed_at = later(random, epic.started_at, 60, nowMs)
  const last = epic.completed_at ?? epic.started_at
  epic.updated_at = later(random, last, 10, nowMs)
  if (epic.updated_at < last) epic.updated_at = last
}

interface Cast {
  people: MemberRecord[]
  teamIds: string[]
  objectiveIds: number[]
  labelIds: number[]
}

function castOf(ctx: ServiceContext): Cast {
  return {
    people: members(ctx)
      .all()
      .filter((m) => m.role !== 'observer' && !m.disabled),
    teamIds: groups(ctx)
      .all()
      .filter((g) => g.archived !== true)
      .map((g) => g.id),
    objectiveIds: objectives(ctx)
      .all()
      .map((o) => o.id),
    labelIds: labels(ctx)
      .all()
      .filter((l) => !l.archived)
      .map((l) => l.id),
  }
}

function baseEpic(ctx: ServiceContext, position: number, name: string, description: string, createdAt: string, stateId: number, requester: string): EpicRecord {
  return {
    id: ctx.nextId(),
    name,
    description,
    archived: false,
    epic_state_id: stateId,
    external_id: null,
    requested_by_id: requester,
    owner_ids: [],
    follower_ids: [],
    group_ids: [],
    objective_ids: [],
    label_ids: [],
    member_mention_ids: [],
    group_mention_ids: [],
    deadline: null,
    planned_start_date: null,
    started: false,
    started_at: null,
    started_at_override: null,
    completed: false,
    completed_at: null,
    completed_at_override: null,
    position,
    planner_id: null,
    planner_name: null,
    planner_plugin_id: null,
    planner_url: null,
    created_at: createdAt,
    updated_at: createdAt,
  }
}

/** Adds comment threads; returns when the last comment was written. */
function addThread(ctx: ServiceContext, epic: EpicRecord, cast: Cast, random: SeedRandom, mentions: Mentions, nowMs: number, count: number): string {
  let at = epic.created_at
  for (let i = 0; i < count; i++) {
    at = later(random, at, 14, nowMs)
    const text = random.pick(COMMENTS)
    const top: CommentRecord = {
      id: ctx.nextId(),
      epic_id: epic.id,
      parent_id: null,
      author_id: random.pick(cast.people).id,
      text,
      external_id: null,
      deleted: false,
      ...mentions.in(text),
      created_at: at,
      updated_at: at,
    }
    comments(ctx).insert(top)
    let parent = top
    for (let r = random.int(0, 2); r > 0; r--) {
      at = later(random, at, 3, nowMs)
      const reply: CommentRecord = {
        ...parent,
        id: ctx.nextId(),
        parent_id: parent.id,
        author_id: random.pick(cast.people).id,
        text: random.pick(REPLIES),
        member_mention_ids: [],
        group_mention_ids: [],
        created_at: at,
        updated_at: at,
      }
      comments(ctx).insert(reply)
      // Every other reply answers the reply before it, so threads nest.
      if (random.chance(0.5)) parent = reply
    }
  }
  return at
}

/** Adds health updates, oldest first; returns when the last one was written. */
function addHealth(ctx: ServiceContext, epic: EpicRecord, cast: Cast, random: SeedRandom, nowMs: number, count: number): string {
  let at = epic.created_at
  for (let i = 0; i < count; i++) {
    at = later(random, at, 21, nowMs)
    const status = random.pick(['On Track', 'On Track', 'At Risk', 'Off Track'] as const)
    healths(ctx).insert({
      id: ctx.uuid(),
      epic_id: epic.id,
      objective_id: null,
      author_id: random.pick(cast.people).id,
      status,
      text: random.pick(HEALTH_NOTES[status]),
      created_at: at,
      updated_at: at,
    })
  }
  return at
}

function touched(epic: EpicRecord, at: string): void {
  if (at > epic.updated_at) epic.updated_at = at
}

function demoDescription(why: string, random: SeedRandom): string {
  const bullets = random.some(SCOPE_BULLETS, random.int(3, 5)).map((b) => `- ${b}`)
  const lines = [`## Why`, '', why, '', '## Scope', '', ...bullets, '', '## Out of scope', '', `- ${random.pick(OUT_OF_SCOPE)}`]
  if (random.chance(0.3)) lines.push('', '## Done when', '', '- [ ] Rolled out to every workspace', '- [ ] Metrics reviewed two weeks after launch')
  return lines.join('\n')
}

export function seedEpics({ ctx, plan, random }: SeedContext): void {
  const cast = castOf(ctx)
  if (cast.people.length === 0) return
  const states = orderedStates(ctx)
  const byType = (type: string) => states.filter((s) => s.type === type)
  const nowMs = ctx.clock()
  const mentions = new Mentions(ctx)
  let position = 0
  for (let i = 0; i < plan.epics; i++) {
    position += 1024
    const type = random.pick(['unstarted', 'unstarted', 'started', 'started', 'done'] as const)
    const state = random.pick(byType(type))
    const createdAt = random.pastDate(ctx, plan.demo ? 240 : 720)
    const [name, why] = plan.demo ? DEMO_EPICS[i % DEMO_EPICS.length] : [`Epic ${i + 1}`, '']
    const description = plan.demo ? demoDescription(why, random) : `Seeded epic ${i + 1}.`
    const epic = baseEpic(
      ctx,
      position,
      plan.demo && i >= DEMO_EPICS.length ? `${name} (phase ${Math.floor(i / DEMO_EPICS.length) + 1})` : name,
      description,
      createdAt,
      state.id,
      random.pick(cast.people).id,
    )
    epic.owner_ids = random.some(cast.people, random.int(plan.demo ? 1 : 0, 2)).map((m) => m.id)
    epic.follower_ids = [...new Set([...epic.owner_ids, ...random.some(cast.people, random.int(0, 3)).map((m) => m.id)])]
    epic.group_ids = random.some(cast.teamIds, random.int(0, plan.demo ? 2 : 1))
    epic.objective_ids = random.some(cast.objectiveIds, random.int(0, 1))
    epic.label_ids = random.some(cast.labelIds, random.int(0, 2))
    if (random.chance(0.5)) {
      const deadline = new Date(Date.parse(createdAt) + random.int(20, 150) * 86_400_000)
      epic.deadline = deadline.toISOString()
      epic.planned_start_date = new Date(Date.parse(createdAt) + random.int(0, 15) * 86_400_000).toISOString()
    }
    placeInState(epic, type, random, nowMs)
    if (plan.demo) {
      // A few archived ones, old and finished.
      if (type === 'done' && random.chance(0.25)) epic.archived = true
      Object.assign(epic, mentions.in(epic.description))
      touched(epic, addThread(ctx, epic, cast, random, mentions, nowMs, random.int(0, 4)))
      if (type !== 'unstarted' || random.chance(0.3)) touched(epic, addHealth(ctx, epic, cast, random, nowMs, random.int(1, 4)))
    } else if (i % 50 === 0) {
      // Large workspaces: comments and health on a small share, so seeding stays fast.
      touched(epic, addThread(ctx, epic, cast, random, mentions, nowMs, 2))
      touched(epic, addHealth(ctx, epic, cast, random, nowMs, 2))
    }
    epics(ctx).insert(epic)
  }
}
