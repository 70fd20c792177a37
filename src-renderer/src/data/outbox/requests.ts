// The requests each kind's queued writes become, and how a create whose answer
// was lost is found again. Bodies are built from the cache's field names at
// send time; answers come back in the cache's shape (../convert.ts: partial
// rows where an answer leaves fields out, so the cached ones stay).
//
// Finding a create again:
// - epics, epic comments, categories and labels carry our external_id, but no
//   published list filters by it: epics and categories are walked most recently
//   updated first (v4, order_by=updated_at) back to just before the create
//   first left, one walk for all the creates of a lost bulk; an epic's comments
//   and the labels are one list each. A label's unique name would not do:
//   someone else may have taken it just before ours left, and theirs would pass
//   for ours.
// - docs, health, uploaded files, linked files and objectives cannot carry one.
//   They are matched on what the user wrote (title and markdown; status and
//   text; name and size; name, url and type; name and description), by the
//   token's member where the service records one, created no earlier than
//   RECONCILE_WINDOW_MS before the write first left (client and service clocks
//   may differ by that much), and never one a confirmed create of ours already
//   claimed. If several match, the oldest is ours. A false match needs the same
//   person to have made an identical item within minutes; a missed one would be
//   a duplicate, so the window leans wide.
import type { ListBody } from '../../../../src-shared/api/common.ts'
import type { OperationName, OperationQuery, OperationRequest } from '../../../../src-shared/api/operations.ts'
import type { DocV3 } from '../../../../src-shared/api/v3/docs.ts'
import type { EpicSlimV3, EpicV3, HealthV3, ThreadedCommentV3 } from '../../../../src-shared/api/v3/epics.ts'
import type { LinkedFileV3, UploadedFileV3 } from '../../../../src-shared/api/v3/files.ts'
import type { LabelV3 } from '../../../../src-shared/api/v3/labels.ts'
import type { ObjectiveV3 } from '../../../../src-shared/api/v3/objectives.ts'
import type { CategoryV4 } from '../../../../src-shared/api/v4/categories.ts'
import type { DocV4 } from '../../../../src-shared/api/v4/docs.ts'
import type { EpicV4 } from '../../../../src-shared/api/v4/epics.ts'
import {
  categoryFromV4,
  commentFromV3,
  commentsFromV3,
  EPIC_V3_FIELDS,
  EPIC_V4_FIELDS,
  epicFromV3,
  fileFromV3,
  healthFromV3,
  labelFromV3,
  linkedFileFromV3,
  objectiveFromV3,
  partialCommentFromV3,
  partialDocFromV3,
  partialDocFromV4,
  partialEpicFromV4,
} from '../convert.ts'
import type { OutpostDb } from '../db.ts'
import { isNotFound, type Transport } from '../transport.ts'
import type { CachedHealth, EntityId, OutboxRecord } from '../types.ts'
import { claimedIds, resolveId } from './ids.ts'
import { isLocalId, splitLinkId, type WritableKind } from './kinds.ts'

export const RECONCILE_WINDOW_MS = 15 * 60_000

export type Row = Record<string, unknown>

export interface RequestContext {
  db: OutpostDb
  transport: Transport
  /** The token's member id (asked once, then kept in meta). */
  me(): Promise<string | null>
}

/** A write that cannot be sent as it stands, found before sending (it fails like a 4xx would). */
export class LocalFailure extends Error {
  override readonly name = 'LocalFailure'
  constructor(
    message: string,
    readonly errors?: Record<string, string>,
  ) {
    super(message)
  }
}

/** The service says the entity is not there (a fetched comment that is only a deleted placeholder). */
export class Gone extends Error {
  override readonly name = 'Gone'
}

