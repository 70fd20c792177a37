// Coalescing of writes not yet in flight, each rule against the real service:
// what is queued, what is shown, and which requests replay sends.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { epicsWithExternalId, v4 } from '../../../../testing/service.ts'
import { mergedComments, mergedDocEpics, mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { outboxRecords } from './records.ts'
import { actionsFor, counting, gated, offline, replayFast, replayUntilDone, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit())
})
afterEach(async () => kit.close())

describe('coalescing', () => {
  it('update + update: one update, fields merged, the earliest base kept', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const epic = epics[0]
    await act.updateEpic(epic.id, { name: 'First name' })
    await act.updateEpic(epic.id, { description: 'New description' })
    await act.updateEpic(epic.id, { name: 'Second name' })
    const records = await outboxRecords(db)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({
      op: 'update',
      payload: { name: 'Second name', description: 'New description' },
      base: { name: epic.name, description: epic.description },
    })
    expect(await mergedEpic(db, epic.id)).toMatchObject({ name: 'Second name', description: 'New description' })

    const t = counting(kit.transport)
    await replayFast(db, t)
    expect(t.counts.get('epics.update')).toBe(1)
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body).toMatchObject({ name: 'Second name', description: 'New description' })
    expect(await outboxRecords(db)).toEqual([])
  })

  it('create + update: the update is folded into the create', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const id = await act.createEpic({ name: 'Draft' })
    await act.updateEpic(id, { name: 'Final', description: 'Folded in', group_ids: [] })
    const records = await outboxRecords(db)
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject({ op: 'create', payload: { name: 'Final', description: 'Folded in' } })

    const t = counting(kit.transport)
    await replayFast(db, t)
    expect(t.counts.get('epics.create')).toBe(1)
    expect(t.total()).toBe(1)
    const found = await epicsWithExternalId(kit.service, records[0].externalId!)
    expect(found).toEqual([expect.objectContaining({ name: 'Final', description: 'Folded in' })])
  })

  it('create + update of a field a create cannot carry: it follows the create as an update', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const id = await act.createEpic({ name: 'Archived before it was sent' })
    await act.archiveEpic(id)
    expect(await outboxRecords(db)).toHaveLength(1)
    await replayFast(db, kit.transport)
    expect(await outboxRecords(db)).toEqual([])
    const server = (await mergedEpic(db, id))!
    expect(server.archived).toBe(true)
    expect((await v4(kit.service).get(`/epics/${server.id}`)).body.archived).toBe(true)
  })

  it('create + delete: both vanish, with the overlay and what depended on the create', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const id = await act.createEpic({ name: 'Never mind' })
    await act.createComment(id, 'On an epic that will never exist')
    const docId = await act.createDoc({ title: 'Kept doc' })
    await act.linkDocToEpic(docId, id)
    expect(await outboxRecords(db)).toHaveLength(4)
    await act.deleteEpic(id)

    const left = await outboxRecords(db)
    expect(left.map((r) => [r.kind, r.op])).toEqual([['doc', 'create']])
    expect(await mergedEpic(db, id)).toBeUndefined()
    expect(await mergedComments(db, id)).toEqual([])
    expect(await mergedDocEpics(db, { docId })).toEqual([])
    expect((await db.overlay.toArray()).map((o) => o.kind)).toEqual(['doc'])

    const t = counting(kit.transport)
    await replayFast(db, t)
    expect([...t.counts.keys()]).toEqual(['documents.create'])
  })

  it('update + delete: only the delete is sent', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const epic = epics[1]
    await act.updateEpic(epic.id, { name: 'Renamed, then deleted' })
    await act.deleteEpic(epic.id)
    const records = await outboxRecords(db)
    expect(records.map((r) => r.op)).toEqual(['delete'])
    expect(await mergedEpic(db, epic.id)).toBeUndefined()

    const t = counting(kit.transport)
    await replayFast(db, t)
    expect([...t.counts.keys()]).toEqual(['epics.delete'])
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).status).toBe(404)
    expect(await db.epics.get(epic.id as number)).toBeUndefined()
  })

  it('link + unlink of a doc and an epic: nothing to send', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const doc = (await db.docs.toArray())[0]
    await act.linkDocToEpic(doc.id, epics[0].id)
    await act.unlinkDocFromEpic(doc.id, epics[0].id)
    expect(await outboxRecords(db)).toEqual([])
    expect(await db.overlay.count()).toBe(0)
  })

  it('never into a write already in flight: a later update is its own record, sent after it', async () => {
    const { db } = kit
    const epic = epics[2]
    const t = gated(counting(kit.transport), 'epics.update')
    const act = actionsFor(db, t)
    await act.updateEpic(epic.id, { name: 'Sent first' })
    const pass = replayFast(db, t)
    await t.reached
    await act.updateEpic(epic.id, { name: 'Sent second' })
    const queued = await outboxRecords(db)
    expect(queued.map((r) => r.state)).toEqual(['in-flight', 'pending'])
    // The second starts from what the user saw: the first one's value.
    expect(queued[1].base).toEqual({ name: 'Sent first' })
    t.open()
    const result = await pass
    expect(result).toMatchObject({ confirmed: 2, conflicts: 0, failed: 0 })
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.name).toBe('Sent second')
  })

  it('never into a write that was sent and came back unanswered: it may be on the service, and a later update over it is no conflict', async () => {
    const { db } = kit
    const epic = epics[3]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { description: 'Sent, answer lost' })
    // The service takes the update and drops the connection before it answers; the pass stops there. An idempotent
    // request's lost answer comes back as "could not be reached", and the record waits again as pending.
    kit.service.setFaults({ dropAfterCommitRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 1 } })).stopped).toBe('offline')
    kit.service.setFaults({ dropAfterCommitRate: 0 })
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.description).toBe('Sent, answer lost')
    expect((await outboxRecords(db)).map((r) => [r.state, r.attempts])).toEqual([['pending', 1]])

    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { description: 'Then this' })
    const queued = await outboxRecords(db)
    expect(queued).toHaveLength(2)
    // The second starts from what the user saw: the first one's value.
    expect(queued[1].base).toEqual({ description: 'Sent, answer lost' })
    await replayUntilDone(db, kit.transport)
    expect(await outboxRecords(db)).toEqual([])
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.description).toBe('Then this')
  })
})
