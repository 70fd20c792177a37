// An epic and a doc as Markdown, for an export: what a person reads without
// Outpost. An epic: its name as the title, state, owners and the other
// properties, the description, the health history (newest first) and the
// comments as threads, with authors and times where the cache has them (an
// epic's comment authors and threads come when it is opened; before that only
// the text is known, and the file says so). A doc: its title and its Markdown.
import type { CachedComment, CachedDoc, CachedEpic, CachedHealth, EntityId } from '../types.ts'

/** Names the cache knows, by id: members (owners, authors), epic states, teams, objectives, labels. */
export interface Names {
  members: ReadonlyMap<string, string>
  states: ReadonlyMap<string, string>
  teams: ReadonlyMap<string, string>
  objectives: ReadonlyMap<string, string>
  labels: ReadonlyMap<string, string>
}

const nameIn = (names: ReadonlyMap<string, string>, id: EntityId) => names.get(String(id)) ?? `#${String(id)}`
const member = (names: Names, id: string | null) => (id === null ? null : (names.members.get(id) ?? 'a former member'))

/** `2026-11-20T14:03:11Z` → `2026-11-20 14:03 UTC` (the same for every reader, wherever the export is opened). */
export function when(iso: string): string {
  const t = Date.parse(iso)
  if (!iso || Number.isNaN(t)) return ''
  return `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** Text under a list item: every line indented to the item's content. */
function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces)
  return text
    .trimEnd()
    .split('\n')
    .map((line) => (line ? pad + line : ''))
    .join('\n')
}

/** One heading line: a title never breaks the heading (a newline) or starts another block. */
function heading(text: string): string {
  return text.replace(/\s+/g, ' ').trim() || 'Untitled'
}

function property(label: string, value: string | null | undefined): string[] {
  return value ? [`- **${label}:** ${value}`] : []
}

function list(ids: readonly EntityId[], names: ReadonlyMap<string, string>): string {
  return ids.map((id) => nameIn(names, id)).join(', ')
}

function healthLines(health: CachedHealth[], names: Names): string[] {
  if (health.length === 0) return ['_No health updates._']
  const newest = [...health].sort((a, b) => b.created_at.localeCompare(a.created_at))
  return newest.map((h) => {
    const head = [when(h.created_at), `**${h.status}**`, h.slim ? null : member(names, h.author_id)].filter(Boolean).join(' · ')
    const text = h.slim ? '_(its text was not loaded: open the epic in Outpost while online)_' : h.text.trim()
    return text ? `- ${head}\n\n${indent(text, 2)}` : `- ${head}`
  })
}

/** Comments as threads: replies under what they answer, each thread oldest first. */
function commentLines(comments: CachedComment[], names: Names): string[] {
  if (comments.length === 0) return ['_No comments._']
  const ids = new Set(comments.map((c) => String(c.id)))
  const children = new Map<string, CachedComment[]>()
  const roots: CachedComment[] = []
  for (const c of comments) {
    const parent = c.parent_id === null ? null : String(c.parent_id)
    if (parent !== null && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), c])
    else roots.push(c)
  }
  const order = (a: CachedComment, b: CachedComment) =>
    a.created_at.localeCompare(b.created_at) || String(a.id).localeCompare(String(b.id), undefined, { numeric: true })
  const out: string[] = []
  const walk = (c: CachedComment, depth: number) => {
    const pad = ' '.repeat(depth * 2)
    const head = c.slim
      ? '_(author and time not loaded: open the epic in Outpost while online)_'
      : [`**${member(names, c.author_id) ?? 'Unknown author'}**`, when(c.created_at)].filter(Boolean).join(' · ')
    const text = c.deleted ? '_(deleted)_' : c.text.trim()
    out.push(`${pad}- ${head}\n\n${indent(text || '_(empty)_', depth * 2 + 2)}`)
    for (const reply of (children.get(String(c.id)) ?? []).sort(order)) walk(reply, depth + 1)
  }
  for (const c of roots.sort(order)) walk(c, 0)
  return out
}

/** Blocks of Markdown, one blank line apart (the text of a description or a comment is kept as written). */
export function epicMarkdown(epic: CachedEpic, comments: CachedComment[], health: CachedHealth[], names: Names): string {
  const properties = [
    ...property('State', epic.epic_state_id === null ? 'None' : nameIn(names.states, epic.epic_state_id)),
    ...property('Owners', epic.owner_ids.length > 0 ? epic.owner_ids.map((id) => member(names, id)).join(', ') : 'None'),
    ...property('Requested by', member(names, epic.requested_by_id)),
    ...property('Teams', list(epic.group_ids, names.teams)),
    ...property('Objectives', list(epic.objective_ids, names.objectives)),
    ...property('Labels', list(epic.label_ids, names.labels)),
    ...property('Planned start', epic.planned_start_date?.slice(0, 10)),
    ...property('Deadline', epic.deadline?.slice(0, 10)),
    ...property('Archived', epic.archived ? 'Yes' : null),
    ...property('Created', when(epic.created_at)),
    ...property('Updated', when(epic.updated_at)),
    ...property('On the service', epic.app_url || null),
  ]
  const blocks = [
    `# ${heading(epic.name)}`,
    properties.join('\n'),
    '## Description',
    epic.partial ? '_(not loaded yet: open the epic in Outpost while online)_' : epic.description.trim() || '_No description._',
    '## Health',
    ...healthLines(health, names),
    '## Comments',
    ...commentLines(comments, names),
  ]
  return `${blocks.join('\n\n')}\n`
}

export function docMarkdown(doc: Pick<CachedDoc, 'title' | 'content_markdown' | 'partial'>): string {
  // A doc stored from the list of every doc has no text yet: not written as an empty one.
  const body = doc.partial ? '_(its text was not loaded yet: open the doc in Outpost while online)_' : doc.content_markdown.trimEnd()
  return body ? `# ${heading(doc.title)}\n\n${body}\n` : `# ${heading(doc.title)}\n`
}
