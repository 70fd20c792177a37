// The changes a sync notes for the notifications: written with the rows by a
// sync after the bootstrap (never by the bootstrap), each with the version the
// cache held; told once among the workspace's windows, however late a window
// looks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { v3, v4 } from '../../../../testing/service.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'
import { createSyncer, type Syncer } from '../../data/sync/index.ts'
import { noticedEpic } from '../../data/notices.ts'
import type { EpicNotice, NoticedEpic } from '../../data/types.ts'
import { changedEpics, claimNotices, STALE_MS } from './notices.ts'

let world: World
let serviceNow = Date.parse('2025-06-02T09:00:00.000Z')
let localNow = 1_000_000
let syncer: Syncer
let db: ReturnType<World['openDb']>
/** Runs before the next request for a page of epics. */
let beforeEpicPage: (() => Promise<unknown>) | undefined

beforeAll(async () => {
  world = await startWorld({ seed: { epics: 120, docs: 5, files: 0 }, clock: () => serviceNow })
  db = world.openDb()
  const transport = countingTransport(world.transport, (operation) => {
    if (operation !== 'epics.list' || !beforeEpicPage) return
    const run = beforeEpicPage
    beforeEpicPage = undefined
    return run()
  })
  syncer = createSyncer({ db, transport, clock: () => localNow, options: { fileBudgetBytes: 0, pageSize: 20 } })
})
afterAll(() => world.close())

const tick = () => {
  serviceNow += 60_000
  localNow += 60_000
}

describe('the changes a sync notes', () => {
  it('the bootstrap notes nothing, even what changed while it ran; a later sync notes each change once, with the version the cache held', async () => {
    const ids = world.service.ctx.col<any>('epic').ids().map(Number)
    // Changed while the bootstrap walks its pages, after the page that brought it whole (the newest first).
    const newest = ((await v3(world.service).get('/epics')).body as { id: number; updated_at: string }[]).sort((a, b) =>
      b.updated_at.localeCompare(a.updated_at),
    )[0]
    let changed = false
    const changeOnceStored = async () => {
      const held = await db.epics.get(newest.id)
      if (!held || held.partial) return (beforeEpicPage = changeOnceStored)
      serviceNow += 1_000
      await v3(world.service).put(`/epics/${newest.id}`, { name: 'Renamed while the bootstrap ran' })
      changed = true
    }
    beforeEpicPage = changeOnceStored
    await syncer.sync()
    expect(changed).toBe(true)
    expect(await db.epics.get(newest.id)).toMatchObject({ name: 'Renamed while the bootstrap ran' })
    expect(await db.epicNotices.count()).toBe(0)

    const before = (await db.epics.get(ids[3]))!
    tick()
    await v3(world.service).put(`/epics/${ids[3]}`, { name: 'Renamed by someone else' })
    await v4(world.service).patch('/epics/bulk', { epics: [{ id: ids[7], archived: true }] })
    tick()
    await syncer.sync()
    const notices = await db.epicNotices.toArray()
    expect(notices.map((n) => n.after.id).sort()).toEqual([ids[3], ids[7]].sort())
    const renamed = notices.find((n) => n.after.id === ids[3])!
    expect(renamed.before).toEqual(noticedEpic(before))
    expect(renamed.after).toEqual(noticedEpic((await db.epics.get(ids[3]))!))
    expect(renamed.after.name).toBe('Renamed by someone else')

    // A sync that finds nothing new (the walk reads its overlap again) notes nothing more.
    tick()
    await syncer.sync({ force: true })
    expect(await db.epicNotices.count()).toBe(2)
    await db.epicNotices.clear()
  })

  it('each notice is claimed by one window however many look, a window that looks late still has it, and a stale one goes', async () => {
    const id = world.service.ctx.col<any>('epic').ids().map(Number)[11]
    tick()
    await v3(world.service).put(`/epics/${id}`, { deadline: '2027-03-01T12:00:00Z' })
    tick()
    await syncer.sync()
    // Two windows of the workspace: two connections to its database, both seeing the notice.
    const other = world.openDb()
    const seen = await db.epicNotices.toArray()
    expect(seen).toHaveLength(1)
    const now = seen[0].at
    const [a, b] = await Promise.all([claimNotices(db, seen, now), claimNotices(other, await other.epicNotices.toArray(), now)])
    expect([...a, ...b]).toEqual([seen[0].seq])
    expect(await db.epicNotices.get(seen[0].seq!)).toMatchObject({ told: true })
    // Claimed again (a window that read it before it was told): not its to show.
    expect(await claimNotices(db, seen, now)).toEqual(new Set())
    // An hour on, it is gone.
    await claimNotices(db, [], now + STALE_MS + 1)
    expect(await db.epicNotices.count()).toBe(0)
  })

  it('keeps a description as a digest: a change of it is seen, its text is not kept', () => {
    const epic = {
      id: 1,
      name: 'A',
      epic_state_id: null,
      archived: false,
      deadline: null,
      planned_start_date: null,
      owner_ids: [],
      follower_ids: [],
      updated_at: '1',
    }
    const long = 'x'.repeat(50_000)
    const [a, b] = [noticedEpic({ ...epic, description: long } as never), noticedEpic({ ...epic, description: `${long}y` } as never)]
    expect(a.description.length).toBeLessThan(30)
    expect(a.description).not.toBe(b.description)
    expect(noticedEpic({ ...epic, description: long } as never)).toEqual(a)
  })
})

describe('changedEpics', () => {
  const epic = (name: string, updated_at: string) => ({ id: 5, name, updated_at }) as NoticedEpic
  it('tells an epic changed twice once, from its first version noted to its last; a stale notice is left out', () => {
    const now = Date.parse('2026-01-01T12:00:00Z')
    const notices: EpicNotice[] = [
      { seq: 2, before: epic('B', '2'), after: epic('C', '3'), at: now },
      { seq: 1, before: epic('A', '1'), after: epic('B', '2'), at: now - 1_000 },
      { seq: 3, before: { ...epic('X', '1'), id: 6 }, after: { ...epic('Y', '2'), id: 6 }, at: now - STALE_MS - 1 },
    ]
    const changed = changedEpics(notices, now)
    expect([...changed.keys()]).toEqual(['5'])
    expect(changed.get('5')).toEqual({ was: epic('A', '1'), now: epic('C', '3'), seqs: [1, 2] })
  })
})
