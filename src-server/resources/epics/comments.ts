// Threaded comments on epics: top-level comments, nested replies, and the
// placeholder a deleted comment leaves while it still has replies.
import type { ThreadedCommentV3 } from '../../../src-shared/api/v3/epics.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { sortBy } from '../../pages.ts'
import { appUrl } from '../../refs.ts'
import { laterThan, type Mentions } from './epic.ts'
import { comments, type CommentRecord } from './records.ts'

export interface CommentInput {
  text: string
  author_id?: string
  created_at?: string
  updated_at?: string
  external_id?: string
}

/** Comments of an epic in the order they were written. */
export function commentsOf(ctx: ServiceContext, epicId: number): CommentRecord[] {
  return inWrittenOrder(comments(ctx).byParent(epicId))
}

/** An epic's comments (in row order) in the order they were written. */
export function inWrittenOrder(list: CommentRecord[]): CommentRecord[] {
  return list.length < 2 ? list : sortBy(list, (c) => c.created_at)
}

/** The comment, which must belong to the epic (404 otherwise). */
export function requireComment(ctx: ServiceContext, epicId: number, commentId: number): CommentRecord {
  const c = comments(ctx).get(commentId)
  if (!c || c.epic_id !== epicId) throw ApiError.notFound(`Comment ${commentId} does not exist on epic ${epicId}.`)
  return c
}

/** A comment that can still be replied to or edited (not a deleted placeholder). */
export function requireLiveComment(ctx: ServiceContext, epicId: number, commentId: number): CommentRecord {
  const c = requireComment(ctx, epicId, commentId)
  if (c.deleted) throw ApiError.notFound(`Comment ${commentId} was deleted.`)
  return c
}

export function createComment(
  ctx: ServiceContext,
  epicId: number,
  parentId: number | null,
  input: CommentInput,
  authorId: string,
  mentions: Mentions,
): CommentRecord {
  const now = ctx.now()
  const createdAt = input.created_at ?? now
  return comments(ctx).insert({
    id: ctx.nextId(),
    epic_id: epicId,
    parent_id: parentId,
    author_id: authorId,
    text: input.text,
    external_id: input.external_id ?? null,
    deleted: false,
    ...mentions.in(input.text),
    created_at: createdAt,
    updated_at: input.updated_at ?? createdAt,
  })
}

export function updateComment(ctx: ServiceContext, comment: CommentRecord, text: string, mentions: Mentions): CommentRecord {
  if (comment.text === text) return comment
  return comments(ctx).update({ ...comment, text, ...mentions.in(text), updated_at: laterThan(comment.updated_at, ctx.now()) })
}

/**
 * Deletes a comment. One with replies stays as a deleted placeholder (no text)
 * so the thread keeps its shape; a placeholder whose last reply goes, goes too.
 */
export function deleteComment(ctx: ServiceContext, comment: CommentRecord): void {
  const all = comments(ctx).byParent(comment.epic_id)
  const hasReplies = (id: number) => all.some((c) => c.parent_id === id && c.id !== comment.id)
  if (all.some((c) => c.parent_id === comment.id)) {
    comments(ctx).update({
      ...comment,
      deleted: true,
      text: '',
      member_mention_ids: [],
      group_mention_ids: [],
      updated_at: laterThan(comment.updated_at, ctx.now()),
    })
    return
  }
  comments(ctx).delete(comment.id)
  let parentId = comment.parent_id
  while (parentId !== null) {
    const parent = all.find((c) => c.id === parentId)
    if (!parent || !parent.deleted || hasReplies(parent.id)) break
    comments(ctx).delete(parent.id)
    all.splice(all.indexOf(parent), 1)
    parentId = parent.parent_id
  }
}

function commentV3(origin: string, slug: string, c: CommentRecord, replies: ThreadedCommentV3[]): ThreadedCommentV3 {
  return {
    app_url: `${appUrl(origin, slug, 'epic', c.epic_id)}#activity-${c.id}`,
    author_id: c.author_id,
    comments: replies,
    created_at: c.created_at,
    deleted: c.deleted,
    entity_type: 'threaded-comment',
    external_id: c.external_id,
    group_mention_ids: c.group_mention_ids,
    id: c.id,
    member_mention_ids: c.member_mention_ids,
    mention_ids: c.member_mention_ids,
    text: c.text,
    updated_at: c.updated_at,
  }
}

/** v3 threads: each comment with its replies nested under it. */
export class CommentThreads {
  private readonly children = new Map<number | null, CommentRecord[]>()

  constructor(
    private readonly origin: string,
    private readonly slug: string,
    all: CommentRecord[],
  ) {
    for (const c of all) {
      const list = this.children.get(c.parent_id) ?? []
      list.push(c)
      this.children.set(c.parent_id, list)
    }
  }

  static of(ctx: ServiceContext, origin: string, epicId: number): CommentThreads {
    return new CommentThreads(origin, ctx.workspace.slug, commentsOf(ctx, epicId))
  }

  /** The top-level comments with their threads. */
  top(): ThreadedCommentV3[] {
    return (this.children.get(null) ?? []).map((c) => this.render(c))
  }

  render(c: CommentRecord): ThreadedCommentV3 {
    return commentV3(
      this.origin,
      this.slug,
      c,
      (this.children.get(c.id) ?? []).map((r) => this.render(r)),
    )
  }
}
