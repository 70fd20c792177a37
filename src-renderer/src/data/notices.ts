// What a sync notes of an epic it found changed on the service, for the
// notifications (features/notify): the fields a notification speaks of and
// whose the epic is, as the cache held it and as the sync wrote it. The
// description, which can be long, is kept as a digest: a notification says
// only that it changed, and a mass edit by someone else notes thousands.
import type { CachedEpic, EpicNotice, NoticedEpic } from './types.ts'

/** FNV-1a over the UTF-16 code units, with the length: two different descriptions share one by chance only. */
function digest(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return `${text.length}:${(hash >>> 0).toString(16)}`
}

export function noticedEpic(epic: CachedEpic): NoticedEpic {
  const { id, name, epic_state_id, archived, deadline, planned_start_date, owner_ids, follower_ids, updated_at } = epic
  return { id, name, epic_state_id, archived, deadline, planned_start_date, owner_ids, follower_ids, updated_at, description: digest(epic.description ?? '') }
}

/** The notice of an epic the cache held whole at another version than the one written, if any. */
export function noticeOf(before: CachedEpic | undefined, after: CachedEpic, at: number): EpicNotice | undefined {
  if (!before || before.partial || before.updated_at === after.updated_at) return undefined
  return { before: noticedEpic(before), after: noticedEpic(after), at }
}
