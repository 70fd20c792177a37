// Stories and the rest of the read-only story graph (no story writes exist in
// this API): v3 epic and external-link story lists, v4 branches with their
// stories and pull requests.
import { Type } from 'typebox'
import { FieldsQuery, Id, LIMITS, listQuery } from '../../../src-shared/api/common.ts'
import { ExternalLinkQueryV3, StoriesQueryV3 } from '../../../src-shared/api/v3/stories.ts'
import { BRANCH_LIST, BRANCH_PULL_REQUEST_LIST, BRANCH_STORY_LIST, BranchV4, PullRequestV4 } from '../../../src-shared/api/v4/stories.ts'
import type { Resource } from '../../resource.ts'
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { oneEntity, origin, sortBy } from '../../pages.ts'
import { createDefaultWorkflow, seedStoryGraph } from './seed.ts'
import {
  branches,
  branchV4,
  orderStories,
  pullRequests,
  pullRequestV4,
  stories,
  storiesV4,
  storiesV3,
  STORY_FIELDS,
  type BranchRecord,
  type PullRequestRecord,
  type StoryRecord,
} from './story.ts'

const BRANCH_FIELDS = Object.keys(BranchV4.properties)
const PULL_REQUEST_FIELDS = Object.keys(PullRequestV4.properties)

function storiesOf(ctx: ServiceContext, ids: number[]): StoryRecord[] {
  return ids.map((id) => stories(ctx).get(id)).filter((s): s is StoryRecord => !!s)
}

/** "Branches associated with a story or used in a pull request associated with a story" (part 2 §4.2). */
function listedBranches(ctx: ServiceContext): BranchRecord[] {
  const withStoryPr = new Set(
    pullRequests(ctx)
      .all()
      .filter((p) => p.story_ids.length > 0)
      .map((p) => p.branch_id),
  )
  return branches(ctx)
    .all()
    .filter((b) => b.story_ids.length > 0 || withStoryPr.has(b.id))
}

const IdParams = Type.Object({ id: Id })
const V4IdParams = Type.Object({ workspace: Type.String(), id: Id })

export const storiesResource: Resource = {
  init: (ctx) => {
    createDefaultWorkflow(ctx)
  },

  seed: seedStoryGraph,

  v3: (app, { ctx }) => {
    app.get('/epics/:id/stories', { schema: { params: IdParams, querystring: StoriesQueryV3 } }, async (req) => {
      ctx.col('epic').require(req.params.id)
      const o = origin(req)
      return storiesV3(ctx, o, stories(ctx).byParent(req.params.id), req.query.includes_description === true)
    })

    app.get('/external-link/stories', { schema: { querystring: ExternalLinkQueryV3 } }, async (req) => {
      const link = req.query.external_link
      if (link.length > LIMITS.externalLink) {
        throw ApiError.unprocessable(`Too long: external_link must be at most ${LIMITS.externalLink} characters.`, {
          external_link: `must be at most ${LIMITS.externalLink} characters`,
        })
      }
      const o = origin(req)
      return storiesV3(
        ctx,
        o,
        stories(ctx)
          .all()
          .filter((s) => s.external_links.includes(link)),
      )
    })
  },

  v4: (app, { ctx, pager, refs }) => {
    app.get('/:workspace/branches', { schema: { querystring: listQuery(BRANCH_LIST.orderBy, BRANCH_LIST.filter) } }, async (req) => {
      const r = refs(req)
      return pager.list(req, req.query, {
        fieldNames: BRANCH_FIELDS,
        select: (q) => {
          const kept = listedBranches(ctx).filter((b) => q.filter === 'include_deleted' || !b.deleted)
          const key = q.order_by as 'name' | 'updated_at' | undefined
          return (key ? sortBy(kept, (b) => b[key], q.order_dir) : sortBy(kept, (b) => b.id, q.order_dir)).map((b) => b.id)
        },
        render: (ids) =>
          ids
            .map((id) => branches(ctx).get(id))
            .filter((b): b is BranchRecord => !!b)
            .map((b) => branchV4(ctx, r, b)),
      })
    })

    app.get('/:workspace/branches/:id', { schema: { params: V4IdParams, querystring: FieldsQuery } }, async (req) =>
      oneEntity(branchV4(ctx, refs(req), branches(ctx).require(req.params.id)), req.query, BRANCH_FIELDS),
    )

    app.get(
      '/:workspace/branches/:id/stories',
      { schema: { params: V4IdParams, querystring: listQuery(BRANCH_STORY_LIST.orderBy, BRANCH_STORY_LIST.filter) } },
      async (req) => {
        const branch = branches(ctx).require(req.params.id)
        const r = refs(req)
        return pager.list(req, req.query, {
          fieldNames: STORY_FIELDS,
          select: (q) => orderStories(storiesOf(ctx, branch.story_ids), q),
          render: (ids) => storiesV4(ctx, r, ids),
        })
      },
    )

    app.get(
      '/:workspace/branches/:id/pull-requests',
      { schema: { params: V4IdParams, querystring: listQuery(BRANCH_PULL_REQUEST_LIST.orderBy, BRANCH_PULL_REQUEST_LIST.filter) } },
      async (req) => {
        const branch = branches(ctx).require(req.params.id)
        const r = refs(req)
        return pager.list(req, req.query, {
          fieldNames: PULL_REQUEST_FIELDS,
          select: (q) => {
            // include_closed is this list's default filter.
            const kept = pullRequests(ctx)
              .byParent(branch.id)
              .filter((p) => q.filter !== 'exclude_closed' || !p.closed)
            const key = q.order_by as 'updated_at' | 'created_at' | undefined
            return (key ? sortBy(kept, (p) => p[key], q.order_dir) : sortBy(kept, (p) => p.id, q.order_dir)).map((p) => p.id)
          },
          render: (ids) =>
            ids
              .map((id) => pullRequests(ctx).get(id))
              .filter((p): p is PullRequestRecord => !!p)
              .map((p) => pullRequestV4(r, p)),
        })
      },
    )
  },
}
