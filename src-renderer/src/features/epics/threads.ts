// Comments as threads: top-level comments in order, and the replies of each.
import type { CachedComment } from '../../data/types.ts'

export interface Threads {
  roots: CachedComment[]
  /** Replies by their parent's id (as a string), oldest first. */
  replies: ReadonlyMap<string, CachedComment[]>
}

/** A reply whose parent is not in the list (not synced, or gone) shows at the top level. */
export function threadsOf(comments: readonly CachedComment[]): Threads {
  const ids = new Set(comments.map((c) => String(c.id)))
  const roots: CachedComment[] = []
  const replies = new Map<string, CachedComment[]>()
  for (const c of comments) {
    const parent = c.parent_id === null ? null : String(c.parent_id)
    if (parent === null || !ids.has(parent)) roots.push(c)
    else replies.set(parent, [...(replies.get(parent) ?? []), c])
  }
  return { roots, replies }
}