export interface KindRequests {
  /** Fields the create request takes; the rest of a create's payload follows as an update. */
  createFields: readonly string[]
  /** Sending the create twice makes one entity (a doc-epic link): no need to look before resending. */
  idempotentCreate?: boolean
  create?(ctx: RequestContext, r: OutboxRecord): Promise<Row>
  /** The entity a create made, if the service has it. */
  find?(ctx: RequestContext, r: OutboxRecord): Promise<Row | null>
  /** Creates that can go together in one request (all or nothing): which may, and how many at most. */
  batch?: CreateBatch
  /** The creates of a batch in one request; answers each record's entity by its seq. */
  createMany?(ctx: RequestContext, records: OutboxRecord[]): Promise<Map<number, Row>>
  /** The entities several creates made, those the service has, found in one look (by seq). */
  findMany?(ctx: RequestContext, records: OutboxRecord[]): Promise<Map<number, Row>>
  /** The entity as the service has it now (conflict checks). */
  fetch?(ctx: RequestContext, r: OutboxRecord): Promise<Row>
  /**
   * What the service keeps of a value an update sends, where that differs from the value (an optional text
   * cleared with null is kept as ""): so an update that was applied, its answer lost, is recognised as applied.
   */
  kept?(field: string, value: unknown): unknown
  update?(ctx: RequestContext, r: OutboxRecord, fields: Row): Promise<Row>
  remove?(ctx: RequestContext, r: OutboxRecord): Promise<void>
}

export interface CreateBatch {
  /** Records per request. */
  max: number
  /** Whether this create can go in a batch at all. */
  fits(r: OutboxRecord): boolean
  /** Bytes a batch may carry together (uploads), with each record's share. */
  maxBytes?: number
  bytes?(r: OutboxRecord): number
}

const LANE = 'user-write' as const
const call = <T>(ctx: RequestContext, op: OperationName, request: OperationRequest = {}) => ctx.transport.call<T>(op, { lane: LANE, ...request })
const num = (id: EntityId | null | undefined) => Number(id)

/** Walks a v4 list page by page while `more(page)` says the next page may still matter. */
export async function walkList<T>(
  ctx: RequestContext,
  op: OperationName,
  query: OperationQuery,
  more: (page: T[]) => boolean = () => true,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<{ items: T[]; ended: boolean }> {
  const items: T[] = []
  let q = query
  for (let pages = 1; ; pages++) {
    const page = await call<ListBody<T>>(ctx, op, { query: q })
    items.push(...page.entities)
    if (!page.next_page_url) return { items, ended: true }
    if (!more(page.entities) || pages >= maxPages) return { items, ended: false }
    q = Object.fromEntries(new URL(page.next_page_url, 'http://list.invalid').searchParams)
  }
}

// ---- bodies ----

/** A v4 epic body (create, PATCH, bulk item): teams are `team_ids`; nulls the API cannot take are left out. */
export function epicV4Body(fields: Row): Row {
  const body: Row = {}
  for (const [field, value] of Object.entries(fields)) {
    if (field === 'label_ids') continue
    if ((field === 'epic_state_id' || field === 'requested_by_id') && value === null) continue
    body[field === 'group_ids' ? 'team_ids' : field] = value
  }
  return body
}

/** A v3 epic body: labels go by name (the cache knows them by id). */
async function epicV3Body(ctx: RequestContext, fields: Row): Promise<Row> {
  const body: Row = {}
  for (const [field, value] of Object.entries(fields)) {
    if ((field === 'epic_state_id' || field === 'requested_by_id') && value === null) continue
    if (field === 'label_ids') body.labels = await labelParams(ctx, value as number[])
    else body[field] = value
  }
  return body
}

/** Labels' names by id: from the cache, or, for those it lacks (a cache lost, not synced again yet), from the service's list. */
async function labelParams(ctx: RequestContext, ids: number[]): Promise<{ name: string }[]> {
  let rows: ({ name: string } | undefined)[] = await ctx.db.labels.bulkGet(ids)
  if (rows.some((r) => !r)) {
    const listed = new Map((await call<LabelV3[]>(ctx, 'labels.list')).map((l) => [l.id, l]))
    rows = rows.map((r, i) => r ?? listed.get(ids[i]))
  }
  return ids.map((id, i) => {
    if (!rows[i]) throw new LocalFailure(`Label ${id} is not known here; sync and try again.`, { label_ids: `unknown label ${id}` })
    return { name: rows[i]!.name }
  })
}

/** Categories' names by id: from the cache, or, for those it lacks, from the service. */
async function categoryParams(ctx: RequestContext, ids: EntityId[]): Promise<{ name: string }[]> {
  const cached: ({ name: string } | undefined)[] = await ctx.db.categories.bulkGet(ids.map(num))
  const rows = await Promise.all(
    cached.map(
      async (r, i) =>
        r ??
        (await call<CategoryV4>(ctx, 'categories.get', { params: { id: num(ids[i]) } }).catch((error) => {
          if (isNotFound(error)) return undefined
          throw error
        })),
    ),
  )
  return ids.map((id, i) => {
    if (!rows[i]) throw new LocalFailure(`Category ${id} is not known here; sync and try again.`, { category_ids: `unknown category ${id}` })
    return { name: rows[i]!.name }
  })
}

function pick(fields: Row, names: readonly string[]): Row {
  return Object.fromEntries(Object.entries(fields).filter(([k, v]) => names.includes(k) && v !== undefined))
}

function withoutNulls(fields: Row): Row {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined))
}

