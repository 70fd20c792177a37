// Epic updates go in bulk (PATCH /epics/bulk, up to 100 a request); a bulk the
// service refuses is sent again item by item, so only the bad item fails.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { outboxRecords, outboxStatus } from './records.ts'
import { actionsFor, counting, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  kit = (await startFilledKit({ seed: { epics: 150 } })).kit
  epics = await kit.db.epics.orderBy('id').toArray()
})
afterEach(async () => kit.close())

const serverNames = async (): Promise<Map<number, string>> =>
  new Map(((await v3(kit.service).get('/epics')).body as { id: number; name: string }[]).map((e) => [e.id, e.name]))

describe('bulk epic updates', () => {
  it('sends N updates in ceil(N/100) requests', async () => {
    const { db } = kit
    expect(epics.length).toBeGreaterThanOrEqual(150)
    const act = actionsFor(db, offline(kit.transport))
    const chosen = epics.slice(0, 150)
    for (const [i, e] of chosen.entries()) await act.updateEpic(e.id, { name: `Bulk ${i}`, description: `Updated in bulk ${i}` })
    expect((await outboxStatus(db)).pending).toBe(150)

    const t = counting(kit.transport)
    const result = await replayFast(db, t)
    expect(result).toMatchObject({ confirmed: 150, failed: 0, conflicts: 0, remaining: 0 })
    expect(t.counts.get('epics.bulkUpdate')).toBe(2)
    expect(t.counts.get('epics.update')).toBeUndefined()
    const names = await serverNames()
    for (const [i, e] of chosen.entries()) expect(names.get(e.id as number)).toBe(`Bulk ${i}`)
    expect(await db.overlay.count()).toBe(0)
    expect((await db.epics.get(chosen[42].id as number))?.description).toBe('Updated in bulk 42')
  })

  it('falls back to single requests when a bulk is refused: only the bad item fails', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const chosen = epics.slice(0, 5)
    // A state the service does not have: a well-formed request it refuses (422).
    for (const [i, e] of chosen.entries()) await act.updateEpic(e.id, i === 2 ? { name: 'Bad 2', epic_state_id: 987_654 } : { name: `Good ${i}` })

    const t = counting(kit.transport)
    const result = await replayFast(db, t)
    expect(result).toMatchObject({ confirmed: 4, failed: 1, conflicts: 0 })
    expect(t.counts.get('epics.bulkUpdate')).toBe(1)
    expect(t.counts.get('epics.update')).toBe(5)
    const names = await serverNames()
    for (const [i, e] of chosen.entries()) expect(names.get(e.id as number)).toBe(i === 2 ? e.name : `Good ${i}`)

    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed).toMatchObject({ entityId: String(chosen[2].id), payload: { name: 'Bad 2', epic_state_id: 987_654 }, error: { status: 422 } })
    expect(failed.error?.errors?.epic_state_id).toBeTruthy()
    // The user's text is still what they see, until they fix or discard it.
    expect((await mergedEpic(db, chosen[2].id))?.name).toBe('Bad 2')
  })

  it('text past its limit fails before it is sent and does not hold back the bulk', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const chosen = epics.slice(5, 9)
    const tooLong = 'x'.repeat(257)
    for (const [i, e] of chosen.entries()) await act.updateEpic(e.id, { name: i === 1 ? tooLong : `Fits ${i}` })

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 3, failed: 1 })
    expect(t.counts.get('epics.bulkUpdate')).toBe(1)
    expect(t.counts.get('epics.update')).toBeUndefined()
    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed).toMatchObject({ entityId: String(chosen[1].id), payload: { name: tooLong }, error: { errors: { name: 'must be at most 256 characters' } } })
    expect((await mergedEpic(db, chosen[1].id))?.name).toBe(tooLong)
  })
})
