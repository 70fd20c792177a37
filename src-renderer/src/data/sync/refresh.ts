// Details loaded when the user opens an entity: what the sync's list pages do
// not carry. An epic's v3 GET brings its threaded comments in full (authors,
// replies, times) and its fields with its position; its health history brings
// the text and author of each update; its doc list brings the doc links; its
// story list brings its stories (also fetched alone when the user follows it,
// and by a sync for epics whose stories are cached and may have changed). A
// 404 means the entity was deleted on the service: it leaves the cache.
// These run on the user's lane, outside the sync lock; the cache writers keep
// the newer version when a sync writes the same entity at the same time.
import type { DocV4 } from '../../../../src-shared/api/v4/docs.ts'
import type { DocSlimV3, DocV3 } from '../../../../src-shared/api/v3/docs.ts'
import type { EpicSlimV3, EpicV3, HealthV3 } from '../../../../src-shared/api/v3/epics.ts'
import type { Lane } from '../../../../src-shared/api/operations.ts'
import type { OutpostDb } from '../db.ts'
import { isNotFound, type Transport } from '../transport.ts'
import type { CachedDoc, CachedEpic, CachedHealth } from '../types.ts'
import { removeDocs, removeEpics, replaceDocLinks, writeEpicStories } from './cache.ts'
import { commentsFromV3, docFromV4, epicFromV3, healthFromV3, STORY_V3_FIELDS, type StoryV3Fields } from '../convert.ts'

export interface RefreshDeps {
  db: OutpostDb
  transport: Transport
  /** Stamps when an epic's stories were fetched. */
  clock?: () => number
}

const storiesOf = (transport: Transport, epicId: number, lane: Lane) =>
  transport.call<StoryV3Fields[]>('epicStories.list', { params: { epicId }, lane, fields: [...STORY_V3_FIELDS] })

/**
 * Loads an epic with everything the lists leave out (4 requests, in
 * parallel). Resolves with the cached epic, or null when it was deleted on the
 * service (and so removed from the cache).
 */
export async function refreshEpic({ db, transport, clock = Date.now }: RefreshDeps, id: number): Promise<CachedEpic | null> {
  const lane = 'user-read' as const
  let answers: [EpicV3, HealthV3[], DocSlimV3[], StoryV3Fields[]]
  try {
    answers = await Promise.all([
      transport.call<EpicV3>('epics.v3Get', { params: { id }, lane }),
      transport.call<HealthV3[]>('epicHealth.history', { params: { epicId: id }, lane }),
      transport.call<DocSlimV3[]>('epicDocuments.list', { params: { epicId: id }, lane }),
      storiesOf(transport, id, lane),
    ])
  } catch (error) {
    if (!isNotFound(error)) throw error
    await removeEpics(db, [id])
    return null
  }
  const [epic, history, docs, stories] = answers
  const fetchedAt = clock()
  return db.transaction('rw', [db.epics, db.epicComments, db.epicHealth, db.docEpics, db.stories, db.storyLists], async () => {
    const cached = await db.epics.get(id)
    // A sync or an outbox write-back stored a newer version meanwhile: it stands, with its comments
    // and health; the stories and progress are as fresh as they come (no write changes them).
    if (cached && cached.updated_at > epic.updated_at) {
      await writeEpicStories(db, id, stories, fetchedAt, { stats: epic.stats })
      return (await db.epics.get(id)) ?? cached
    }
    const row = epicFromV3(epic, cached?.description)
    // A GET carries the epic's stats; an answer without them leaves the cached progress standing.
    if (!row.progress && cached?.progress) row.progress = cached.progress
    await db.epics.put(row)
    const comments = commentsFromV3(id, epic.comments ?? [])
    // A comment the answer lacks was deleted on the service, unless it is newer than the version answered:
    // made after the GET was served (the user's own, its create confirmed while the answer came), it stays.
    const answered = new Set(comments.map((c) => c.id))
    await db.epicComments
      .where('epic_id')
      .equals(id)
      .filter((c) => !answered.has(c.id) && !(c.created_at > epic.updated_at))
      .delete()
    if (comments.length > 0) await db.epicComments.bulkPut(comments)
    const healths = history.map(healthFromV3).filter((h): h is CachedHealth => h !== null)
    const current = epic.health ? healthFromV3(epic.health) : null
    if (current && !healths.some((h) => h.id === current.id)) healths.unshift(current)
    await db.epicHealth.where('epic_id').equals(id).delete()
    if (healths.length > 0) await db.epicHealth.bulkPut(healths)
    await replaceDocLinks(
      db,
      'epic_id',
      id,
      docs.map((d) => ({ doc_id: d.id, epic_id: id })),
    )
    await writeEpicStories(db, id, stories, fetchedAt, { updated_at: epic.updated_at, stats: epic.stats })
    return row
  })
}

/**
 * Loads an epic's stories alone (1 request): when the user follows it, and for a sync that
 * refreshes the stories it holds. Resolves with how many, or null when the epic was deleted on
 * the service (and so removed from the cache).
 */
export async function refreshEpicStories({ db, transport, clock = Date.now }: RefreshDeps, id: number, lane: Lane = 'user-read'): Promise<number | null> {
  let stories: StoryV3Fields[]
  try {
    stories = await storiesOf(transport, id, lane)
  } catch (error) {
    if (!isNotFound(error)) throw error
    await removeEpics(db, [id])
    return null
  }
  await writeEpicStories(db, id, stories, clock(), {})
  return stories.length
}

/**
 * Loads a doc in both formats (a single GET answers one) and its epic links
 * (3 requests, in parallel). Resolves with the cached doc, or null when it was
 * deleted on the service (and so removed from the cache).
 */
export async function refreshDoc({ db, transport }: RefreshDeps, id: string): Promise<CachedDoc | null> {
  const lane = 'user-read' as const
  let answers: [DocV4, Pick<DocV3, 'content_html' | 'updated_at'>, EpicSlimV3[]]
  try {
    answers = await Promise.all([
      transport.call<DocV4>('documents.get', { params: { id }, lane }),
      transport.call<DocV3>('documents.v3Get', { params: { id }, query: { content_format: 'html' }, lane }),
      transport.call<EpicSlimV3[]>('documentEpics.list', { params: { docId: id }, lane }),
    ])
  } catch (error) {
    if (!isNotFound(error)) throw error
    await removeDocs(db, [id])
    return null
  }
  const [markdown, html, epics] = answers
  return db.transaction('rw', [db.docs, db.docEpics], async () => {
    const cached = await db.docs.get(id)
    if (cached && cached.updated_at > markdown.updated_at) return cached
    // The two GETs may straddle an edit: the HTML is only taken when it is of the same version
    // (else the cached HTML stays until the next sync's doc page brings both).
    const sameVersion = html.updated_at === markdown.updated_at
    const row = docFromV4({ ...markdown, content_html: sameVersion ? html.content_html : null }, cached)
    await db.docs.put(row)
    await replaceDocLinks(
      db,
      'doc_id',
      id,
      epics.map((e) => ({ doc_id: id, epic_id: e.id })),
    )
    return row
  })
}
