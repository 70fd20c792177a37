// Seeded docs: a dozen believable ones for the demo workspace, or plan.docs
// docs of about 5 KB of markdown each, built from a few pre-rendered bodies
// (marked runs once per body, not once per doc).
import type { SeedContext } from '../../seed/plan.ts'
import type { MemberRecord } from '../members/member.ts'
import { htmlToMarkdown, markdownToHtml } from './markdown.ts'
import { collections, docs, DOC_EPIC, type CollectionRecord, type DocRecord } from './store.ts'

interface DemoDoc {
  title: string
  collection?: string
  archived?: boolean
  epics?: number
  markdown: string
}

const DEMO_COLLECTIONS = ['Engineering', 'Product', 'Runbooks']

const DEMO_DOCS: DemoDoc[] = [
  {
    title: 'Offline sync: how the outbox works',
    collection: 'Engineering',
    epics: 2,
    markdown: `# Offline sync

Every change made in the app is written to the local cache **and** appended to the *outbox* in one transaction.
Replay sends queued writes in order once the network is back.

## Guarantees

- Nothing the UI showed as saved is lost, even after a crash.
- Each write reaches the server **exactly once**: creates carry a client-made \`external_id\`.
- A \`4xx\` answer marks the write as failed; the others go on.

## Replay loop

\`\`\`ts
for (const write of await outbox.pending()) {
  const answer = await gateway.send(write)
  if (answer.ok) await outbox.done(write.id, answer.body)
  else if (answer.status < 500) await outbox.fail(write.id, answer.body.message)
  else break // try again later
}
\`\`\`

## Failure cases

| Case | What the outbox does |
| --- | --- |
| Connection dropped before the write | Sends it again |
| Answer lost after commit | Finds the entity by \`external_id\` |
| 429 Too Many Requests | Waits for \`Retry-After\` |
| 422 Unprocessable | Marks the write as failed |

See also the [design notes](https://example.com/outpost/design).
`,
  },
  {
    title: 'Release checklist',
    collection: 'Runbooks',
    markdown: `# Release checklist

1. Bump the version in \`package.json\`.
2. Run the full test suite: \`npm test\`.
3. Build the installers for every platform.
4. Write the release notes:
   - new features
   - fixes
   - known issues
5. Tag the release and publish it.

> Never release on a Friday afternoon.

## Platforms

| Platform | Installer | Signed |
| --- | --- | --- |
| Windows | NSIS | yes |
| macOS | DMG | yes |
| Linux | AppImage, deb | no |
`,
  },
  {
    title: 'Onboarding guide for new engineers',
    collection: 'Engineering',
    markdown: `# Welcome aboard

Start with the [README](https://example.com/outpost/readme), then pick a *good first issue*.

## Your first week

- Set up the repository and run \`npm ci\`.
- Start the local service: \`npm run server -- --seed demo\`.
- Pair with someone on a small change.

## Where things live

| Folder | What it holds |
| --- | --- |
| \`src-main/\` | The Electron main process |
| \`src-renderer/\` | The Svelte UI and the offline data layer |
| \`src-server/\` | The local work-tracking service |

Ask questions early and often.
`,
  },
  {
    title: 'API rate limits and pacing',
    collection: 'Engineering',
    epics: 1,
    markdown: `# Rate limits

The service allows **200 requests a minute** per token. Over the limit it answers \`429\` with a \`Retry-After\` header.

## Pacing in the gateway

- User writes go ahead of background sync.
- The gateway keeps a token bucket a little below the limit.
- A \`429\` pauses every request until \`Retry-After\` has passed.

\`\`\`ts
const bucket = new TokenBucket({ capacity: 200, refillPerMinute: 190 })
await bucket.take(priority === 'user' ? 0 : 1)
\`\`\`
`,
  },
  {
    title: 'Incident review: sync stalled after wake',
    collection: 'Runbooks',
    markdown: `# Incident review

**Impact:** for about an hour, laptops that woke from sleep did not sync until restarted.

## Timeline

1. 09:12 first report from support
2. 09:40 reproduced on macOS
3. 10:05 fix merged: the scheduler now listens for \`resume\`

## What went well

- Clear reports with logs attached.

## What we will change

- [ ] Add a wake-from-sleep test
- [ ] Alert when no sync ran for 15 minutes
`,
  },
  {
    title: 'Q3 roadmap',
    collection: 'Product',
    epics: 3,
    markdown: `# Q3 roadmap

## Themes

- **Offline first**: every view works without a network.
- **Files**: drag and drop uploads with progress.
- **Docs**: a real editor with live updates.

## Milestones

| Month | Goal | Owner |
| --- | --- | --- |
| July | Offline epics | Grace |
| August | File uploads | Alan |
| September | Doc editor | Barbara |
`,
  },
  {
    title: 'Planning meeting notes',
    collection: 'Product',
    markdown: `# Planning, week 27

Attendees: Grace, Linus, Katherine, Alan.

## Decisions

- Ship the outbox UI before the doc editor.
- Keep the local service as the default backend for demos.

## Action items

1. Grace: draft the release plan.
2. Alan: measure upload throughput on a slow network.
3. Katherine: review the error messages of the gateway.
`,
  },
  {
    title: 'Writing style guide',
    markdown: `# Writing style

Write for a *busy* reader: short sentences, plain words, one idea per paragraph.

## Names

- Say what a thing is in the user's words: \`outbox\`, \`replay\`, \`doc\`.
- Avoid \`manager\`, \`helper\`, \`utils\`.

## Error messages

A good error message says what happened and what to do next:

> The token is read-only: it cannot change anything. Use a read-write token.
`,
  },
  {
    title: 'Architecture overview',
    collection: 'Engineering',
    epics: 1,
    markdown: `# Architecture

One data flow, in one direction each way.

## Read path

service → gateway → IPC → sync engine → cache → UI

## Write path

UI → cache and outbox (one transaction) → replay → gateway → service

## Security

- Tokens stay in the OS keychain.
- Renderer runs sandboxed with \`contextIsolation\`.
- Doc HTML is sanitized before it reaches the DOM.

\`\`\`json
{ "contextIsolation": true, "sandbox": true, "nodeIntegration": false }
\`\`\`
`,
  },
  {
    title: 'Support playbook',
    collection: 'Runbooks',
    markdown: `# Support playbook

## A user says their change was lost

1. Ask for the app version and the time of the change.
2. Open the outbox view: is the write *failed* or *pending*?
3. If failed, the reason is shown next to it; help them fix and retry.

## A user cannot sign in

- Check the token prefix: \`svc_rw_\` can write, \`svc_ro_\` only reads.
- Check the base URL uses **https**.
`,
  },
  {
    title: 'Benchmark results: bootstrap',
    collection: 'Engineering',
    markdown: `# Bootstrap benchmark

Workspace with 10,000 epics, 2,000 docs and 1,000 files.

| Step | Time | Requests |
| --- | ---: | ---: |
| Epics | 48 s | 100 |
| Docs | 11 s | 20 |
| Files | 1 s | 1 |

Most of the time is the rate limit, not the service.
`,
  },
  {
    title: 'Old: v2 migration notes',
    archived: true,
    markdown: `# Moving from v2 to v3

Replace \`/v2/\` with \`/v3/\` in every path. Markdown processing changed slightly.

~~The token query parameter is fine.~~ It is deprecated: send a header.
`,
  },
]

