// Labels made by name (offline too): epic writes that name a label made offline
// wait for it and go with its service id. Names are unique: one the service
// already has fails the label with its message, and the epic waits.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3, v4 } from '../../../../testing/service.ts'
import { WriteRefused } from '../actions.ts'
import { mergedEpic, mergedLabels } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { discardRecord, outboxRecords, outboxStatus, retryRecord } from './records.ts'
import { readyRecords } from './readiness.ts'
import { actionsFor, counting, offline, replayFast, replayUntilDone, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit({ seed: 'demo' }))
})
afterEach(async () => kit.close())

const labelsNamed = async (name: string): Promise<{ id: number; name: string; color: string | null }[]> =>
  ((await v3(kit.service).get('/labels')).body as { id: number; name: string; color: string | null }[]).filter((l) => l.name === name)

const epicLabelIds = async (id: number | string): Promise<number[]> =>
  ((await v4(kit.service).get(`/epics/${id}`)).body.labels.entities as { id: number }[]).map((l) => l.id)

describe('labels made offline', () => {
  it('a label made and used on epics in one offline spell: made once, the epics carry its service id', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const label = await act.createLabel({ name: 'made-offline', color: '#336699' })
    expect(label).toMatch(/^local:/)
    expect((await mergedLabels(db)).find((l) => l.id === label)).toMatchObject({ name: 'made-offline', color: '#336699' })

    const existing = epics[0]
    await act.updateEpic(existing.id, { label_ids: [...existing.label_ids, label] })
    const created = await act.createEpic({ name: 'Labelled offline', label_ids: [label] })
    expect((await mergedEpic(db, existing.id))?.label_ids).toContain(label)
    // Only the label goes first; both epic writes wait for it.
    expect(readyRecords(await outboxRecords(db)).map((r) => r.kind)).toEqual(['label'])

    const t = counting(kit.transport)
    await replayUntilDone(db, t)
    expect(t.counts.get('labels.create')).toBe(1)
    const [made] = await labelsNamed('made-offline')
    expect(await labelsNamed('made-offline')).toEqual([expect.objectContaining({ color: '#336699' })])

    expect(await epicLabelIds(existing.id)).toEqual(expect.arrayContaining([...existing.label_ids, made.id]))
    const createdId = (await mergedEpic(db, created))!.id
    expect(await epicLabelIds(createdId)).toEqual([made.id])
    // The cache has it under its service id, and every read shows that id.
    expect((await mergedEpic(db, existing.id))?.label_ids).toContain(made.id)
    expect((await mergedEpic(db, existing.id))?.label_ids).not.toContain(label)
    expect((await mergedLabels(db)).filter((l) => l.name === 'made-offline')).toEqual([expect.objectContaining({ id: made.id })])
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0 })

    // The local id keeps working in later actions.
    await act.updateEpic(epics[1].id, { label_ids: [label] })
    expect((await outboxRecords(db))[0].payload.label_ids).toEqual([made.id])
  })

  it('a name the service already has: the label fails with the service message, the epic waits; a new name lands both', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const label = await act.createLabel({ name: 'taken-meanwhile' })
    await act.updateEpic(epics[0].id, { label_ids: [label] })
    expect((await v3(kit.service).post('/labels', { name: 'taken-meanwhile' })).status).toBe(201)

    expect(await replayFast(db, kit.transport)).toMatchObject({ failed: 1, confirmed: 0 })
    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed).toMatchObject({ kind: 'label', entityId: label, error: { status: 422, message: 'A label named "taken-meanwhile" already exists.' } })
    expect(failed.error?.errors).toHaveProperty('name')
    // The epic waits for its label: still queued, not sent, not failed.
    expect((await outboxRecords(db)).map((r) => [r.kind, r.state])).toEqual([
      ['label', 'failed'],
      ['epic', 'pending'],
    ])
    expect(readyRecords(await outboxRecords(db))).toEqual([])
    expect(await epicLabelIds(epics[0].id)).toEqual(epics[0].label_ids)

    await retryRecord(db, failed.seq!, { name: 'renamed-after-refusal' })
    await replayUntilDone(db, kit.transport)
    const [made] = await labelsNamed('renamed-after-refusal')
    expect(await epicLabelIds(epics[0].id)).toEqual([made.id])
    expect(await labelsNamed('taken-meanwhile')).toHaveLength(1)
  })

  it('discarding a refused label lets the epic go without it', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const label = await act.createLabel({ name: 'refused-then-discarded' })
    await act.updateEpic(epics[0].id, { name: 'Goes without the label', label_ids: [label] })
    await v3(kit.service).post('/labels', { name: 'refused-then-discarded' })
    await replayFast(db, kit.transport)
    const [failed] = await outboxRecords(db, ['failed'])

    await discardRecord(db, failed.seq!)
    await replayUntilDone(db, kit.transport)
    expect((await v4(kit.service).get(`/epics/${epics[0].id}`)).body.name).toBe('Goes without the label')
    expect(await epicLabelIds(epics[0].id)).toEqual([])
    expect(await labelsNamed('refused-then-discarded')).toHaveLength(1)
  })

  it('an answer lost after the label was made: found by its external_id, made once', async () => {
    const { db, service } = kit
    const act = actionsFor(db, offline(kit.transport))
    const label = await act.createLabel({ name: 'answer-lost' })
    service.setFaults({ dropAfterCommitRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 1 } })).stopped).toBe('offline')
    service.setFaults({ dropAfterCommitRate: 0 })

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 1, remaining: 0 })
    expect(t.counts.get('labels.create')).toBeUndefined()
    expect(t.counts.get('labels.list')).toBe(1)
    const [made] = await labelsNamed('answer-lost')
    expect(await labelsNamed('answer-lost')).toHaveLength(1)
    expect((await mergedLabels(db)).find((l) => l.name === 'answer-lost')?.id).toBe(made.id)
    expect(label).toMatch(/^local:/)
  })

  it('someone else made a label of that name while ours waited, and our answer was lost: theirs is never taken for ours', async () => {
    const { db, service } = kit
    const act = actionsFor(db, offline(kit.transport))
    const label = await act.createLabel({ name: 'made-twice', color: '#aa0000' })
    await act.updateEpic(epics[0].id, { label_ids: [label] })
    expect((await v3(service).post('/labels', { name: 'made-twice' })).status).toBe(201)
    // Ours leaves; the service fails it (503: it may or may not have been made), so it is looked for before it goes again.
    service.setFaults({ failRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 1 } })).stopped).toBe('offline')
    service.setFaults({ failRate: 0 })
    expect((await outboxRecords(db))[0]).toMatchObject({ kind: 'label', state: 'in-flight' })

    await replayFast(db, kit.transport)
    // Not found (theirs is not ours), sent again, and refused as taken: the user is asked for another name.
    const [failed] = await outboxRecords(db, ['failed'])
    expect(failed).toMatchObject({ kind: 'label', entityId: label, error: { status: 422, message: 'A label named "made-twice" already exists.' } })
    expect(await epicLabelIds(epics[0].id)).toEqual(epics[0].label_ids)
    expect((await mergedLabels(db)).find((l) => l.id === label)).toMatchObject({ name: 'made-twice', color: '#aa0000' })

    await retryRecord(db, failed.seq!, { name: 'made-once' })
    await replayUntilDone(db, kit.transport)
    const [made] = await labelsNamed('made-once')
    expect(made).toMatchObject({ color: '#aa0000' })
    expect(await epicLabelIds(epics[0].id)).toEqual([made.id])
    expect(await labelsNamed('made-twice')).toHaveLength(1)
  })

  it('a name the cache already knows (or none) is refused at once, nothing queued', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const known = (await db.labels.toArray())[0]
    await expect(act.createLabel({ name: known.name })).rejects.toThrow(WriteRefused)
    await act.createLabel({ name: 'only-once' })
    await expect(act.createLabel({ name: 'only-once' })).rejects.toMatchObject({ reason: 'invalid' })
    await expect(act.createLabel({ name: '  ' })).rejects.toMatchObject({ reason: 'invalid' })
    expect((await outboxRecords(db)).map((r) => r.payload.name)).toEqual(['only-once'])
  })
})
