// The changes a sync notes for the notifications: written with the rows by a
// sync after the bootstrap (never by the bootstrap), each with the version the
// cache held; taken once among the workspace's windows, however late a window
// looks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { v3, v4 } from '../../../../testing/service.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'
import { createSyncer, type Syncer } from '../../data/sync/index.ts'
import type { CachedEpic, EpicNotice } from '../../data/types.ts'
import { changedEpics, STALE_MS, takeNotices } from './notices.ts'

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
    const newest = ((await v3(world.service).get('/epics')).body as { id: number; updated_at: string }[]).sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0]
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
    expect(renamed.before).toEqual(before)
    expect(renamed.after).toEqual(await db.epics.get(ids[3]))
    expect(renamed.after.name).toBe('Renamed by someone else')

    // A sync that finds nothing new (the walk reads its overlap again) notes nothing more.
    tick()
    await syncer.sync({ force: true })
    expect(await db.epicNotices.count()).toBe(2)
    await db.epicNotices.clear()
  })

  it('each notice is taken by one window however many look, and a window that looks late still has it', async () => {
    const id = world.service.ctx.col<any>('epic').ids().map(Number)[11]
    tick()
    await v3(world.service).put(`/epics/${id}`, { deadline: '2027-03-01T12:00:00Z' })
    tick()
    await syncer.sync()
    // Two windows of the workspace: two connections to its database, both seeing the notice.
    const other = world.openDb()
    const seen = await db.epicNotices.toArray()
    expect(seen).toHaveLength(1)
    const [a, b] = await Promise.all([takeNotices(db, seen), takeNotices(other, await other.epicNotices.toArray())])
    expect([...a, ...b].map((n) => n.after.id)).toEqual([id])
    expect(await db.epicNotices.count()).toBe(0)
    // Taken again (a read that came before the delete): nothing.
    expect(await takeNotices(db, seen)).toEqual([])
  })
})

describe('changedEpics', () => {
  const epic = (name: string, updated_at: string) => ({ id: 5, name, updated_at }) as CachedEpic
  it('tells an epic changed twice once, from its first version noted to its last; a stale notice is left out', () => {
    const now = Date.parse('2026-01-01T12:00:00Z')
    const notices: EpicNotice[] = [
      { seq: 2, before: epic('B', '2'), after: epic('C', '3'), at: now },
      { seq: 1, before: epic('A', '1'), after: epic('B', '2'), at: now - 1_000 },
      { seq: 3, before: { ...epic('X', '1'), id: 6 }, after: { ...epic('Y', '2'), id: 6 }, at: now - STALE_MS - 1 },
    ]
    const changed = changedEpics(notices, now)
    expect([...changed.keys()]).toEqual(['5'])
    expect(changed.get('5')).toEqual({ was: epic('A', '1'), now: epic('C', '3') })
  })
})
