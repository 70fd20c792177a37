// Epic creates go in bulk (POST /epics/bulk, up to 100 a request), each with
// its external_id. A bulk the service refuses is sent again item by item, so
// only the bad item fails; one whose answer is lost is looked up by external_id
// in one go, and only what the service does not have is sent again.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { mergedEpic } from '../overlay.ts'
import { outboxRecords, outboxStatus } from './records.ts'
import { actionsFor, counting, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
beforeEach(async () => {
  kit = (await startFilledKit({ seed: 'demo' })).kit
})
afterEach(async () => kit.close())

/** The epics on the service carrying each external_id (the exactly-once check). */
const onService = async (externalIds: string[]): Promise<Map<string, { id: number; name: string }[]>> => {
  const all = (await v3(kit.service).get('/epics')).body as { id: number; name: string; external_id: string | null }[]
  return new Map(externalIds.map((x) => [x, all.filter((e) => e.external_id === x)]))
}

const queueCreates = async (names: string[]): Promise<{ locals: string[]; externalIds: string[] }> => {
  const act = actionsFor(kit.db, offline(kit.transport))
  const locals: string[] = []
  for (const name of names) locals.push(await act.createEpic({ name, description: `About ${name}` }))
  const records = await outboxRecords(kit.db)
  return { locals, externalIds: locals.map((l) => records.find((r) => r.entityId === l)!.externalId!) }
}

describe('bulk epic creates', () => {
  it('sends N creates in ceil(N/100) requests, and every one lands once under its service id', async () => {
    const { db } = kit
    const names = Array.from({ length: 130 }, (_, i) => `Bulk created ${i}`)
    const { locals, externalIds } = await queueCreates(names)

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 130, failed: 0, remaining: 0 })
    expect(t.counts.get('epics.bulkCreate')).toBe(2)
    expect(t.total()).toBe(2)
    const found = await onService(externalIds)
    for (const [i, local] of locals.entries()) {
      const mine = found.get(externalIds[i])!
      expect(mine).toEqual([expect.objectContaining({ name: names[i] })])
      expect(await mergedEpic(db, local)).toMatchObject({ id: mine[0].id, name: names[i], description: `About ${names[i]}` })
    }
    expect(await db.overlay.count()).toBe(0)
  })

  it('a bulk refused for one bad item goes again item by item: only that one fails, with the service message', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const locals = [
      await act.createEpic({ name: 'Good one' }),
      // A state the service does not have: a well-formed create it refuses (422).
      await act.createEpic({ name: 'Bad state', epic_state_id: 987_654 }),
      await act.createEpic({ name: 'Good two' }),
    ]
    const records = await outboxRecords(db)
    const externalIds = locals.map((l) => records.find((r) => r.entityId === l)!.externalId!)

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 2, failed: 1 })
    expect(t.counts.get('epics.bulkCreate')).toBe(1)
    expect(t.counts.get('epics.create')).toBe(3)
    const found = await onService(externalIds)
    expect(found.get(externalIds[0])).toHaveLength(1)
    expect(found.get(externalIds[1])).toHaveLength(0)
    expect(found.get(externalIds[2])).toHaveLength(1)

    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed).toMatchObject({ entityId: locals[1], op: 'create', error: { status: 422 } })
    expect(failed.error?.errors?.epic_state_id).toBeTruthy()
    // What the user wrote stays, to fix or discard.
    expect((await mergedEpic(db, locals[1]))?.name).toBe('Bad state')
  })

  it('an answer lost after the bulk committed: the next pass finds them all in one look and sends nothing again', async () => {
    const { db, service } = kit
    const { locals, externalIds } = await queueCreates(['Lost answer 0', 'Lost answer 1', 'Lost answer 2', 'Lost answer 3'])
    service.setFaults({ dropAfterCommitRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 1 } })).stopped).toBe('offline')
    expect((await outboxRecords(db)).map((r) => r.state)).toEqual(['in-flight', 'in-flight', 'in-flight', 'in-flight'])

    service.setFaults({ dropAfterCommitRate: 0 })
    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 4, remaining: 0 })
    expect(t.counts.get('epics.bulkCreate')).toBeUndefined()
    expect(t.counts.get('epics.create')).toBeUndefined()
    expect(t.counts.get('epics.list')).toBe(1)
    const found = await onService(externalIds)
    for (const [i, local] of locals.entries()) {
      expect(found.get(externalIds[i])).toHaveLength(1)
      expect((await mergedEpic(db, local))?.id).toBe(found.get(externalIds[i])![0].id)
    }
  })

  it('a connection dropped before the service handled the bulk: looked up, not found, sent once', async () => {
    const { db, service } = kit
    const { externalIds } = await queueCreates(['Dropped 0', 'Dropped 1', 'Dropped 2'])
    service.setFaults({ dropRate: 1 })
    await replayFast(db, kit.transport, { backoff: { attempts: 1 } })
    service.setFaults({ dropRate: 0 })
    // The client cannot tell a drop before from one after the commit: all three may have been made.
    expect((await outboxRecords(db)).map((r) => r.state)).toEqual(['in-flight', 'in-flight', 'in-flight'])
    expect(await onService(externalIds)).toEqual(new Map(externalIds.map((x) => [x, []])))

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 3, remaining: 0 })
    expect(t.counts.get('epics.list')).toBe(1)
    expect(t.counts.get('epics.bulkCreate')).toBe(1)
    for (const list of (await onService(externalIds)).values()) expect(list).toHaveLength(1)
  })

  it('in flight and new creates together: the lost ones are looked up, then the rest goes in one bulk', async () => {
    const { db, service } = kit
    const first = await queueCreates(['Sent before 0', 'Sent before 1'])
    service.setFaults({ dropAfterCommitRate: 1 })
    await replayFast(db, kit.transport, { backoff: { attempts: 1 } })
    service.setFaults({ dropAfterCommitRate: 0 })
    const second = await queueCreates(['Queued after 0', 'Queued after 1', 'Queued after 2'])

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 5, remaining: 0 })
    expect(t.counts.get('epics.bulkCreate')).toBe(1)
    expect(t.counts.get('epics.list')).toBe(1)
    for (const list of (await onService([...first.externalIds, ...second.externalIds])).values()) expect(list).toHaveLength(1)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0 })
  })
})
