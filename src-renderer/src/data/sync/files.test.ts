// File contents: downloaded on open (once), prefetched for recent files
// within the budget, the least recently used evicted when room is needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gatewayTransport } from '../../../../testing/gateway-transport.ts'
import type { CachedFile } from '../types.ts'
import { createSyncer, DEFAULT_SYNC_OPTIONS } from './index.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'

let world: World
beforeAll(async () => {
  world = await startWorld({ seed: { epics: 5, docs: 2, files: 12 } })
})
afterAll(() => world.close())

/** A database and a file cache folder of its own, so one test's evictions never touch another's files. */
function setup(name: string, budget: number, clock: () => number) {
  const db = world.openDb(name)
  const transport = countingTransport(gatewayTransport(world.gateway, { staging: join(world.folders.staging, name), cache: join(world.folders.cache, name) }))
  const syncer = createSyncer({ db, transport, clock, options: { fileBudgetBytes: budget } })
  return { db, transport, syncer }
}

const served = (id: number) => world.service.ctx.col<any>('file').get(id)

describe('file contents', () => {
  it('downloads a file once, on open, to disk; opening again only marks it used', async () => {
    let now = 1_000
    const { db, transport, syncer } = setup('open', 0, () => now)
    await syncer.sync()
    expect(transport.counted.downloads).toBe(0)
    const file = (await db.files.toArray())[0]
    const row = await syncer.openFile(file.id)
    expect(transport.counted.downloads).toBe(1)
    expect(row).toMatchObject({ id: file.id, size: file.size, contentType: file.content_type, lastUsedAt: 1_000 })
    expect(readFileSync(row.path).length).toBe(served(file.id as number).size)
    now = 2_000
    const again = await syncer.openFile(file.id)
    expect(transport.counted.downloads).toBe(1)
    expect(again).toMatchObject({ path: row.path, lastUsedAt: 2_000 })
    expect(await db.fileContents.get(file.id)).toMatchObject({ lastUsedAt: 2_000 })
  })

  it('evicts the least recently used content when an open needs room', async () => {
    let now = 10_000
    const probe = setup('probe', 0, () => now)
    await probe.syncer.sync()
    // Four images of one size (the seeded images share their bytes); room for three.
    const [a, b, c, d] = await probe.db.files.filter((f) => f.name.startsWith('image-')).sortBy('name')
    expect(new Set([a, b, c, d].map((f) => f.size)).size).toBe(1)
    // No sync here (its prefetch would fill the budget): opening a file not cached yet looks it up.
    const { db, transport, syncer } = setup('lru', 3 * a.size, () => now)
    const open = async (f: CachedFile) => {
      now += 1_000
      return syncer.openFile(f.id)
    }
    await open(a)
    const bRow = await open(b)
    await open(c)
    await open(a) // a is now more recent than b
    await open(d)
    expect(transport.counted.downloads).toBe(4)
    expect(((await db.fileContents.toCollection().primaryKeys()) as number[]).sort()).toEqual([a.id, c.id, d.id].sort())
    expect(existsSync(bRow.path)).toBe(false)
    expect(transport.counted.discards).toBe(1)
  })

  it('prefetches the most recent files that fit the budget, and makes room for newer ones', async () => {
    let now = Date.now()
    const probe = setup('probe2', 0, () => now)
    await probe.syncer.sync()
    const recent = await probe.db.files.orderBy('updated_at').reverse().toArray()
    const budget = recent.slice(0, 4).reduce((sum, f) => sum + f.size, 0) + 1
    // What fits, newest first (a file too big for what is left is skipped, smaller older ones may still fit).
    const expected: CachedFile[] = []
    let used = 0
    for (const f of recent.slice(0, DEFAULT_SYNC_OPTIONS.prefetchRecentFiles)) {
      if (used + f.size <= budget) {
        expected.push(f)
        used += f.size
      }
    }

    const { db, transport, syncer } = setup('prefetch', budget, () => now)
    const report = await syncer.sync()
    expect(report.prefetched).toBe(expected.length)
    expect(transport.counted.downloads).toBe(expected.length)
    const rows = await db.fileContents.toArray()
    expect(rows.map((r) => r.id).sort()).toEqual(expected.map((f) => f.id).sort())
    for (const r of rows) expect(r.lastUsedAt).toBe(Date.parse(expected.find((f) => f.id === r.id)!.updated_at))
    expect(rows.reduce((sum, r) => sum + r.size, 0)).toBeLessThanOrEqual(budget)

    // Nothing new: the next run downloads nothing.
    transport.counted.reset()
    expect((await syncer.sync()).prefetched).toBe(0)
    expect(transport.counted.downloads).toBe(0)

    // A new upload is the most recent file: it takes the place of the oldest prefetched ones.
    mkdirSync(world.folders.staging, { recursive: true })
    const path = join(world.folders.staging, 'fresh.txt')
    writeFileSync(path, 'x'.repeat(expected[0].size))
    const [uploaded] = await transport.upload<{ id: number }[]>([{ path, name: 'fresh.txt' }])
    now += DEFAULT_SYNC_OPTIONS.filesIntervalMs
    transport.counted.reset()
    const next = await syncer.sync()
    expect(next.prefetched).toBe(1)
    const after = await db.fileContents.toArray()
    expect(after.some((r) => r.id === uploaded.id)).toBe(true)
    expect(after.reduce((sum, r) => sum + r.size, 0)).toBeLessThanOrEqual(budget)
    const evicted = rows.filter((r) => !after.some((a) => a.id === r.id))
    expect(evicted.length).toBeGreaterThan(0)
    // Only the least recent went.
    const kept = rows.filter((r) => after.some((a) => a.id === r.id))
    for (const e of evicted) for (const k of kept) expect(e.lastUsedAt).toBeLessThanOrEqual(k.lastUsedAt)
    for (const e of evicted) expect(existsSync(e.path)).toBe(false)
  })

  it('prefetches after the lists, on the lowest lane: the run says it is listed before the first download', async () => {
    const db = world.openDb('after-lists')
    const events: string[] = []
    const inner = gatewayTransport(world.gateway, { staging: join(world.folders.staging, 'after-lists'), cache: join(world.folders.cache, 'after-lists') })
    const transport = {
      ...inner,
      download: (fileId: number, url: string, name: string, lane?: Parameters<typeof inner.download>[3]) => {
        events.push(`download on ${lane ?? 'user-read'}`)
        return inner.download(fileId, url, name, lane)
      },
    }
    const syncer = createSyncer({ db, transport, clock: () => Date.now(), options: { fileBudgetBytes: DEFAULT_SYNC_OPTIONS.fileBudgetBytes } })
    const report = await syncer.sync({ listed: () => void events.push('listed') })
    expect(report.prefetched).toBeGreaterThan(0)
    expect(events[0]).toBe('listed')
    expect(events.slice(1)).toEqual(Array(report.prefetched).fill('download on prefetch'))
    // Metered: the lists, and no file downloaded ahead of use.
    const metered = world.openDb('after-lists-metered')
    const quiet = createSyncer({ db: metered, transport, clock: () => Date.now(), options: { fileBudgetBytes: DEFAULT_SYNC_OPTIONS.fileBudgetBytes } })
    events.length = 0
    expect((await quiet.sync({ metered: true })).prefetched).toBe(0)
    expect(events).toEqual([])
    expect(await metered.files.count()).toBe(world.service.ctx.col('file' as never).ids().length)
  })

  it('prefetches four files at once, and all of them within the budget', async () => {
    const now = Date.now()
    const db = world.openDb('at-once')
    const inner = countingTransport(
      gatewayTransport(world.gateway, { staging: join(world.folders.staging, 'at-once'), cache: join(world.folders.cache, 'at-once') }),
    )
    let active = 0
    let most = 0
    const transport = {
      ...inner,
      download: async (...args: Parameters<typeof inner.download>) => {
        most = Math.max(most, ++active)
        try {
          // A slow link: each download waits on its own round trip.
          await new Promise((resolve) => setTimeout(resolve, 30))
          return await inner.download(...args)
        } finally {
          active--
        }
      },
    }
    const probe = setup('probe4', 0, () => now)
    await probe.syncer.sync()
    const files = await probe.db.files.toArray()
    const budget = files.reduce((sum, f) => sum + f.size, 0)
    const report = await createSyncer({ db, transport, clock: () => now, options: { fileBudgetBytes: budget } }).sync()
    // All but those an earlier test took off the service (their download is a 404: forgotten).
    expect(report.prefetched).toBe(files.filter((f) => served(Number(f.id)) !== undefined).length)
    expect(report.prefetched).toBeGreaterThan(8)
    expect(most).toBe(4)
    expect((await db.fileContents.toArray()).reduce((sum, r) => sum + r.size, 0)).toBeLessThanOrEqual(budget)
  })

  it('never evicts a file opened since for a prefetch of an older one', async () => {
    const now = Date.now()
    const probe = setup('probe3', 0, () => now)
    await probe.syncer.sync()
    const oldest = await probe.db.files.orderBy('updated_at').first()
    const { db, syncer } = setup('opened', oldest!.size, () => now)
    // Budget: room for exactly the file opened; prefetch finds no room for anything older than "now".
    await syncer.openFile(oldest!.id)
    await syncer.sync({ force: true })
    expect((await db.fileContents.toCollection().primaryKeys()) as number[]).toEqual([oldest!.id])
  })
})
