// Unreadable rows the user chooses to remove (the data-problems dialog's
// "Remove these records"): they leave the database and the list; the next sync
// brings the service's copy of a cached one back; a local change is made again
// from the writes still queued; an unreadable queued write is gone for good
// (it was never sent) and the change it showed goes with it. Against the real
// service, over fake-indexeddb.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../testing/service.ts'
import { outboxActions } from './actions.ts'
import { startDataLayer, type DataLayer } from './data-layer.ts'
import { outboxRecords, outboxStatus, replay } from './outbox/index.ts'
import { fastSleep, offline, startKit, type Kit } from '../../../testing/outbox-kit.ts'
import { mergedEpic, mergedLabels } from './overlay.ts'
import { dataProblems, discardUnreadable, reportCacheProblems, reportProblems } from './problems.ts'

let kit: Kit
let engine: DataLayer
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
  engine = startDataLayer({
    db: kit.db,
    transport: kit.transport,
    replay: () => replay({ db: kit.db, transport: kit.transport, sleep: fastSleep, backoff: { baseMs: 1, maxMs: 4 } }),
    sync: { fileBudgetBytes: 0 },
  })
  await engine.sync()
})
afterEach(async () => {
  await engine.stop()
  await kit.close()
})

const listed = async () => (await dataProblems(kit.db)).map((p) => `${p.table} ${p.key}`).sort()

describe('removing unreadable records', () => {
  it('removes them and their problems; sync brings the service’s copies back; local changes are made again from what is queued', async () => {
    const { db, service } = kit
    const admin = v3(service, service.tokens.admin)
    const [spoilt, edited, misread] = ((await admin.get('/epics')).body as { id: number; name: string }[]).slice(0, 3)
    const label = ((await admin.get('/labels')).body as { id: number; name: string }[])[0]

    // Two edits queued offline: one whose local change gets spoilt, one whose queued write does.
    const act = outboxActions({ db, transport: offline(kit.transport) })
    await act.updateEpic(edited.id, { name: 'Edited offline' })
    await act.updateEpic(misread.id, { name: 'Never sent' })
    const [, garbled] = await outboxRecords(db)

    // ---- a broken disk or another program ----
    await db.epics.bulkPut([
      { id: spoilt.id, name: null },
      { id: 'foreign-1', app: 'someone else' },
    ] as never[])
    await db.labels.put({ id: label.id, name: 7 } as never)
    await db.overlay.put({ kind: 'epic', id: String(edited.id), patch: 'not an object', created: false, deleted: false, updatedAt: 1 } as never)
    await db.outbox.update(garbled.seq!, { state: 'sleeping' } as never)
    await reportCacheProblems(db)
    expect(await listed()).toEqual(
      [`epics ${spoilt.id}`, 'epics foreign-1', `labels ${label.id}`, `outbox ${garbled.seq}`, `overlay ${JSON.stringify(['epic', String(edited.id)])}`].sort(),
    )
    // What the garbled write showed is still laid over the epic (its local change was made while it read fine).
    expect((await mergedEpic(db, misread.id))?.name).toBe('Never sent')

    expect(await discardUnreadable(db, await dataProblems(db))).toBe(5)
    expect(await dataProblems(db)).toEqual([])
    expect(await db.epics.get(spoilt.id)).toBeUndefined()
    expect(await db.epics.get('foreign-1' as never)).toBeUndefined()
    expect(await db.labels.get(label.id)).toBeUndefined()
    // The local change of the edited epic is made again from its queued write; the garbled write and its change are gone.
    expect(await db.overlay.get(['epic', String(edited.id)])).toMatchObject({ patch: { name: 'Edited offline' } })
    expect((await mergedEpic(db, edited.id))?.name).toBe('Edited offline')
    expect(await db.outbox.get(garbled.seq!)).toBeUndefined()
    expect((await mergedEpic(db, misread.id))?.name).toBe(misread.name)
    expect(await outboxStatus(db)).toMatchObject({ pending: 1 })

    // The next sync (not forced, nothing due by the clock) fetches the service's copies again.
    await engine.sync()
    expect(await db.epics.get(spoilt.id)).toMatchObject({ id: spoilt.id, name: spoilt.name })
    expect((await mergedLabels(db)).find((l) => l.id === label.id)).toMatchObject({ name: label.name })
    expect(await db.epics.get('foreign-1' as never)).toBeUndefined()
    await reportCacheProblems(db)
    expect(await dataProblems(db)).toEqual([])

    // The queued edit goes; the garbled one never does.
    await engine.replay()
    const now = (await admin.get('/epics')).body as { id: number; name: string }[]
    expect(now.find((e) => e.id === edited.id)?.name).toBe('Edited offline')
    expect(now.find((e) => e.id === misread.id)?.name).toBe(misread.name)
  })

  it('leaves a row that reads fine by now, and problems of other tables, where they are', async () => {
    const { db } = kit
    const [epic] = await db.epics.orderBy('id').limit(1).toArray()
    await db.epics.put({ ...epic, name: null } as never)
    await reportCacheProblems(db)
    // Reported by a part that is not the cache's (its rows are not for this action to remove).
    await reportProblems(db, [{ table: 'somewhere', key: '1', reason: 'not ours to remove' }], 5)
    const problems = await dataProblems(db)
    expect(problems).toHaveLength(2)
    // A sync wrote the service's copy over it meanwhile.
    await db.epics.put(epic)

    expect(await discardUnreadable(db, problems)).toBe(0)
    expect(await db.epics.get(epic.id)).toEqual(epic)
    expect(await dataProblems(db)).toEqual([{ table: 'somewhere', key: '1', reason: 'not ours to remove', at: 5 }])
  })
})
