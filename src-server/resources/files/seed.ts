// Seeded files: a handful of real small files (and a few linked files) for the
// demo workspace, or plan.files small files for a large one.
import type { SeedContext } from '../../seed/plan.ts'
import type { MemberRecord } from '../members/member.ts'
import { outpostLogo, png } from './png.ts'
import { linkedFiles, storeUpload, type LinkedFileRecord, type Upload } from './store.ts'

const text = (filename: string, content_type: string, body: string): Upload => ({ filename, content_type, bytes: Buffer.from(body, 'utf8') })

function demoUploads(): Upload[] {
  return [
    { filename: 'outpost-logo.png', content_type: 'image/png', bytes: outpostLogo(64) },
    {
      filename: 'sync-diagram.png',
      content_type: 'image/png',
      bytes: png(120, 60, (x, y) => (Math.floor(x / 40) === Math.floor(y / 20) ? [21, 101, 192] : [236, 239, 241])),
    },
    text(
      'release-notes.txt',
      'text/plain',
      'Outpost 0.4\n\n- Offline editing of epics\n- Outbox view with retry and discard\n- Faster bootstrap of large workspaces\n',
    ),
    text('sprint-metrics.csv', 'text/csv', 'sprint,points_planned,points_done,bugs_closed\n21,34,29,7\n22,30,31,4\n23,36,27,9\n24,32,32,5\n'),
    text('README.md', 'text/markdown', '# Outpost\n\nAn offline-first desktop client.\n\n## Run\n\n```sh\nnpm start\n```\n'),
    text('meeting-notes.md', 'text/markdown', '# Planning, week 27\n\n- Ship the outbox UI first\n- Measure uploads on a slow network\n'),
    text('api-limits.json', 'application/json', JSON.stringify({ requests_per_minute: 200, page_size: { min: 1, max: 100, default: 10 } }, null, 2)),
    text('budget-2025.csv', 'text/csv', 'quarter,infrastructure,licences,travel\nQ1,1200,300,800\nQ2,1250,300,650\nQ3,1300,320,900\n'),
  ]
}

const DEMO_LINKS: Pick<LinkedFileRecord, 'name' | 'type' | 'url' | 'content_type' | 'description'>[] = [
  {
    name: 'Roadmap deck',
    type: 'google',
    url: 'https://docs.google.com/presentation/d/outpost-roadmap',
    content_type: 'application/vnd.google-apps.presentation',
    description: 'Quarterly roadmap, shared with @grace',
  },
  { name: 'Design mockups', type: 'dropbox', url: 'https://www.dropbox.com/s/outpost/mockups.fig', content_type: null, description: null },
  {
    name: 'Customer interviews',
    type: 'url',
    url: 'https://example.com/research/interviews',
    content_type: 'text/html',
    description: 'Notes from five interviews',
  },
]

export function seedFiles({ ctx, plan, random }: SeedContext): void {
  const people = ctx
    .col<MemberRecord>('member')
    .all()
    .filter((m) => !m.disabled && m.role !== 'observer')
  const storyIds = ctx.col('story').ids().map(Number)
  if (plan.demo) {
    for (const upload of demoUploads()) {
      const storyId = storyIds.length > 0 && random.chance(0.5) ? random.pick(storyIds) : undefined
      storeUpload(ctx, random.pick(people).id, upload, storyId, random.pastDate(ctx, 60))
    }
    for (const link of DEMO_LINKS) {
      const at = random.pastDate(ctx, 60)
      const storyId = storyIds.length > 0 ? random.pick(storyIds) : undefined
      linkedFiles(ctx).insert({
        id: ctx.nextId(),
        ...link,
        created_at: at,
        size: null,
        story_ids: storyId === undefined ? [] : [storyId],
        thumbnail_url: null,
        updated_at: at,
        uploader_id: random.pick(people).id,
      })
    }
    return
  }
  const image = outpostLogo(16)
  for (let i = 1; i <= plan.files; i++) {
    const at = random.pastDate(ctx, 365)
    const upload: Upload =
      i % 3 === 0
        ? { filename: `image-${i}.png`, content_type: 'image/png', bytes: image }
        : i % 3 === 1
          ? text(`notes-${i}.txt`, 'text/plain', `Notes ${i}\n${'lorem ipsum dolor sit amet '.repeat(1 + (i % 20))}\n`)
          : text(`data-${i}.csv`, 'text/csv', `row,value\n${Array.from({ length: 1 + (i % 30) }, (_, r) => `${r},${(r * i) % 97}`).join('\n')}\n`)
    const storyId = storyIds.length > 0 && i % 4 === 0 ? storyIds[i % storyIds.length] : undefined
    storeUpload(ctx, people[i % people.length].id, upload, storyId, at)
  }
}
