// An epic's stories and progress, against the real local service: progress
// comes with every epic list (its stats), never a request per epic; stories come
// when the epic is opened or followed, and a sync fetches again only stories it
// holds whose epic changed, a bounded number a run. A 404 means the epic is gone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Dexie from 'dexie'
import { IDBKeyRange } from 'fake-indexeddb'
import { v3 } from '../../../../testing/service.ts'
import { insertStory } from '../../../../testing/story-fixtures.ts'
import { stories as storeStories } from '../../../../src-server/resources/stories/story.ts'
import type { OutpostDb } from '../db.ts'
import { createSyncer, DEFAULT_SYNC_OPTIONS, type Syncer } from './index.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'

let world: World
let serviceNow = Date.parse('2025-06-02T09:00:00.000Z')
let localNow = 7_000_000
let transport: ReturnType<typeof countingTransport>
let syncer: Syncer
let db: OutpostDb

beforeAll(async () => {
  world = await startWorld({ seed: 'demo', clock: () => serviceNow })
  db = world.openDb()
  transport = countingTransport(world.transport)
  syncer = createSyncer({ db, transport, clock: () => localNow, options: { fileBudgetBytes: 0, storyRefreshesPerRun: 2 } })
  await syncer.sync()
})
afterAll(() => world.close())

type StatsV3 = {
  num_stories_done: number
  num_stories_started: number
  num_stories_unstarted: number
  num_stories_backlog: number
  num_stories_total: number
  num_points_done: number
  num_points: number
}
const serviceEpics = async () => (await v3(world.service).get('/epics')).body as { id: number; stats: StatsV3 }[]

async function counting<T>(run: () => Promise<T>): Promise<{ result: T; calls: Record<string, number> }> {
  transport.counted.reset()
  const result = await run()
  return { result, calls: Object.fromEntries(transport.counted.calls) }
}

