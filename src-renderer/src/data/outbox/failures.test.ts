// Writes the service refuses (fix and retry, or discard), a refused or
// read-only token, and failures that only need time (5xx, network).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { epicsWithExternalId, v4 } from '../../../../testing/service.ts'
import { READ_ONLY_MESSAGE, WriteRefused } from '../actions.ts'
import { mergedComments, mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { discardRecord, outboxRecords, outboxStatus, retryRecord } from './records.ts'
import { actionsFor, offline, replayFast, replayUntilDone, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit())
})
afterEach(async () => kit.close())

const tooLong = 'n'.repeat(300)

describe('a write the service refuses (4xx)', () => {
  it('fails with the service message, keeps the text, and goes once fixed and retried', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    // A state the service does not have: a well-formed request it refuses (422).
    await act.updateEpic(epics[0].id, { name: 'Refused name', epic_state_id: 987_654 })
    await act.updateEpic(epics[1].id, { name: 'Fine' })

    const result = await replayFast(db, kit.transport)
    expect(result).toMatchObject({ confirmed: 1, failed: 1 })
    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed.error).toMatchObject({ status: 422 })
    expect(failed.error!.message).toMatch(/state/i)
    expect(failed.error!.errors).toHaveProperty('epic_state_id')
    expect(failed.payload).toEqual({ name: 'Refused name', epic_state_id: 987_654 })
    expect((await mergedEpic(db, epics[0].id))?.name).toBe('Refused name')
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 1 })
    expect((await v4(kit.service).get(`/epics/${epics[1].id}`)).body.name).toBe('Fine')

    await retryRecord(db, failed.seq!, { name: 'Fixed name', epic_state_id: epics[0].epic_state_id })
    expect((await mergedEpic(db, epics[0].id))?.name).toBe('Fixed name')
    expect((await replayFast(db, kit.transport)).confirmed).toBe(1)
    expect((await v4(kit.service).get(`/epics/${epics[0].id}`)).body.name).toBe('Fixed name')
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0 })
  })

  it('discarding it rolls the overlay back to what the service has', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const epic = epics[0]
    await act.updateEpic(epic.id, { name: tooLong, description: 'Goes with it' })
    await replayFast(db, kit.transport)
    const [failed] = await outboxRecords(db, ['failed'])
    expect((await mergedEpic(db, epic.id))?.description).toBe('Goes with it')

    await discardRecord(db, failed.seq!)
    expect(await mergedEpic(db, epic.id)).toMatchObject({ name: epic.name, description: epic.description })
    expect(await db.overlay.count()).toBe(0)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0 })
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.name).toBe(epic.name)
  })

  it('blocks only what depends on it; discarding a failed create drops its dependants', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const bad = await act.createEpic({ name: tooLong })
    await act.createComment(bad, 'On the epic that failed')
    await act.updateEpic(epics[0].id, { description: 'Independent' })

    const result = await replayFast(db, kit.transport)
    expect(result).toMatchObject({ confirmed: 1, failed: 1 })
    const waiting = await outboxRecords(db)
    expect(waiting.map((r) => [r.kind, r.state])).toEqual([
      ['epic', 'failed'],
      ['comment', 'pending'],
    ])
    expect((await v4(kit.service).get(`/epics/${epics[0].id}`)).body.description).toBe('Independent')

    await discardRecord(db, waiting[0].seq!)
    expect(await outboxRecords(db)).toEqual([])
    expect(await mergedEpic(db, bad)).toBeUndefined()
    expect(await mergedComments(db, bad)).toEqual([])
  })
})

describe('tokens', () => {
  it('a read-only token refuses writes at once, and queues nothing', async () => {
    const { db } = kit
    const act = actionsFor(db, kit.transport, { canWrite: false })
    await expect(act.updateEpic(epics[0].id, { name: 'Nope' })).rejects.toThrow(WriteRefused)
    await expect(act.createEpic({ name: 'Nope' })).rejects.toThrow(READ_ONLY_MESSAGE)
    await expect(act.createComment(epics[0].id, 'Nope')).rejects.toMatchObject({ reason: 'read-only' })
    await expect(act.uploadFile({ path: '/nonexistent', name: 'x' })).rejects.toThrow(WriteRefused)
    expect(await db.outbox.count()).toBe(0)
    expect(await db.overlay.count()).toBe(0)
  })

  it('a token that became read-only pauses replay; nothing fails', async () => {
    const { db } = kit
    await actionsFor(db, offline(kit.transport)).updateEpic(epics[0].id, { name: 'Queued with a read-write token' })
    const result = await replayFast(db, kit.transportFor(kit.service.tokens.readonly))
    expect(result.stopped).toBe('read-only')
    expect(await outboxStatus(db)).toMatchObject({ pending: 1, failed: 0, paused: { reason: 'read-only' } })
  })

  it('401 pauses everything until there is a token, then goes on', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    await act.updateEpic(epics[0].id, { name: 'After sign-in' })
    await act.createEpic({ name: 'Also after sign-in' })
    const result = await replayFast(db, kit.transportFor('svc_rw_not-a-real-token'))
    expect(result.stopped).toBe('auth')
    const status = await outboxStatus(db)
    expect(status).toMatchObject({ pending: 2, failed: 0, inFlight: 0 })
    expect(status.paused?.message).toMatch(/token/i)

    await replayUntilDone(db, kit.transport)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0, paused: null })
    expect((await v4(kit.service).get(`/epics/${epics[0].id}`)).body.name).toBe('After sign-in')
  })
})

describe('failures that only need time', () => {
  it('5xx: backs off, keeps everything queued, and sends it once the service recovers', async () => {
    const { db, service } = kit
    const act = actionsFor(db, kit.transport)
    await act.updateEpic(epics[0].id, { name: 'Through the outage' })
    const slept: number[] = []
    service.setFaults({ failRate: 1 })
    const result = await replayFast(db, kit.transport, { sleep: async (ms) => void slept.push(ms), backoff: { baseMs: 100, maxMs: 1000, attempts: 5 } })
    expect(result.stopped).toBe('offline')
    // Exponential with jitter: each pause between half and all of base * 2^n.
    expect(slept).toHaveLength(4)
    slept.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual((100 * 2 ** i) / 2)
      expect(ms).toBeLessThanOrEqual(100 * 2 ** i)
    })
    // A create meeting a 5xx may have been applied: it stays in flight, to be looked up before it goes again.
    const created = await act.createEpic({ name: 'Created through the outage' })
    expect((await replayFast(db, kit.transport)).stopped).toBe('offline')
    expect(await outboxStatus(db)).toMatchObject({ pending: 2, failed: 0 })

    service.setFaults({ failRate: 0 })
    await replayUntilDone(db, kit.transport)
    expect((await v4(service).get(`/epics/${epics[0].id}`)).body.name).toBe('Through the outage')
    const external = (await mergedEpic(db, created))!.external_id!
    expect(await epicsWithExternalId(service, external)).toHaveLength(1)
  })
})
