// Rows in the local database that Outpost did not write as they are (wrong
// types, missing fields, an unknown op, another program's object) are skipped
// and reported, never fatal: the merged reads leave them out, sync writes the
// service's copy over them, replay goes on without sending them, and the list
// of problems in `meta` names each one.
import 'fake-indexeddb/auto'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { outboxActions } from '../actions.ts'
import { startDataLayer, type DataLayer } from '../data-layer.ts'
import { outboxRecords, outboxStatus, replay } from '../outbox/index.ts'
import { fastSleep, startKit, type Kit } from '../../../../testing/outbox-kit.ts'
import { mergedComments, mergedDoc, mergedDocs, mergedEpic, mergedEpics, mergedHealth } from '../overlay.ts'
import { dataProblems } from '../problems.ts'

let kit: Kit
let engine: DataLayer | undefined
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
})
afterEach(async () => {
  await engine?.stop()
  engine = undefined
  await kit.close()
})

const start = () =>
  (engine = startDataLayer({
    db: kit.db,
    transport: kit.transport,
    replay: () => replay({ db: kit.db, transport: kit.transport, sleep: fastSleep, backoff: { baseMs: 1, maxMs: 4 } }),
    sync: { fileBudgetBytes: 0 },
  }))

/** A record as Outpost writes them, to be spoilt field by field. */
const record = (fields: Record<string, unknown>) => ({
  kind: 'epic',
  entityId: '1',
  op: 'update',
  payload: {},
  base: {},
  state: 'pending',
  attempts: 0,
  createdAt: 1,
  updatedAt: 1,
  ...fields,
})