function demoDocs({ ctx, random }: SeedContext, people: MemberRecord[]): void {
  const made = new Map<string, CollectionRecord>()
  for (const name of DEMO_COLLECTIONS) {
    const at = random.pastDate(ctx, 120)
    made.set(
      name,
      collections(ctx).insert({ id: ctx.uuid(), name, archived: false, parent_collection_id: null, favorite_member_ids: [], created_at: at, updated_at: at }),
    )
  }
  const epicIds = ctx.col('epic').ids()
  const relation = ctx.relation(DOC_EPIC)
  for (const d of DEMO_DOCS) {
    const creator = random.pick(people)
    const followers = [
      creator.id,
      ...random
        .some(people, 2)
        .map((m) => m.id)
        .filter((id) => id !== creator.id),
    ]
    const created = random.pastDate(ctx, 90)
    const html = markdownToHtml(d.markdown)
    const doc = docs(ctx).insert({
      id: ctx.uuid(),
      title: d.title,
      description: null,
      content_html: html,
      content_markdown: htmlToMarkdown(html),
      archived: d.archived === true,
      creator_id: creator.id,
      follower_ids: followers,
      collection_ids: d.collection ? [made.get(d.collection)!.id] : [],
      created_at: created,
      updated_at: created,
    })
    for (const epicId of random.some(epicIds, d.epics ?? 0)) relation.add(doc.id, epicId, created)
  }
}