/** A v4 list, most recently updated first, archived items too, in pages of 100. */
const RECENTLY_UPDATED = { order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived', limit: 100 } as const

/**
 * What a conflict check reads of an epic: what an update can change, not its comments and health (most of a
 * page's bytes); its description only when a change sets one (without it a row has none, so the cached one stays).
 */
const EPIC_CHECK_FIELDS = EPIC_V4_FIELDS.filter((f) => f !== 'comments' && f !== 'healths')

/** The earliest moment any of these creates may have been made: when the first left, less the clocks' leeway. */
const firstSent = (records: OutboxRecord[]) => Math.min(...records.map((r) => r.sentAt ?? r.createdAt)) - RECONCILE_WINDOW_MS

/**
 * Candidates for a create without external_id: recent enough, not already ours, oldest first.
 * `taken` holds ids already matched to other records of the same look (several files of one upload).
 */
async function oldestUnclaimed<T extends { id: EntityId; created_at: string }>(
  ctx: RequestContext,
  kind: WritableKind,
  r: OutboxRecord,
  list: T[],
  matches: (item: T) => boolean,
  taken: ReadonlySet<string> = new Set(),
): Promise<T | null> {
  // What this create's own local id is known to have become (its confirmation heard by the journal, its answer's write
  // refused: restore.ts) is the one.
  const own = r.became !== undefined ? String(r.became) : isLocalId(r.entityId) ? String(await resolveId(ctx.db, kind, r.entityId)) : null
  const mine = own !== null && !isLocalId(own) ? list.find((item) => String(item.id) === own) : undefined
  if (mine) return mine
  const claimed = await claimedIds(ctx.db, kind)
  const since = firstSent([r])
  const found = list
    .filter((item) => !claimed.has(String(item.id)) && !taken.has(String(item.id)) && Date.parse(item.created_at) >= since && matches(item))
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
  return found[0] ?? null
}

// ---- each kind ----

const EPIC_CREATE_FIELDS = [
  'name',
  'description',
  'epic_state_id',
  'deadline',
  'planned_start_date',
  'requested_by_id',
  'follower_ids',
  'owner_ids',
  'objective_ids',
  'group_ids',
  'label_ids',
] as const

/** An epic create the v4 body can carry: labels go only through v3, one epic a request. */
const withoutLabels = (r: OutboxRecord) => !Array.isArray(r.payload.label_ids) || r.payload.label_ids.length === 0

function epicCreateV4Body(r: OutboxRecord): Row {
  const fields = pick(r.payload, EPIC_CREATE_FIELDS)
  delete fields.label_ids
  return { ...epicV4Body(fields), external_id: r.externalId }
}

const epic: KindRequests = {
  createFields: EPIC_CREATE_FIELDS,
  batch: { max: 100, fits: withoutLabels },
  async create(ctx, r) {
    const fields = pick(r.payload, EPIC_CREATE_FIELDS)
    if (Array.isArray(fields.label_ids) && fields.label_ids.length > 0) {
      // Only v3 takes labels on an epic.
      const body = { ...(await epicV3Body(ctx, fields)), external_id: r.externalId }
      return epicFromV3(await call<EpicV3>(ctx, 'epics.v3Create', { body }))
    }
    return partialEpicFromV4(await call<EpicV4>(ctx, 'epics.create', { body: epicCreateV4Body(r) }))
  },
  /** POST /epics/bulk: up to 100 creates in one request, each with its external_id (which maps the answer back). */
  async createMany(ctx, records) {
    const answer = await call<ListBody<EpicV4>>(ctx, 'epics.bulkCreate', { body: { epics: records.map(epicCreateV4Body) }, query: { limit: 100 } })
    const byExternalId = new Map(answer.entities.map((e) => [e.external_id, e]))
    return new Map(
      records.flatMap((r) => {
        const e = byExternalId.get(r.externalId ?? null)
        return e ? [[r.seq!, partialEpicFromV4(e) as Row] as const] : []
      }),
    )
  },
  async find(ctx, r) {
    return (await epic.findMany!(ctx, [r])).get(r.seq!) ?? null
  },
  /**
   * The epics creates made, those the service has: the most recently updated epics first, page by page, until
   * every external_id is found or the epics were last updated before any of these creates first left (an epic's
   * updated_at is never before its creation). No list filters by external_id: v3 GET /epics takes none.
   */
  async findMany(ctx, records) {
    const wanted = new Map<string | null | undefined, OutboxRecord>(records.map((r) => [r.externalId, r]))
    const ours = (e: EpicV4) => e.external_id !== null && wanted.has(e.external_id)
    const since = firstSent(records)
    let seen = 0
    const { items } = await walkList<EpicV4>(ctx, 'epics.list', RECENTLY_UPDATED, (page) => {
      seen += page.filter(ours).length
      return seen < records.length && page.length > 0 && Date.parse(page[page.length - 1].updated_at) >= since
    })
    return new Map(items.filter(ours).map((e) => [wanted.get(e.external_id)!.seq!, partialEpicFromV4(e) as Row]))
  },
  async fetch(ctx, r) {
    return partialEpicFromV4(await call<EpicV4>(ctx, 'epics.get', { params: { id: num(r.entityId as EntityId) } }))
  },
  async update(ctx, r, fields) {
    const id = num(r.entityId)
    if ('label_ids' in fields) return epicFromV3(await call<EpicV3>(ctx, 'epics.v3Update', { params: { id }, body: await epicV3Body(ctx, fields) }))
    return partialEpicFromV4(await call<EpicV4>(ctx, 'epics.update', { params: { id }, body: epicV4Body(fields) }))
  },
  async remove(ctx, r) {
    // The user chose to delete it: archived or not (v4 refuses a live epic without force).
    await call(ctx, 'epics.delete', { params: { id: num(r.entityId) }, query: { force: true } })
  },
}

/** PATCH /epics/bulk: up to 100 epic updates in one request. Answers the epics as they are now. */
export async function bulkUpdateEpics(ctx: RequestContext, items: { id: number; fields: Row }[]): Promise<Map<number, Row>> {
  const body = { epics: items.map(({ id, fields }) => ({ id, ...epicV4Body(fields) })) }
  const answer = await call<ListBody<EpicV4>>(ctx, 'epics.bulkUpdate', { body, query: { limit: 100 } })
  return new Map(answer.entities.map((e) => [e.id, partialEpicFromV4(e) as Row]))
}

/**
 * The epics updated since `since` (newest first), as far as `maxPages` pages of `pageSize` go; for conflict
 * checks of many epics at once.
 */
export async function epicsChangedSince(
  ctx: RequestContext,
  since: string,
  maxPages: number,
  pageSize = 100,
  withDescriptions = true,
): Promise<{ rows: Map<number, Row>; coveredFrom: string | null }> {
  const limit = Date.parse(since)
  const fields = EPIC_CHECK_FIELDS.filter((f) => withDescriptions || f !== 'description').join(',')
  const { items, ended } = await walkList<EpicV4>(
    ctx,
    'epics.list',
    { ...RECENTLY_UPDATED, limit: pageSize, fields },
    (page) => page.length > 0 && Date.parse(page[page.length - 1].updated_at) >= limit,
    maxPages,
  )
  const rows = new Map(
    items.map((e) => {
      const row = partialEpicFromV4(e) as Row
      if (!withDescriptions) delete row.description
      return [e.id, row]
    }),
  )
  // Everything updated at or after coveredFrom was seen (null: everything was).
  const coveredFrom = ended || items.length === 0 ? null : items[items.length - 1].updated_at
  return { rows, coveredFrom }
}

/**
 * Every epic as the service has it now, in one request (v3 GET /epics): for conflict checks of many epics
 * whose changes a few pages of "changed since" would not cover. Descriptions only when asked (they are
 * most of the bytes); without them a row has none, so the cached one stays.
 */
export async function allEpics(ctx: RequestContext, withDescriptions: boolean): Promise<Map<number, Row>> {
  const list = await call<EpicSlimV3[]>(ctx, 'epics.v3List', { query: withDescriptions ? { includes_description: true } : {}, fields: EPIC_V3_FIELDS })
  return new Map(
    list.map((e) => {
      const row: Row = epicFromV3(e)
      if (e.description === undefined) delete row.description
      return [e.id, row]
    }),
  )
}

const comment: KindRequests = {
  createFields: ['text'],
  async create(ctx, r) {
    const epicId = num(r.params?.epic_id)
    const parentId = r.params?.parent_id ?? null
    const body = { text: r.payload.text, external_id: r.externalId }
    const answer =
      parentId === null
        ? await call<ThreadedCommentV3>(ctx, 'epicComments.create', { params: { epicId }, body })
        : await call<ThreadedCommentV3>(ctx, 'epicComments.reply', { params: { epicId, commentId: num(parentId) }, body })
    return commentFromV3(epicId, answer, parentId === null ? null : num(parentId))
  },
  async find(ctx, r) {
    const epicId = num(r.params?.epic_id)
    const threads = await call<ThreadedCommentV3[]>(ctx, 'epicComments.list', { params: { epicId } })
    return commentsFromV3(epicId, threads).find((c) => c.external_id === r.externalId) ?? null
  },
  async fetch(ctx, r) {
    const c = await call<ThreadedCommentV3>(ctx, 'epicComments.get', { params: { epicId: num(r.params?.epic_id), commentId: num(r.entityId) } })
    if (c.deleted) throw new Gone('The comment was deleted.')
    // The answer does not say which comment it replies to; the cache knows.
    return partialCommentFromV3(num(r.params?.epic_id), c)
  },
  async update(ctx, r, fields) {
    const epicId = num(r.params?.epic_id)
    const c = await call<ThreadedCommentV3>(ctx, 'epicComments.update', { params: { epicId, commentId: num(r.entityId) }, body: { text: fields.text } })
    return partialCommentFromV3(epicId, c)
  },
  async remove(ctx, r) {
    await call(ctx, 'epicComments.delete', { params: { epicId: num(r.params?.epic_id), commentId: num(r.entityId) } })
  },
}

const health: KindRequests = {
  createFields: ['status', 'text'],
  async create(ctx, r) {
    const epicId = num(r.params?.epic_id)
    const answer = await call<HealthV3>(ctx, 'epicHealth.create', { params: { epicId }, body: { status: r.payload.status, text: r.payload.text ?? '' } })
    const row = healthFromV3(answer)
    if (!row) throw new LocalFailure('The service answered the new health update without its id.')
    return row
  },
  async find(ctx, r) {
    const epicId = num(r.params?.epic_id)
    const [history, me] = await Promise.all([call<HealthV3[]>(ctx, 'epicHealth.history', { params: { epicId } }), ctx.me()])
    const list = history.map((h) => healthFromV3(h)).filter((h): h is CachedHealth => h !== null)
    const text = r.payload.text ?? ''
    const found = await oldestUnclaimed(ctx, 'health', r, list, (h) => h.status === r.payload.status && h.text === text && h.author_id === me)
    return found ?? null
  },
}

const doc: KindRequests = {
  createFields: ['title', 'content_markdown'],
  async create(ctx, r) {
    const body = { title: r.payload.title, content: r.payload.content_markdown ?? '', content_format: 'markdown' }
    return partialDocFromV4(await call<DocV4>(ctx, 'documents.create', { body }))
  },
  async find(ctx, r) {
    const me = await ctx.me()
    const since = firstSent([r])
    const { items } = await walkList<DocV4>(
      ctx,
      'documents.list',
      { order_by: 'created_at', order_dir: 'desc', filter: 'include_archived', limit: 100 },
      (page) => page.length > 0 && Date.parse(page[page.length - 1].created_at) >= since,
    )
    // The service keeps a doc as HTML and answers its own markdown for it (`<b>x</b>` comes back as `**x**`,
    // `a\b` as `a\\b`): a doc with exactly what the user wrote is taken first, else one with the same title.
    const markdown = r.payload.content_markdown ?? ''
    const mine = (d: DocV4) => d.title === r.payload.title && (d.creator?.id ?? null) === me
    const found =
      (await oldestUnclaimed(ctx, 'doc', r, items, (d) => mine(d) && (d.content_markdown ?? '') === markdown)) ??
      (await oldestUnclaimed(ctx, 'doc', r, items, mine))
    return found ? partialDocFromV4(found) : null
  },
  async fetch(ctx, r) {
    return partialDocFromV4(await call<DocV4>(ctx, 'documents.get', { params: { id: r.entityId } }))
  },
  async update(ctx, r, fields) {
    const body: Row = { content_format: 'markdown' }
    if (fields.title !== undefined) body.title = fields.title
    if (fields.content_markdown !== undefined) body.content = fields.content_markdown
    const row = partialDocFromV3(await call<DocV3>(ctx, 'documents.update', { params: { id: r.entityId }, body }))
    if (fields.content_markdown !== undefined) {
      // v3 answers one content form; the HTML the cache shows comes from the service's own rendering.
      row.content_html = await call<DocV3>(ctx, 'documents.v3Get', { params: { id: r.entityId }, query: { content_format: 'html' } })
        .then((d) => d.content_html ?? '')
        .catch(() => '')
    }
    return row
  },
  async remove(ctx, r) {
    await call(ctx, 'documents.delete', { params: { id: r.entityId } })
  },
}

const docEpic: KindRequests = {
  createFields: [],
  idempotentCreate: true,
  async create(ctx, r) {
    const { doc_id, epic_id } = splitLinkId(r.entityId)
    await call(ctx, 'documentEpics.link', { params: { docId: doc_id, epicId: num(epic_id) } })
    return { doc_id, epic_id }
  },
  async remove(ctx, r) {
    const { doc_id, epic_id } = splitLinkId(r.entityId)
    await call(ctx, 'documentEpics.unlink', { params: { docId: doc_id, epicId: num(epic_id) } })
  },
}

/** The service takes up to four files a request (file0 to file3). */
export const FILES_PER_UPLOAD = 4
/** Bytes one upload request carries at most (one file may be larger and goes alone): a request lost on the way is cheap to send again. */
export const UPLOAD_BYTES = 50 * 1024 * 1024

function uploadOf(r: OutboxRecord): { path: string; name: string } {
  if (!r.staged) throw new LocalFailure('The file to upload was not kept; drop it again.')
  return { path: r.staged.path, name: String(r.payload.name ?? r.staged.name) }
}

/** The uploaded file a record made: same name and size, by the token's member. */
const sameUpload = (r: OutboxRecord, me: string | null) => {
  const name = String(r.payload.name ?? r.staged?.name)
  const size = r.staged?.size ?? r.payload.size
  return (f: UploadedFileV3) => f.name === name && f.size === size && f.uploader_id === me
}

const file: KindRequests = {
  createFields: ['name', 'size', 'content_type'],
  batch: { max: FILES_PER_UPLOAD, fits: (r) => r.staged !== undefined, maxBytes: UPLOAD_BYTES, bytes: (r) => r.staged?.size ?? 0 },
  async create(ctx, r) {
    const answer = await ctx.transport.upload<UploadedFileV3[]>([uploadOf(r)], { lane: LANE })
    return fileFromV3(answer[0])
  },
  /** Several files in one upload; the service answers them in the order sent. */
  async createMany(ctx, records) {
    const answer = await ctx.transport.upload<UploadedFileV3[]>(records.map(uploadOf), { lane: LANE })
    return new Map(records.flatMap((r, i) => (answer[i] ? [[r.seq!, fileFromV3(answer[i])] as const] : [])))
  },
  async find(ctx, r) {
    return (await file.findMany!(ctx, [r])).get(r.seq!) ?? null
  },
  /** One list for all: each record takes the oldest match no confirmed create and no earlier record here took. */
  async findMany(ctx, records) {
    const [list, me] = await Promise.all([call<UploadedFileV3[]>(ctx, 'files.list'), ctx.me()])
    const taken = new Set<string>()
    const found = new Map<number, Row>()
    for (const r of records) {
      const match = await oldestUnclaimed(ctx, 'file', r, list, sameUpload(r, me), taken)
      if (!match) continue
      taken.add(String(match.id))
      found.set(r.seq!, fileFromV3(match))
    }
    return found
  },
  async fetch(ctx, r) {
    return fileFromV3(await call<UploadedFileV3>(ctx, 'files.get', { params: { id: num(r.entityId) } }))
  },
  async update(ctx, r, fields) {
    const body = pick(fields, ['name', 'description'])
    if (body.description === null) body.description = ''
    return fileFromV3(await call<UploadedFileV3>(ctx, 'files.update', { params: { id: num(r.entityId) }, body }))
  },
  kept: (field, value) => (field === 'description' && value === null ? '' : value),
  async remove(ctx, r) {
    await call(ctx, 'files.delete', { params: { id: num(r.entityId) } })
  },
}

const LINKED_FILE_FIELDS = ['name', 'type', 'url', 'description', 'content_type', 'size', 'thumbnail_url'] as const
/**
 * What an update may change (UPDATABLE.linkedFile): the published UpdateLinkedFile takes no content_type and
 * cannot clear a thumbnail or a size (a URL, an integer, never null), so those are set when the link is made.
 */
const LINKED_FILE_UPDATES = ['name', 'type', 'url', 'description'] as const

const linkedFile: KindRequests = {
  createFields: LINKED_FILE_FIELDS,
  async create(ctx, r) {
    const body = withoutNulls(pick(r.payload, LINKED_FILE_FIELDS))
    return linkedFileFromV3(await call<LinkedFileV3>(ctx, 'linkedFiles.create', { body }))
  },
  async find(ctx, r) {
    const [list, me] = await Promise.all([call<LinkedFileV3[]>(ctx, 'linkedFiles.list'), ctx.me()])
    const p = r.payload
    const found = await oldestUnclaimed(ctx, 'linkedFile', r, list, (f) => f.name === p.name && f.url === p.url && f.type === p.type && f.uploader_id === me)
    return found ? linkedFileFromV3(found) : null
  },
  async fetch(ctx, r) {
    return linkedFileFromV3(await call<LinkedFileV3>(ctx, 'linkedFiles.get', { params: { id: num(r.entityId) } }))
  },
  async update(ctx, r, fields) {
    const body = pick(fields, LINKED_FILE_UPDATES)
    // The description is cleared with "", which the service keeps.
    if (body.description === null) body.description = ''
    return linkedFileFromV3(await call<LinkedFileV3>(ctx, 'linkedFiles.update', { params: { id: num(r.entityId) }, body }))
  },
  kept: (field, value) => (field === 'description' && value === null ? '' : value),
  async remove(ctx, r) {
    await call(ctx, 'linkedFiles.delete', { params: { id: num(r.entityId) } })
  },
}

const category: KindRequests = {
  createFields: ['name', 'color'],
  async create(ctx, r) {
    const body = { ...withoutNulls(pick(r.payload, ['name', 'color'])), external_id: r.externalId }
    return categoryFromV4(await call<CategoryV4>(ctx, 'categories.create', { body }))
  },
  /** Like an epic's: the most recently updated categories, back to just before the create first left. */
  async find(ctx, r) {
    const ours = (c: CategoryV4) => c.external_id === r.externalId
    const { items } = await walkList<CategoryV4>(
      ctx,
      'categories.list',
      RECENTLY_UPDATED,
      (page) => !page.some(ours) && page.length > 0 && Date.parse(page[page.length - 1].updated_at) >= firstSent([r]),
    )
    const found = items.find(ours)
    return found ? categoryFromV4(found) : null
  },
  async fetch(ctx, r) {
    return categoryFromV4(await call<CategoryV4>(ctx, 'categories.get', { params: { id: num(r.entityId) } }))
  },
  async update(ctx, r, fields) {
    const body = pick(fields, ['name', 'color', 'archived'])
    return categoryFromV4(await call<CategoryV4>(ctx, 'categories.update', { params: { id: num(r.entityId) }, body }))
  },
  async remove(ctx, r) {
    await call(ctx, 'categories.delete', { params: { id: num(r.entityId) } })
  },
}

async function objectiveBody(ctx: RequestContext, fields: Row): Promise<Row> {
  const body: Row = {}
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'category_ids') body.categories = await categoryParams(ctx, v as EntityId[])
    else if (v !== null && v !== undefined) body[k] = v
  }
  return body
}

