// Comments as threads: top-level comments in order, and the replies of each.
//
// Until an epic has been opened online, its comments are slim rows (data/types.ts
// `CachedComment.slim`): the epic lists carry only id, text and deleted, so
// author, thread and times are unknown. Those show as top-level comments, in
// the order the service numbered them, and `unloaded` counts them so the
// screen can say that who wrote what is still to come.
import { isLocalId } from '../../data/outbox/index.ts'
import type { CachedComment } from '../../data/types.ts'

export interface Threads {
  roots: CachedComment[]
  /** Replies by their parent's id (as a string), oldest first. */
  replies: ReadonlyMap<string, CachedComment[]>
  /** Comments whose author, thread and time have not been loaded yet (slim rows). */
  unloaded: number
}

/**
 * Oldest first. The service hands out ids in creation order, which slim rows
 * (no `created_at`) keep too; comments written here and not yet sent
 * (`local:` ids) come after, by when they were written.
 */
export function byCreation(a: CachedComment, b: CachedComment): number {
  const localA = isLocalId(a.id)
  const localB = isLocalId(b.id)
  if (localA !== localB) return localA ? 1 : -1
  if (!localA && typeof a.id === 'number' && typeof b.id === 'number' && a.id !== b.id) return a.id - b.id
  return a.created_at.localeCompare(b.created_at) || String(a.id).localeCompare(String(b.id))
}

/** A reply whose parent is not in the list (not synced, or gone) shows at the top level. */
export function threadsOf(comments: readonly CachedComment[]): Threads {
  const ids = new Set(comments.map((c) => String(c.id)))
  const roots: CachedComment[] = []
  const replies = new Map<string, CachedComment[]>()
  let unloaded = 0
  for (const c of [...comments].sort(byCreation)) {
    if (c.slim && !c.author_id) unloaded++
    const parent = c.parent_id === null ? null : String(c.parent_id)
    if (parent === null || !ids.has(parent)) roots.push(c)
    else replies.set(parent, [...(replies.get(parent) ?? []), c])
  }
  return { roots, replies, unloaded }
}