describe('corrupt and foreign rows', () => {
  it('are skipped by reads, sync and replay, and reported', async () => {
    const { db, service } = kit
    const admin = v3(service, service.tokens.admin)
    const [real, target] = (await admin.get('/epics')).body as { id: number; name: string }[]
    const realDoc = ((await admin.get('/documents')).body as { id: string; title: string }[])[0]

    // ---- what another program (or a broken disk) left behind ----
    await db.epics.bulkPut([
      { id: 999_999, name: 42, archived: 'yes' },
      { id: 'foreign-1', app: 'someone else', value: { nested: true } },
      { id: real.id, name: null },
    ] as never[])
    await db.docs.bulkPut([
      { id: 'not-a-doc', title: null, content_markdown: {} },
      { id: realDoc.id, title: 5 },
    ] as never[])
    await db.epicComments.bulkPut([
      { id: 1_000_001, epic_id: real.id, text: 'A fine comment', created_at: '2020-01-01T00:00:00Z', deleted: false },
      { id: 1_000_002, epic_id: real.id, text: 7 },
      { id: 1_000_003, epic_id: real.id, text: 'No date' },
    ] as never[])
    await db.epicHealth.bulkPut([
      { id: 'h-1', epic_id: real.id },
      { id: 'h-2', epic_id: real.id, status: 'On Track', created_at: '2020-01-01' },
    ] as never[])
    await db.overlay.put({ kind: 'epic', id: 'local:nope', patch: 'not an object', created: true, deleted: false, updatedAt: 1 } as never)
    const garbage = await db.outbox.bulkAdd(
      [
        // An op Outpost never writes, on an epic that exists: it must not be taken for anything (a delete least of all).
        record({ op: 'explode', entityId: String(target.id) }),
        record({ kind: 'spaceship', op: 'create', entityId: 'local:00000000-0000-0000-0000-000000000000' }),
        { foo: 'bar' },
        record({ entityId: 123, payload: 'not an object' }),
        record({ entityId: String(target.id), state: 'sleeping', payload: { name: 'Never sent' } }),
      ] as never[],
      { allKeys: true },
    )

    // ---- the merged reads leave them out (and do not throw) ----
    const epics = await mergedEpics(db)
    expect(epics.every((e) => typeof e.name === 'string' && typeof e.archived === 'boolean')).toBe(true)
    expect(epics.map((e) => e.id)).not.toContain(999_999)
    expect(epics.map((e) => e.id)).not.toContain('foreign-1')
    expect(await mergedEpic(db, real.id)).toBeUndefined()
    expect((await mergedComments(db, real.id)).map((c) => c.id)).toEqual([1_000_001])
    expect((await mergedHealth(db, real.id)).map((h) => h.id)).toEqual(['h-2'])
    expect((await mergedDocs(db)).map((d) => d.id)).toEqual([])
    expect(await outboxRecords(db)).toEqual([])
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })

    // ---- the engine reports them, syncs over them and replays past them ----
    const e = start()
    await vi.waitFor(async () => expect((await dataProblems(db)).length).toBeGreaterThanOrEqual(14))
    const problems = await dataProblems(db)
    const named = (table: string, key: unknown) => problems.find((p) => p.table === table && p.key === String(key))
    for (const key of [999_999, 'foreign-1', real.id]) expect(named('epics', key), `epics ${key}`).toBeDefined()
    for (const key of ['not-a-doc', realDoc.id]) expect(named('docs', key), `docs ${key}`).toBeDefined()
    for (const key of [1_000_002, 1_000_003]) expect(named('epicComments', key), `comment ${key}`).toBeDefined()
    expect(named('epicComments', 1_000_001)).toBeUndefined()
    expect(named('epicHealth', 'h-1')).toBeDefined()
    expect(named('overlay', JSON.stringify(['epic', 'local:nope']))).toBeDefined()
    for (const seq of garbage) expect(named('outbox', seq), `outbox ${seq}`).toBeDefined()
    expect(named('outbox', garbage[0])?.reason).toMatch(/unknown op "explode"/)

    await e.sync()
    // The service's copies went over the corrupt ones; the foreign epics went with the epic id sweep.
    expect((await mergedEpic(db, real.id))?.name).toBe(real.name)
    expect((await mergedDoc(db, realDoc.id))?.title).toBe(realDoc.title)
    expect(await db.epics.get(999_999)).toBeUndefined()
    // A bootstrap runs no doc sweep (its pages bring every doc); the next sweep takes the foreign doc away.
    expect((await mergedDocs(db)).map((d) => d.id)).not.toContain('not-a-doc')
    await e.sync({ force: true })
    expect(await db.docs.get('not-a-doc')).toBeUndefined()

    // What the user does next goes through; the garbage is neither sent nor lost.
    const act = outboxActions({ db, transport: kit.transport })
    const created = await act.createEpic({ name: 'Made after the garbage' })
    await act.updateEpic(real.id, { name: 'Renamed after the garbage' })
    await e.replay()
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })
    const now = (await admin.get('/epics')).body as { id: number; name: string }[]
    expect(now.find((x) => x.id === real.id)?.name).toBe('Renamed after the garbage')
    expect(now.filter((x) => x.name === 'Made after the garbage')).toHaveLength(1)
    expect((await mergedEpic(db, created))?.name).toBe('Made after the garbage')
    // The epic the unknown op named is still there, untouched; the garbage records are still in the table.
    expect(now.find((x) => x.id === target.id)?.name).toBe(target.name)
    expect(await db.outbox.bulkGet(garbage)).not.toContain(undefined)
  })

  it('a problem drops off the list once its row is gone', async () => {
    const { db } = kit
    const [seq] = await db.outbox.bulkAdd([{ foo: 'bar' }] as never[], { allKeys: true })
    await start().stop()
    expect((await dataProblems(db)).map((p) => [p.table, p.key])).toEqual([['outbox', String(seq)]])
    // The user discards it from the list (a record the outbox screen cannot show is still discarded by its number).
    await outboxActions({ db, transport: kit.transport }).discard(seq!)
    await start().stop()
    expect(await dataProblems(db)).toEqual([])
  })
})
