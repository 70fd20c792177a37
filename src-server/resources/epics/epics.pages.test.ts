// A page of v4 epics is rendered in one go (each kind it refers to read once for the
// whole page). These check that each epic of a page is the epic one reads alone, that
// its related lists are what the v3 operations read epic by epic, and that a page
// shows every write made before it, also from a snapshot taken before the write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../index.ts'
import { testService, v3, walk } from '../../../testing/service.ts'
import { memberId, v4 } from '../../../testing/epic-fixtures.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: 'demo' })
})
afterAll(() => service.close())

interface Page<T = any> {
  entities: T[]
  next_page_url?: string
}
const ids = (page: { entities: { id: unknown }[] }) => page.entities.map((e) => e.id)
const cursorOf = (page: Page) => new URL(page.next_page_url!).searchParams.get('cursor')!

/** Every comment of a v3 thread, depth first: a parent before its replies. */
function flatten(comments: { id: number; created_at: string; comments: any[] }[]): { id: number; created_at: string }[] {
  return comments.flatMap((c) => [c, ...flatten(c.comments)])
}

describe('a page of v4 epics', () => {
  it('renders each epic exactly as the epic alone, on every page and in either order', async () => {
    for (const query of [{ limit: 7 }, { limit: 10, order_by: 'updated_at', order_dir: 'desc' }, { limit: 100, filter: 'include_archived' }]) {
      const epics = await walk(v4(service), '/epics', query)
      expect(epics.length).toBeGreaterThan(30)
      for (const epic of epics) {
        const alone = await v4(service).get(`/epics/${epic.id}`)
        expect(epic).toEqual(alone.body)
      }
    }
  })

  it('lists what the v3 operations read epic by epic: comments, health history, stories, people, teams, labels', async () => {
    const epics = await walk(v4(service), '/epics', { limit: 100, filter: 'include_archived' })
    const slimIds = (page: { entities: { id: unknown }[]; current_items: number; total_items: number }) => {
      expect(page.current_items).toBe(page.entities.length)
      expect(page.total_items).toBe(page.entities.length)
      return ids(page)
    }
    let seen = { comments: 0, healths: 0, stories: 0 }
    for (const epic of epics) {
      const full = (await v3(service).get(`/epics/${epic.id}`)).body
      const comments = flatten((await v3(service).get(`/epics/${epic.id}/comments`)).body)
      const written = [...comments].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
      expect(slimIds(epic.comments)).toEqual(written.map((c) => c.id))
      const history = (await v3(service).get(`/epics/${epic.id}/health-history`)).body
      expect(slimIds(epic.healths)).toEqual(history.map((h: { id: string }) => h.id))
      const stories = (await v3(service).get(`/epics/${epic.id}/stories`)).body
      expect(slimIds(epic.stories).sort()).toEqual(stories.map((s: { id: number }) => s.id).sort())
      expect(slimIds(epic.followers)).toEqual(full.follower_ids)
      expect(slimIds(epic.owners)).toEqual(full.owner_ids)
      expect(slimIds(epic.teams)).toEqual(full.group_ids)
      expect(slimIds(epic.labels)).toEqual(full.label_ids)
      expect(slimIds(epic.objectives)).toEqual(full.objective_ids)
      expect(slimIds(epic.mentioned_members)).toEqual(full.member_mention_ids)
      expect(epic.requester?.id).toBe(full.requested_by_id)
      expect(epic.epic_state.id).toBe(full.epic_state_id)
      seen = { comments: seen.comments + comments.length, healths: seen.healths + history.length, stories: seen.stories + stories.length }
    }
    // The demo workspace has all three, so the checks above were not all of empty lists.
    expect(seen.comments).toBeGreaterThan(0)
    expect(seen.healths).toBeGreaterThan(0)
    expect(seen.stories).toBeGreaterThan(0)
  })

  it('shows writes made after its snapshot: a later page reads the snapshot ids but renders them afresh', async () => {
    const first: Page = (await v4(service).get('/epics', { query: { limit: 5 } })).body
    const later: Page = (await v4(service).get('/epics', { query: { cursor: cursorOf(first) } })).body
    const target = later.entities[2]
    const other = later.entities[3]
    const ada = memberId(service, 'ada')

    const renamed = await v4(service).patch(`/epics/${target.id}`, { name: 'Renamed after the snapshot', owner_ids: [ada] })
    expect(renamed.status).toBe(200)
    const comment = await v3(service).post(`/epics/${target.id}/comments`, { text: 'Written after the snapshot' })
    expect(comment.status).toBe(201)
    const health = await v3(service).post(`/epics/${other.id}/health`, { status: 'Off Track', text: 'after the snapshot' })
    expect(health.status).toBe(201)

    const again: Page = (await v4(service).get('/epics', { query: { cursor: cursorOf(first) } })).body
    // The same ids in the same order (the snapshot), each as it is now.
    expect(ids(again)).toEqual(ids(later))
    const now = again.entities[2]
    expect(now.name).toBe('Renamed after the snapshot')
    expect(ids(now.owners)).toEqual([ada])
    expect(ids(now.comments).at(-1)).toBe(comment.body.id)
    expect(now.comments.entities.at(-1).text).toBe('Written after the snapshot')
    expect(again.entities[3].healths.entities[0]).toMatchObject({ id: health.body.id, status: 'Off Track' })
    for (const epic of again.entities) expect(epic).toEqual((await v4(service).get(`/epics/${epic.id}`)).body)
  })

  it('leaves out an epic deleted after its snapshot, and its comments with it', async () => {
    const first: Page = (await v4(service).get('/epics', { query: { limit: 4, filter: 'include_archived' } })).body
    const later: Page = (await v4(service).get('/epics', { query: { cursor: cursorOf(first) } })).body
    const gone = later.entities[1]
    expect((await v4(service).delete(`/epics/${gone.id}`, undefined, { query: { force: true } })).status).toBe(204)
    const again: Page = (await v4(service).get('/epics', { query: { cursor: cursorOf(first) } })).body
    expect(ids(again)).toEqual(ids(later).filter((id) => id !== gone.id))
    expect(again.entities.map((e) => e.comments.list_url)).not.toContain(gone.comments.list_url)
  })
})