const objective: KindRequests = {
  createFields: ['name', 'description', 'state', 'category_ids'],
  async create(ctx, r) {
    const body = await objectiveBody(ctx, pick(r.payload, ['name', 'description', 'state', 'category_ids']))
    return objectiveFromV3(await call<ObjectiveV3>(ctx, 'objectives.create', { body }))
  },
  async find(ctx, r) {
    const list = await call<ObjectiveV3[]>(ctx, 'objectives.list')
    const description = r.payload.description ?? ''
    const found = await oldestUnclaimed(ctx, 'objective', r, list, (o) => o.name === r.payload.name && o.description === description)
    return found ? objectiveFromV3(found) : null
  },
  async fetch(ctx, r) {
    return objectiveFromV3(await call<ObjectiveV3>(ctx, 'objectives.get', { params: { id: num(r.entityId) } }))
  },
  async update(ctx, r, fields) {
    const body = await objectiveBody(ctx, fields)
    return objectiveFromV3(await call<ObjectiveV3>(ctx, 'objectives.update', { params: { id: num(r.entityId) }, body }))
  },
  async remove(ctx, r) {
    await call(ctx, 'objectives.delete', { params: { id: num(r.entityId) } })
  },
}

/** Labels can only be made (the API has no label update or delete here); an epic names them by name (epicV3Body). */
const label: KindRequests = {
  createFields: ['name', 'color'],
  async create(ctx, r) {
    const body = { ...withoutNulls(pick(r.payload, ['name', 'color'])), ...(r.externalId && { external_id: r.externalId }) }
    return labelFromV3(await call<LabelV3>(ctx, 'labels.create', { body }))
  },
  async find(ctx, r) {
    // By our external_id: a label someone else made with that name is not ours, however recent. The create is
    // sent again, and the service says the name is taken (the user picks another).
    const list = await call<LabelV3[]>(ctx, 'labels.list')
    const found = list.find((l) => l.external_id !== null && l.external_id === r.externalId)
    return found ? labelFromV3(found) : null
  },
}

export const REQUESTS: Record<WritableKind, KindRequests> = { epic, comment, health, doc, docEpic, file, linkedFile, category, objective, label }

/** A field name of the service's error (`epics[3].team_ids`, `content`) as the payload's field. */
export function payloadField(serviceField: string): string {
  const field = serviceField.replace(/^[a-z_]+\[\d+\]\./, '').replace(/\[\d+\]$/, '')
  const renamed: Record<string, string> = { team_ids: 'group_ids', labels: 'label_ids', content: 'content_markdown', categories: 'category_ids' }
  return renamed[field] ?? field
}
