// An epic and a doc as Markdown: properties by name, health newest first,
// comments as threads, and what the cache has not loaded said as such.
import { describe, expect, it } from 'vitest'
import { epicDraft } from '../epic-fields.ts'
import type { CachedComment, CachedEpic, CachedHealth } from '../types.ts'
import { docMarkdown, epicMarkdown, type Names } from './markdown.ts'

const names: Names = {
  members: new Map([
    ['m-ada', 'Ada Lovelace'],
    ['m-bo', 'Bo Diddley'],
  ]),
  states: new Map([['500', 'In Progress']]),
  teams: new Map([['g-1', 'Platform']]),
  objectives: new Map(),
  labels: new Map([['9', 'infra']]),
}

const epic: CachedEpic = {
  ...epicDraft(),
  id: 12,
  name: 'Launch\nthe thing',
  description: 'Line one.\n\n\n```\ncode\n```',
  epic_state_id: 500,
  owner_ids: ['m-ada', 'm-gone'],
  group_ids: ['g-1'],
  label_ids: [9],
  deadline: '2026-12-01T00:00:00Z',
  app_url: 'https://app.example/acme/epic/12',
  created_at: '2026-11-01T09:00:00Z',
  updated_at: '2026-11-20T14:03:11Z',
}

const comment = (id: number, parent: number | null, at: string, text: string, extra: Partial<CachedComment> = {}): CachedComment => ({
  id,
  epic_id: 12,
  parent_id: parent,
  author_id: 'm-bo',
  text,
  deleted: false,
  external_id: null,
  created_at: at,
  updated_at: at,
  ...extra,
})

describe('epicMarkdown', () => {
  it('writes the name as the title and the properties by name', () => {
    const md = epicMarkdown(epic, [], [], names)
    expect(md.startsWith('# Launch the thing\n\n- **State:** In Progress\n- **Owners:** Ada Lovelace, a former member\n')).toBe(true)
    expect(md).toContain('- **Teams:** Platform')
    expect(md).toContain('- **Labels:** infra')
    expect(md).toContain('- **Deadline:** 2026-12-01')
    expect(md).toContain('- **Updated:** 2026-11-20 14:03 UTC')
    // The description as written, blank lines and all.
    expect(md).toContain('## Description\n\nLine one.\n\n\n```\ncode\n```\n\n## Health\n\n_No health updates._\n\n## Comments\n\n_No comments._\n')
  })

  it('lists health newest first, and comments as threads with authors and times', () => {
    const health: CachedHealth[] = [
      { id: 'h1', epic_id: 12, status: 'On Track', text: 'Fine.', author_id: 'm-ada', created_at: '2026-11-02T10:00:00Z', updated_at: '2026-11-02T10:00:00Z' },
      {
        id: 'h2',
        epic_id: 12,
        status: 'At Risk',
        text: 'Slipping.',
        author_id: 'm-bo',
        created_at: '2026-11-09T10:00:00Z',
        updated_at: '2026-11-09T10:00:00Z',
      },
    ]
    const comments = [
      comment(3, 1, '2026-11-05T08:00:00Z', 'A reply\non two lines'),
      comment(1, null, '2026-11-04T08:00:00Z', 'First'),
      comment(2, null, '2026-11-06T08:00:00Z', 'Gone', { deleted: true }),
      comment(4, 3, '2026-11-05T09:00:00Z', 'Deeper', { author_id: 'm-ada' }),
    ]
    const md = epicMarkdown(epic, comments, health, names)
    expect(md).toContain(
      '## Health\n\n- 2026-11-09 10:00 UTC · **At Risk** · Bo Diddley\n\n  Slipping.\n\n- 2026-11-02 10:00 UTC · **On Track** · Ada Lovelace\n\n  Fine.\n\n## Comments',
    )
    expect(md).toContain(
      [
        '- **Bo Diddley** · 2026-11-04 08:00 UTC\n\n  First',
        '  - **Bo Diddley** · 2026-11-05 08:00 UTC\n\n    A reply\n    on two lines',
        '    - **Ada Lovelace** · 2026-11-05 09:00 UTC\n\n      Deeper',
        '- **Bo Diddley** · 2026-11-06 08:00 UTC\n\n  _(deleted)_\n',
      ].join('\n\n'),
    )
  })

  it('says what was not loaded yet instead of inventing it', () => {
    const slimComment = comment(5, null, '', 'Only the text', { slim: true, author_id: null })
    const slimHealth: CachedHealth = {
      id: 'h3',
      epic_id: 12,
      status: 'Off Track',
      text: '',
      author_id: null,
      created_at: '2026-11-10T10:00:00Z',
      updated_at: '',
      slim: true,
    }
    const md = epicMarkdown({ ...epic, epic_state_id: null, owner_ids: [] }, [slimComment], [slimHealth], names)
    expect(md).toContain('- **State:** None\n- **Owners:** None')
    expect(md).toContain('- _(author and time not loaded: open the epic in Outpost while online)_\n\n  Only the text')
    expect(md).toContain('- 2026-11-10 10:00 UTC · **Off Track**\n\n  _(its text was not loaded')
    // An epic stored from the list of every epic: its description is not known, not empty.
    const partial = epicMarkdown({ ...epic, description: '', partial: true }, [], [], names)
    expect(partial).toContain('## Description\n\n_(not loaded yet: open the epic in Outpost while online)_\n')
    expect(partial).not.toContain('_No description._')
  })
})

describe('docMarkdown', () => {
  it('is the title and the Markdown as the service has it', () => {
    expect(docMarkdown({ title: 'Runbook', content_markdown: '## Steps\n\n1. One\n' })).toBe('# Runbook\n\n## Steps\n\n1. One\n')
    expect(docMarkdown({ title: '', content_markdown: '' })).toBe('# Untitled\n')
  })

  it('says a doc stored from the list of every doc has no text yet, rather than writing it empty', () => {
    expect(docMarkdown({ title: 'Runbook', content_markdown: '', partial: true })).toBe(
      '# Runbook\n\n_(its text was not loaded yet: open the doc in Outpost while online)_\n',
    )
  })
})
