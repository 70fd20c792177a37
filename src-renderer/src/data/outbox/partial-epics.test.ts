// An epic the bootstrap stored from the v3 list of every epic has no
// description yet (partial): what the service holds is not known. It is never
// written over blind, and it is complete once an answer brings it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v4 } from '../../../../testing/service.ts'
import { actionsFor, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'
import { DESCRIPTION_NOT_LOADED, WriteRefused } from '../actions.ts'
import { mergedEpic } from '../overlay.ts'
import { createSyncer } from '../sync/index.ts'
import type { CachedEpic } from '../types.ts'
import { enqueue } from './queue.ts'
import { outboxRecords } from './records.ts'

let kit: Kit
let epic: CachedEpic
const DESCRIBED = 'What the service holds, never downloaded.'

beforeEach(async () => {
  const started = await startFilledKit()
  kit = started.kit
  epic = started.epics[0]
  expect((await v4(kit.service, kit.service.tokens.member).patch(`/epics/${epic.id}`, { description: DESCRIBED })).status).toBe(200)
  // As the bootstrap's list stores an epic it did not hold: every field but the description.
  await kit.db.epics.put({ ...epic, description: '', partial: true })
})
afterEach(async () => kit.close())

const serviceEpic = async () => (await v4(kit.service).get(`/epics/${epic.id}`)).body as { name: string; description: string }

describe('an epic whose description is not downloaded yet', () => {
  it('refuses an edit of its description with the reason, queues nothing and leaves the service as it was', async () => {
    const act = actionsFor(kit.db, offline(kit.transport))
    const refused = await act.updateEpic(epic.id, { description: 'Written over what I never saw' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(WriteRefused)
    expect(refused).toMatchObject({ reason: 'not-loaded', message: DESCRIPTION_NOT_LOADED })
    // Emptying it is refused too: "" is what the row holds, not what the service does.
    await expect(act.updateEpic(epic.id, { description: '' })).rejects.toMatchObject({ reason: 'not-loaded' })
    expect(await outboxRecords(kit.db)).toEqual([])
    expect((await serviceEpic()).description).toBe(DESCRIBED)
  })

  it('takes an edit of its other fields, which leaves the description on the service alone', async () => {
    await actionsFor(kit.db, offline(kit.transport)).updateEpic(epic.id, { name: 'Renamed while partial' })
    expect(await replayFast(kit.db, kit.transport)).toMatchObject({ confirmed: 1, conflicts: 0, failed: 0 })
    expect(await serviceEpic()).toMatchObject({ name: 'Renamed while partial', description: DESCRIBED })
  })

  it('is complete once the epic is opened online, and its description can then be edited', async () => {
    const syncer = createSyncer({ db: kit.db, transport: kit.transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
    await syncer.refreshEpic(epic.id as number)
    const whole = await mergedEpic(kit.db, epic.id)
    expect(whole).toMatchObject({ description: DESCRIBED })
    expect(whole?.partial).toBeUndefined()
    await actionsFor(kit.db, kit.transport).updateEpic(epic.id, { description: 'Edited after reading it' })
    expect(await replayFast(kit.db, kit.transport)).toMatchObject({ confirmed: 1, conflicts: 0 })
    expect((await serviceEpic()).description).toBe('Edited after reading it')
  })

  it('is complete once the answer to one of my writes brings the description', async () => {
    await actionsFor(kit.db, kit.transport).updateEpic(epic.id, { name: 'Answered whole' })
    await replayFast(kit.db, kit.transport)
    const row = await kit.db.epics.get(epic.id)
    expect(row).toMatchObject({ name: 'Answered whole', description: DESCRIBED })
    expect(row?.partial).toBeUndefined()
  })

  it('shows a description of mine still queued (restored from the journal) as its own, and takes an edit of it', async () => {
    // A change of mine made over the whole epic, restored into a cache that holds the epic partial only.
    await enqueue(
      kit.db,
      { kind: 'epic', entityId: String(epic.id), op: 'update', payload: { description: 'Mine, queued' }, base: { description: epic.description } },
      Date.now(),
    )
    const shown = await mergedEpic(kit.db, epic.id)
    expect(shown).toMatchObject({ description: 'Mine, queued' })
    expect(shown?.partial).toBeUndefined()
    await actionsFor(kit.db, offline(kit.transport)).updateEpic(epic.id, { description: 'Mine, edited again' })
    expect(await outboxRecords(kit.db)).toHaveLength(1)
  })
})