const TOPICS = ['Design note', 'Meeting notes', 'Runbook', 'Proposal', 'Retrospective', 'Spec', 'Research summary', 'Onboarding']

/** One ~5 KB markdown body: sections with lists, code, links and a table. */
function bulkBody(variant: number): string {
  const sections: string[] = []
  for (let s = 1; s <= 11; s++) {
    sections.push(`## Section ${s}: ${TOPICS[(variant + s) % TOPICS.length].toLowerCase()}

Paragraph ${s} of body ${variant}: the team discussed **scope**, *risks* and the \`next steps\`, and agreed on a plan.
More context is on [the wiki](https://example.com/wiki/${variant}/${s}).

- first point about item ${s}
- second point, with a longer sentence that explains the reasoning in some detail
- third point

\`\`\`ts
export const step${s} = (input: number) => input * ${variant + s}
\`\`\`

| Item | Owner | Estimate |
| --- | --- | --- |
| Task ${s}a | Ada | ${s} |
| Task ${s}b | Max | ${s + 1} |
`)
  }
  return sections.join('\n')
}

function bulkDocs({ ctx, plan, random }: SeedContext, people: MemberRecord[]): void {
  const bodies = Array.from({ length: 6 }, (_, v) => {
    const html = markdownToHtml(bulkBody(v))
    return { html, markdown: htmlToMarkdown(html) }
  })
  const collectionIds = ['Engineering', 'Product', 'Runbooks', 'Design', 'Support'].map((name) => {
    const at = ctx.now()
    return collections(ctx).insert({
      id: ctx.uuid(),
      name,
      archived: false,
      parent_collection_id: null,
      favorite_member_ids: [],
      created_at: at,
      updated_at: at,
    }).id
  })
  const epicIds = ctx.col('epic').ids()
  const relation = ctx.relation(DOC_EPIC)
  for (let i = 1; i <= plan.docs; i++) {
    // Titles stay plain words and numbers, so "# title" is exactly what turndown makes of <h1>title</h1>.
    const title = `${TOPICS[i % TOPICS.length]} ${i}`
    const body = bodies[i % bodies.length]
    const creator = people[i % people.length]
    const at = random.pastDate(ctx, 365)
    const doc = docs(ctx).insert({
      id: ctx.uuid(),
      title,
      description: null,
      content_html: `<h1>${title}</h1>\n${body.html}`,
      content_markdown: `# ${title}\n\n${body.markdown}`,
      archived: i % 20 === 0,
      creator_id: creator.id,
      follower_ids: [creator.id],
      collection_ids: i % 3 === 0 ? [] : [collectionIds[i % collectionIds.length]],
      created_at: at,
      updated_at: at,
    } satisfies DocRecord)
    if (epicIds.length > 0 && i % 4 === 0) relation.add(doc.id, epicIds[i % epicIds.length], at)
  }
}

export function seedDocs(seed: SeedContext): void {
  const people = seed.ctx
    .col<MemberRecord>('member')
    .all()
    .filter((m) => !m.disabled && m.role !== 'observer')
  if (seed.plan.demo) demoDocs(seed, people)
  else if (seed.plan.docs > 0) bulkDocs(seed, people)
}
