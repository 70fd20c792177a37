// Writes that name an entity created offline wait for its create, and are
// rewritten to the service's id once it is confirmed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3, v4 } from '../../../../testing/service.ts'
import { mergedComments, mergedEpic, mergedObjective } from '../overlay.ts'
import type { OperationName, OperationRequest } from '../../../../src-shared/api/operations.ts'
import type { Transport } from '../transport.ts'
import type { CachedEpic } from '../types.ts'
import { outboxRecords } from './records.ts'
import { readyRecords } from './readiness.ts'
import { actionsFor, gated, offline, replayFast, replayUntilDone, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit())
})
afterEach(async () => kit.close())

describe('dependencies on local ids', () => {
  it('a comment made offline and deleted once it had replies: the replies stay, as they do on the service', async () => {
    const { db, service } = kit
    const act = actionsFor(db, offline(kit.transport))
    const epic = epics[0].id
    const comment = await act.createComment(epic, 'Deleted once answered')
    await act.replyToComment(comment, 'The answer stays')
    await act.deleteComment(comment)
    expect((await mergedComments(db, epic)).map((c) => c.text)).toContain('The answer stays')
    expect((await mergedComments(db, epic)).map((c) => c.text)).not.toContain('Deleted once answered')

    await replayUntilDone(db, kit.transport)
    expect(await outboxRecords(db)).toEqual([])
    const threads = (await v3(service).get(`/epics/${epic}/comments`)).body as { text: string; deleted: boolean; comments: { text: string }[] }[]
    const placeholder = threads.find((t) => t.comments.some((c) => c.text === 'The answer stays'))
    expect(placeholder).toMatchObject({ deleted: true })
    expect(threads.some((t) => t.text === 'Deleted once answered')).toBe(false)
  })

  it('a reply made in the same millisecond as its comment shows after it, whatever their ids', async () => {
    const { db } = kit
    // One instant for both, and ids that sort the reply first.
    const ids = ['ffffffff-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']
    const act = actionsFor(db, offline(kit.transport), { clock: () => Date.UTC(2026, 10, 28, 9), uuid: () => ids.shift()! })
    const comment = await act.createComment(epics[1].id, 'Said first')
    await act.replyToComment(comment, 'The answer')
    expect((await mergedComments(db, epics[1].id)).filter((c) => c.text === 'Said first' || c.text === 'The answer').map((c) => c.text)).toEqual([
      'Said first',
      'The answer',
    ])
  })

  it('comments, replies, health, links and references to entities created offline go once those exist', async () => {
    const { db, service } = kit
    const act = actionsFor(db, offline(kit.transport))
    const epic = await act.createEpic({ name: 'Made offline, talked about offline' })
    const comment = await act.createComment(epic, 'First!')
    const reply = await act.replyToComment(comment, 'A reply to a comment that does not exist yet')
    await act.setEpicHealth(epic, { status: 'On Track', text: 'Fine so far' })
    const doc = await act.createDoc({ title: 'Design of the offline epic', content_markdown: 'Text' })
    await act.linkDocToEpic(doc, epic)
    const category = await act.createCategory({ name: 'Made offline too' })
    const objective = await act.createObjective({ name: 'Objective made offline', category_ids: [category] })
    await act.updateEpic(epics[0].id, { objective_ids: [...epics[0].objective_ids, objective] })

    // Only the creates are ready; everything else waits for them.
    const ready = readyRecords(await outboxRecords(db)).map((r) => r.kind)
    expect(ready.sort()).toEqual(['category', 'doc', 'epic'])
    expect((await mergedComments(db, epic)).map((c) => c.text)).toEqual(['First!', 'A reply to a comment that does not exist yet'])

    await replayUntilDone(db, kit.transport)
    expect(await outboxRecords(db)).toEqual([])
    const epicId = (await mergedEpic(db, epic))!.id as number
    expect(typeof epicId).toBe('number')

    const threads = (await v3(service).get(`/epics/${epicId}/comments`)).body as { text: string; comments: { text: string }[] }[]
    expect(threads).toEqual([
      expect.objectContaining({ text: 'First!', comments: [expect.objectContaining({ text: 'A reply to a comment that does not exist yet' })] }),
    ])
    expect((await v3(service).get(`/epics/${epicId}/health`)).body).toMatchObject({ status: 'On Track', text: 'Fine so far' })
    const docs = (await v3(service).get(`/epics/${epicId}/documents`)).body as { title: string }[]
    expect(docs.map((d) => d.title)).toEqual(['Design of the offline epic'])
    const objectiveId = (await mergedObjective(db, objective))!.id as number
    expect(((await v3(service).get(`/objectives/${objectiveId}`)).body.categories as { name: string }[]).map((c) => c.name)).toEqual(['Made offline too'])
    expect((await v4(service).get(`/epics/${epics[0].id}`)).body.objectives.entities.map((o: { id: number }) => o.id)).toContain(objectiveId)

    // The cache holds them under service ids; the reply knows its parent's service id.
    const cached = await mergedComments(db, epicId)
    expect(cached.map((c) => typeof c.id)).toEqual(['number', 'number'])
    expect(cached[1].parent_id).toBe(cached[0].id)
    expect(await mergedComments(db, epic)).toEqual(cached)
    expect(reply).toMatch(/^local:/)
  })

  it('an update of an epic whose create is in flight waits for it, then goes under its service id', async () => {
    const { db } = kit
    const t = gated(kit.transport, 'epics.create')
    const act = actionsFor(db, t)
    const epic = await act.createEpic({ name: 'In flight' })
    const pass = replayFast(db, t)
    await t.reached
    await act.updateEpic(epic, { description: 'Written while it was being created' })
    const records = await outboxRecords(db)
    expect(records.map((r) => [r.op, r.state])).toEqual([
      ['create', 'in-flight'],
      ['update', 'pending'],
    ])
    expect(readyRecords(records).map((r) => r.op)).toEqual(['create'])
    expect((await mergedEpic(db, epic))?.description).toBe('Written while it was being created')

    t.open()
    expect(await pass).toMatchObject({ confirmed: 2, remaining: 0 })
    const id = (await mergedEpic(db, epic))!.id
    expect((await v4(kit.service).get(`/epics/${id}`)).body).toMatchObject({ name: 'In flight', description: 'Written while it was being created' })

    // The local id keeps working for actions after the create was confirmed.
    await act.updateEpic(epic, { name: 'Renamed by its old id' })
    expect((await outboxRecords(db))[0].entityId).toBe(String(id))
    await replayFast(db, kit.transport)
    expect((await v4(kit.service).get(`/epics/${id}`)).body.name).toBe('Renamed by its old id')
  })

  it('a field the service fills in on create, set while the create was in flight, goes though the epic changed since', async () => {
    const { db, service } = kit
    const members = ((await v3(service).get('/members')).body as { id: string; disabled: boolean }[]).filter((m) => !m.disabled).map((m) => m.id)
    const me = ((await v3(service).get('/member')).body as { id: string }).id
    const requester = members.find((m) => m !== me)!
    // Someone else changes another field of the new epic between the create's answer and my update's check: the
    // service's version is not the one the create answered.
    let created: number | undefined
    const meddling: Transport = {
      ...kit.transport,
      call: async <T>(name: OperationName, request?: OperationRequest): Promise<T> => {
        if (name !== 'epics.create' && created !== undefined) {
          const id = created
          created = undefined
          expect((await v4(service, service.tokens.member).patch(`/epics/${id}`, { deadline: '2027-01-15T00:00:00Z' })).status).toBe(200)
        }
        const answer = await kit.transport.call<T>(name, request)
        if (name === 'epics.create') created = (answer as { id: number }).id
        return answer
      },
    }
    const t = gated(meddling, 'epics.create')
    const act = actionsFor(db, t)
    const epic = await act.createEpic({ name: 'Requested by someone else' })
    const pass = replayFast(db, t)
    await t.reached
    // The window shows who requested it empty (the service fills it in): the user sets it.
    expect((await mergedEpic(db, epic))?.requested_by_id ?? null).toBeNull()
    await act.updateEpic(epic, { requested_by_id: requester })
    t.open()

    // What the service filled in is no one's change of the field: mine goes, with no conflict.
    expect(await pass).toMatchObject({ confirmed: 2, conflicts: 0 })
    const id = (await mergedEpic(db, epic))!.id
    expect((await v3(service).get(`/epics/${id}`)).body).toMatchObject({ requested_by_id: requester, deadline: '2027-01-15T00:00:00Z' })
  })
})
