// What changed in an epic between two versions of it, in the words of a
// notification, and whether a comment mentions someone. Plain functions.
import type { CachedComment, NoticedEpic } from '../../data/types.ts'
import { dateWithYear } from '../../lib/format.ts'

export interface Names {
  state(id: number | null): string
  member(id: string): string
}

const day = (value: string | null) => (value ? dateWithYear(new Date(value)) : 'none')

function people(label: string, before: readonly string[], after: readonly string[], names: Names): string | undefined {
  const added = after.filter((id) => !before.includes(id)).map(names.member)
  const removed = before.filter((id) => !after.includes(id)).map(names.member)
  if (!added.length && !removed.length) return undefined
  return `${label}: ${[...added.map((n) => `+${n}`), ...removed.map((n) => `−${n}`)].join(', ')}`
}

/** The changes a person would want told, each a short line ("State: In Progress → Done"); none when only what they do not see moved. */
export function epicChanges(before: NoticedEpic, after: NoticedEpic, names: Names): string[] {
  const lines: (string | undefined)[] = [
    before.name !== after.name ? `Renamed from “${before.name}”` : undefined,
    before.epic_state_id !== after.epic_state_id ? `State: ${names.state(before.epic_state_id)} → ${names.state(after.epic_state_id)}` : undefined,
    before.archived !== after.archived ? (after.archived ? 'Archived' : 'Unarchived') : undefined,
    before.deadline !== after.deadline ? `Deadline: ${day(after.deadline)}` : undefined,
    before.planned_start_date !== after.planned_start_date ? `Planned start: ${day(after.planned_start_date)}` : undefined,
    before.description !== after.description ? 'Description changed' : undefined,
    people('Owners', before.owner_ids, after.owner_ids, names),
  ]
  return lines.filter((l): l is string => l !== undefined)
}

/** Whether a comment names the member (`@mention_name`, as the service's markdown writes a mention), not as part of a longer name. */
export function mentions(comment: Pick<CachedComment, 'text'>, mentionName: string): boolean {
  if (!mentionName) return false
  const escaped = mentionName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(^|[^\\w@])@${escaped}(?![\\w-])`, 'i').test(comment.text)
}
