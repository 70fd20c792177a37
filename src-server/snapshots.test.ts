// First-page snapshots: each walk has its own snapshot (its own six hours), while the
// ordered ids are stored once per distinct list; expired snapshots go, and ids no
// snapshot refers to go with them. Snapshots taken before the ids were shared still work.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from './index.ts'
import { testService, v4 } from '../testing/service.ts'

const HOUR = 60 * 60 * 1000
let now = Date.parse('2026-11-01T12:00:00.000Z')
let service: RunningService
beforeAll(async () => {
  service = await testService({ clock: () => now })
  const categories = Array.from({ length: 30 }, (_, i) => ({ name: `Category ${String(i).padStart(2, '0')}` }))
  expect((await v4(service).post('/categories/bulk', { categories })).status).toBe(201)
})
afterAll(() => service.close())

const count = (table: string) => service.ctx.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
const firstPage = async () => (await v4(service).get('/categories', { query: { limit: 10 } })).body
const next = (page: { next_page_url: string }) => v4(service).get('/categories', { query: Object.fromEntries(new URL(page.next_page_url).searchParams) })

describe('first-page snapshots', () => {
  it('store the ids of an unchanged list once, one snapshot per walk', async () => {
    const a = await firstPage()
    const before = { snapshots: count('list_snapshots'), lists: count('list_ids') }
    now += 1000
    const b = await firstPage()
    expect(a.next_page_url).not.toBe(b.next_page_url)
    expect(count('list_snapshots')).toBe(before.snapshots + 1)
    expect(count('list_ids')).toBe(before.lists)

    // A change makes another list; the walk begun before it keeps its own.
    expect((await v4(service).post('/categories', { name: 'Category 99' })).status).toBe(201)
    const c = await firstPage()
    expect(c.total_items).toBe(a.total_items + 1)
    expect(count('list_ids')).toBe(before.lists + 1)
    const fromA = (await next(a)).body
    expect(fromA.total_items).toBe(a.total_items)
    expect(fromA.entities.map((e: { name: string }) => e.name)).not.toContain('Category 99')
  })

  it('expire six hours after each walk began, and the ids nobody walks go with them', async () => {
    const old = await firstPage()
    now += 5 * HOUR
    const recent = await firstPage()
    now += 1.5 * HOUR
    // Any first page clears what has expired: the older walk is gone, the recent one is not.
    await firstPage()
    expect((await next(old)).status).toBe(400)
    expect((await next(old)).body.errors).toEqual({ cursor: 'expired' })
    expect((await next(recent)).status).toBe(200)

    now += 7 * HOUR
    const last = await firstPage()
    expect(count('list_snapshots')).toBe(1)
    expect(count('list_ids')).toBe(1)
    expect((await next(last)).status).toBe(200)
  })

  it('are cleared through an index on their time, not by reading every snapshot at each first page', () => {
    const plan = service.ctx.db.prepare('EXPLAIN QUERY PLAN DELETE FROM list_snapshots WHERE created_at < ?').all(now) as { detail: string }[]
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/USING (COVERING )?INDEX list_snapshots_by_time/)
  })
})

describe('snapshots taken before the ids were shared', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-snapshots-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('still lead to their next pages', async () => {
    const file = join(dir, 'service.db')
    const first = await testService({ db: file })
    const page = (await v4(first).get('/epic-workflow/states', { query: { limit: 2 } })).body
    await first.close()

    // The file as the previous schema had it: the ids inside each snapshot's row.
    const db = new Database(file)
    const rows = db.prepare('SELECT s.id, s.created_at, s.spec, l.ids FROM list_snapshots s JOIN list_ids l ON l.digest = s.digest').all()
    db.exec(`DROP TABLE list_snapshots; DROP TABLE list_ids;
      CREATE TABLE list_snapshots (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, spec TEXT NOT NULL, ids TEXT NOT NULL);`)
    const insert = db.prepare('INSERT INTO list_snapshots (id, created_at, spec, ids) VALUES (@id, @created_at, @spec, @ids)')
    for (const row of rows) insert.run(row)
    db.pragma('user_version = 4')
    db.close()

    const again = await testService({ db: file })
    try {
      const second = await v4(again).get('/epic-workflow/states', { query: Object.fromEntries(new URL(page.next_page_url).searchParams) })
      expect(second.status).toBe(200)
      expect(second.body).toMatchObject({ current_page: 2, total_items: page.total_items })
    } finally {
      await again.close()
    }
  })
})
