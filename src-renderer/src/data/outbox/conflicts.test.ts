// Conflicts: a field changed here and on the service since the write was
// queued; fields only one side changed merge without asking; a 404 on update is
// "deleted elsewhere". And how each is resolved.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3, v4 } from '../../../../testing/service.ts'
import { mergedComments, mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { outboxRecords, outboxStatus, resolveConflict } from './records.ts'
import { actionsFor, counting, fillComments, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit())
})
afterEach(async () => kit.close())

const elsewhere = (path: string, body: unknown) => v4(kit.service, kit.service.tokens.member).patch(path, body)

describe('conflicts', () => {
  it('the same field changed on both sides: a conflict with base, mine and theirs; mine wins when chosen', async () => {
    const { db } = kit
    const epic = epics[0]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { name: 'Mine' })
    expect((await elsewhere(`/epics/${epic.id}`, { name: 'Theirs' })).status).toBe(200)

    const result = await replayFast(db, kit.transport)
    expect(result).toMatchObject({ conflicts: 1, confirmed: 0 })
    const [record] = await outboxRecords(db, ['conflict'])
    expect(record.conflict?.fields).toEqual({ name: { base: epic.name, mine: 'Mine', theirs: 'Theirs' } })
    expect((await mergedEpic(db, epic.id))?.name).toBe('Mine')
    expect((await db.epics.get(epic.id as number))?.name).toBe('Theirs')
    expect(await outboxStatus(db)).toMatchObject({ conflicts: 1, pending: 0 })

    await resolveConflict(db, record.seq!, { name: 'mine' })
    await replayFast(db, kit.transport)
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.name).toBe('Mine')
    expect(await outboxRecords(db)).toEqual([])
  })

  it('fields only one side changed merge without asking', async () => {
    const { db } = kit
    const epic = epics[1]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { name: 'My name' })
    await elsewhere(`/epics/${epic.id}`, { description: 'Their description' })
    const result = await replayFast(db, kit.transport)
    expect(result).toMatchObject({ confirmed: 1, conflicts: 0 })
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body).toMatchObject({ name: 'My name', description: 'Their description' })
    expect(await mergedEpic(db, epic.id)).toMatchObject({ name: 'My name', description: 'Their description' })
  })

  it('a partial conflict sends the clean fields now and keeps only the conflicting one; a custom value resolves it', async () => {
    const { db } = kit
    const epic = epics[2]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { name: 'Clean change', description: 'My text' })
    await elsewhere(`/epics/${epic.id}`, { description: 'Their text' })

    await replayFast(db, kit.transport)
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body).toMatchObject({ name: 'Clean change', description: 'Their text' })
    const [record] = await outboxRecords(db, ['conflict'])
    expect(record.payload).toEqual({ description: 'My text' })
    expect(Object.keys(record.conflict!.fields)).toEqual(['description'])
    expect(await mergedEpic(db, epic.id)).toMatchObject({ name: 'Clean change', description: 'My text' })

    await resolveConflict(db, record.seq!, { description: { value: 'Both texts, merged by hand' } })
    await replayFast(db, kit.transport)
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.description).toBe('Both texts, merged by hand')
  })

  it('choosing theirs drops mine without sending anything', async () => {
    const { db } = kit
    const epic = epics[3]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { name: 'Mine' })
    await elsewhere(`/epics/${epic.id}`, { name: 'Theirs' })
    await replayFast(db, kit.transport)
    const [record] = await outboxRecords(db, ['conflict'])
    await resolveConflict(db, record.seq!, 'theirs')
    expect(await outboxRecords(db)).toEqual([])
    expect((await mergedEpic(db, epic.id))?.name).toBe('Theirs')
    const t = counting(kit.transport)
    await replayFast(db, t)
    expect(t.total()).toBe(0)
  })

  it('a comment edited on both sides (fetched one by one, not in bulk)', async () => {
    const { db } = kit
    const epic = epics[0]
    await v3(kit.service).post(`/epics/${epic.id}/comments`, { text: 'Before anyone edited it' })
    await fillComments(db, kit.transport, epic.id as number)
    const mine = (await mergedComments(db, epic.id)).find((c) => !c.deleted)!
    await actionsFor(db, offline(kit.transport)).editComment(mine.id, 'My edit')
    const put = await v3(kit.service).put(`/epics/${epic.id}/comments/${mine.id}`, { text: 'Their edit' })
    expect(put.status).toBe(200)
    await replayFast(db, kit.transport)
    const [record] = await outboxRecords(db, ['conflict'])
    expect(record.conflict?.fields.text).toEqual({ base: mine.text, mine: 'My edit', theirs: 'Their edit' })
  })
})

describe('deleted elsewhere', () => {
  it('a 404 on update is a conflict; theirs accepts the deletion', async () => {
    const { db } = kit
    const epic = epics[0]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { name: 'Edited offline' })
    expect((await v4(kit.service).delete(`/epics/${epic.id}`, undefined, { query: { force: true } })).status).toBe(204)

    const result = await replayFast(db, kit.transport)
    expect(result.conflicts).toBe(1)
    const [record] = await outboxRecords(db, ['conflict'])
    expect(record.conflict).toMatchObject({ deletedElsewhere: true })

    await resolveConflict(db, record.seq!, 'theirs')
    expect(await outboxRecords(db)).toEqual([])
    expect(await mergedEpic(db, epic.id)).toBeUndefined()
  })

  it('mine queues it again as a new epic with what the user saw', async () => {
    const { db } = kit
    const epic = epics[1]
    await actionsFor(db, offline(kit.transport)).updateEpic(epic.id, { name: 'Keep this one' })
    await v4(kit.service).delete(`/epics/${epic.id}`, undefined, { query: { force: true } })
    await replayFast(db, kit.transport)
    const [record] = await outboxRecords(db, ['conflict'])

    const { recreatedAs } = await resolveConflict(db, record.seq!, 'mine')
    expect(recreatedAs).toMatch(/^local:/)
    expect((await mergedEpic(db, recreatedAs!))?.name).toBe('Keep this one')
    await replayFast(db, kit.transport)
    const again = (await mergedEpic(db, recreatedAs!))!
    expect(typeof again.id).toBe('number')
    expect((await v4(kit.service).get(`/epics/${again.id}`)).body).toMatchObject({ name: 'Keep this one', description: epic.description })
  })
})