describe('epic stories and progress', () => {
  it('the bootstrap fetches no stories, and stores every epic’s progress from the stats its list carries', async () => {
    expect(await db.stories.count()).toBe(0)
    expect(transport.counted.calls.get('epicStories.list')).toBeUndefined()
    const listed = await serviceEpics()
    expect(await db.epics.count()).toBe(listed.length)
    for (const e of listed) {
      const p = (await db.epics.get(e.id))?.progress
      expect(p).toMatchObject({
        done: e.stats.num_stories_done,
        started: e.stats.num_stories_started,
        unstarted: e.stats.num_stories_unstarted + e.stats.num_stories_backlog,
        total: e.stats.num_stories_total,
        points_done: e.stats.num_points_done,
        points_total: e.stats.num_points,
      })
    }
  })

  it('opening an epic fetches its stories (name, type, state, owners, estimate, link) with the epic, in one more request', async () => {
    const epic = (await serviceEpics()).find((e) => e.stats.num_stories_total >= 3)!
    const { result, calls } = await counting(() => syncer.refreshEpic(epic.id))
    expect(result?.id).toBe(epic.id)
    expect(calls).toEqual({ 'epics.v3Get': 1, 'epicHealth.history': 1, 'epicDocuments.list': 1, 'epicStories.list': 1 })
    // Only what the cache keeps crosses to the window.
    expect(transport.counted.log.find((l) => l.operation === 'epicStories.list')?.request.fields).toContain('app_url')
    const onService = (await v3(world.service).get(`/epics/${epic.id}/stories`)).body as any[]
    const cached = await db.stories.where('epic_id').equals(epic.id).toArray()
    expect(cached.map((s) => s.id).sort()).toEqual(onService.map((s) => s.id).sort())
    for (const s of onService) {
      expect(await db.stories.get(s.id)).toEqual({
        id: s.id,
        epic_id: epic.id,
        name: s.name,
        story_type: s.story_type,
        workflow_state_id: s.workflow_state_id,
        started: s.started,
        completed: s.completed,
        archived: s.archived,
        estimate: s.estimate,
        owner_ids: s.owner_ids,
        position: s.position,
        app_url: s.app_url,
        updated_at: s.updated_at,
      })
    }
    expect(await db.storyLists.get(epic.id)).toMatchObject({ epic_id: epic.id, fetchedAt: localNow })
  })

  it('following fetches an epic’s stories alone (one request); a 404 removes the epic with its stories and progress', async () => {
    const [, epic] = (await serviceEpics()).filter((e) => e.stats.num_stories_total > 0)
    const { result, calls } = await counting(() => syncer.refreshEpicStories(epic.id))
    expect(calls).toEqual({ 'epicStories.list': 1 })
    expect(result).toBe(
      epic.stats.num_stories_total +
        storeStories(world.service.ctx)
          .byParent(epic.id)
          .filter((s) => s.archived).length,
    )
    expect(await db.stories.where('epic_id').equals(epic.id).count()).toBe(result)

    expect((await v3(world.service).delete(`/epics/${epic.id}`)).status).toBe(204)
    expect(await syncer.refreshEpicStories(epic.id)).toBeNull()
    expect(await db.epics.get(epic.id)).toBeUndefined()
    expect(await db.stories.where('epic_id').equals(epic.id).count()).toBe(0)
    expect(await db.storyLists.get(epic.id)).toBeUndefined()
  })

  it('a sync fetches again only cached stories whose epic changed, at most storyRefreshesPerRun a run; none otherwise', async () => {
    const quiet = await counting(() => syncer.sync())
    expect(quiet.calls['epicStories.list']).toBeUndefined()

    // Stories of three epics cached; a story added on the service to each (their stats change, not their updated_at).
    const opened = (await db.storyLists.toArray()).map((l) => l.epic_id as number)
    const more = (await serviceEpics())
      .map((e) => e.id)
      .filter((id) => !opened.includes(id))
      .slice(0, 2)
    for (const id of more) await syncer.refreshEpicStories(id)
    const cachedWith = [...opened, ...more]
    expect(cachedWith.length).toBe(3)
    serviceNow += 60_000
    const added = cachedWith.map((epicId) => insertStory(world.service, { epic_id: epicId, name: `Added to ${epicId}`, estimate: 3 }))
    const other = (await serviceEpics()).find((e) => !cachedWith.includes(e.id))!
    insertStory(world.service, { epic_id: other.id, name: 'Not fetched' })

    // The sweep (when due) carries the stats: the progress moves, and two of the three story lists are fetched again.
    localNow += DEFAULT_SYNC_OPTIONS.sweepIntervalMs
    const first = await counting(() => syncer.sync())
    expect(first.result.storiesRefreshed).toBe(2)
    expect(first.calls['epicStories.list']).toBe(2)
    expect(transport.counted.log.filter((l) => l.operation === 'epicStories.list').map((l) => l.request.lane)).toEqual(['sync', 'sync'])
    expect((await db.epics.get(other.id))?.progress?.total).toBe(other.stats.num_stories_total + 1)
    // The epics whose stories are cached hold their progress as the service counts it now.
    const counted = new Map((await serviceEpics()).map((e) => [e.id, e.stats.num_stories_total]))
    for (const epicId of cachedWith) expect((await db.epics.get(epicId))?.progress?.total).toBe(counted.get(epicId))
    expect(await db.stories.where('epic_id').equals(other.id).count()).toBe(0)

    // The third waits for the next run; then all are current and a run fetches none.
    const second = await counting(() => syncer.sync())
    expect(second.calls['epicStories.list']).toBe(1)
    for (const s of added) expect((await db.stories.get(s.id))?.name).toBe(s.name)
    const third = await counting(() => syncer.sync())
    expect(third.calls['epicStories.list']).toBeUndefined()
  })

  it('a cache of the first version opens as the latest with its rows, the new tables empty and the unread indexes gone', async () => {
    const name = 'outpost:upgrade'
    const old = new Dexie(name, { indexedDB: world.indexedDB, IDBKeyRange })
    old.version(1).stores({ epics: 'id, updated_at, archived, epic_state_id, external_id, *owner_ids, *group_ids, *objective_ids, *label_ids', meta: 'key' })
    await old.table('epics').put({ id: 1, name: 'Kept', updated_at: '2025-01-01T00:00:00Z' })
    old.close()
    const upgraded = world.openDb(name)
    expect((await upgraded.epics.get(1))?.name).toBe('Kept')
    expect(await upgraded.stories.count()).toBe(0)
    expect(await upgraded.storyLists.count()).toBe(0)
    expect(await upgraded.epicNotices.count()).toBe(0)
    expect(upgraded.tables.map((t) => t.name)).not.toContain('epicProgress')
    expect(upgraded.verno).toBe(5)
    // What reads use stays; an epic's owners, teams, labels, state, archived and external id are indexed no more.
    expect(upgraded.epics.schema.indexes.map((i) => i.name).sort()).toEqual(['objective_ids', 'updated_at'])
    expect((await upgraded.epics.orderBy('updated_at').first())?.name).toBe('Kept')
  })
  it('a cache of the third version opens with each epic’s progress in its row, and the table of progress gone', async () => {
    const name = 'outpost:upgrade-progress'
    const old = new Dexie(name, { indexedDB: world.indexedDB, IDBKeyRange })
    old.version(3).stores({ epics: 'id, updated_at, *objective_ids', epicProgress: 'id', meta: 'key' })
    const progress = {
      done: 2,
      started: 1,
      unstarted: 3,
      total: 6,
      points_done: 5,
      points_started: 2,
      points_unstarted: 8,
      points_total: 15,
      last_story_update: '2025-01-02T00:00:00Z',
    }
    await old.table('epics').bulkPut([
      { id: 1, name: 'With progress', updated_at: '2025-01-01T00:00:00Z', objective_ids: [] },
      { id: 2, name: 'Without', updated_at: '2025-01-01T00:00:00Z', objective_ids: [] },
    ])
    await old.table('epicProgress').put({ id: 1, ...progress })
    old.close()
    const upgraded = world.openDb(name)
    expect(await upgraded.epics.get(1)).toEqual({ id: 1, name: 'With progress', updated_at: '2025-01-01T00:00:00Z', objective_ids: [], progress })
    expect(await upgraded.epics.get(2)).toEqual({ id: 2, name: 'Without', updated_at: '2025-01-01T00:00:00Z', objective_ids: [] })
    expect(upgraded.tables.map((t) => t.name)).not.toContain('epicProgress')
    expect(upgraded.verno).toBe(5)
  })
})
