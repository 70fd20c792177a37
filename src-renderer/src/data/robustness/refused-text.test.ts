// A refused write never loses what the user typed: text past the service's
// limits fails before it is sent (the service would refuse it), the failed
// record holds exactly the text, through further passes and a restart, the
// screens still show it, and once fixed it lands as written.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { outboxActions } from '../actions.ts'
import { outboxRecords, outboxStatus } from '../outbox/index.ts'
import { counting, fillCache, replayFast, startKit, type Kit } from '../../../../testing/outbox-kit.ts'
import { mergedDoc, mergedEpic } from '../overlay.ts'
import type { OutpostDb } from '../db.ts'

/** 300 characters (the limit is 256), with text that must survive byte for byte. */
const LONG_NAME = `Épopée 🚀 “quoted” ${'n'.repeat(300)}`.slice(0, 300)
const DESCRIPTION = Array.from({ length: 400 }, (_, i) => `Line ${i}: naïve café, 数据, <b>not html</b>, tab\there, back\\slash.`).join('\n')

let kit: Kit
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
  await fillCache(kit.db, kit.transport)
})
afterEach(() => kit.close())

const actionsOf = (db: OutpostDb) => outboxActions({ db, transport: kit.transport })

describe('a refused write keeps the text', () => {
  it('an epic with a 300-character name fails before it is sent, naming the field; the record holds exactly the text; fixed, it lands', async () => {
    const { db, service } = kit
    expect(LONG_NAME).toHaveLength(300)
    const local = await actionsOf(db).createEpic({ name: LONG_NAME, description: DESCRIPTION })

    const t = counting(kit.transport)
    const result = await replayFast(db, t)
    expect(result).toMatchObject({ failed: 1, confirmed: 0 })
    expect(t.total()).toBe(0)
    const [failed] = await outboxRecords(db, ['failed'])
    // The service's wording, and the field it is about.
    expect(failed.error?.message).toMatch(/name must be at most 256 characters/)
    expect(failed.error?.errors).toEqual({ name: 'must be at most 256 characters' })
    expect(failed.payload.name).toBe(LONG_NAME)
    expect(failed.payload.description).toBe(DESCRIPTION)
    // The screens still show it as the user wrote it.
    expect(await mergedEpic(db, local)).toMatchObject({ name: LONG_NAME, description: DESCRIPTION })

    // Further passes leave it alone; so does a restart (the app killed, the database opened again).
    await replayFast(db, kit.transport)
    db.close()
    const again = kit.openDb()
    expect(await replayFast(again, kit.transport)).toMatchObject({ failed: 0, confirmed: 0, remaining: 1 })
    const [kept] = await outboxRecords(again, ['failed'])
    expect(kept.payload).toEqual(failed.payload)
    expect(kept.error).toEqual(failed.error)

    // Fixed (the name only) and retried: it lands, the description exactly as typed.
    const fixed = LONG_NAME.slice(0, 256)
    await actionsOf(again).retry(kept.seq!, { name: fixed })
    expect(await replayFast(again, kit.transport)).toMatchObject({ confirmed: 1, failed: 0, remaining: 0 })
    const id = (await mergedEpic(again, local))!.id
    const epic = (await v3(service, service.tokens.admin).get(`/epics/${id}`)).body
    expect(epic.name).toBe(fixed)
    expect(epic.description).toBe(DESCRIPTION)
    again.close()
  })

  it('a refused edit keeps the edit (not the old text), and the writes queued after it go on', async () => {
    const { db, service } = kit
    const [epic] = await db.epics.toArray()
    const doc = (await db.docs.toArray())[0]
    const act = actionsOf(db)
    await act.updateEpic(epic.id, { name: LONG_NAME, description: DESCRIPTION })
    await act.updateDoc(doc.id, { title: `${'T'.repeat(257)}` })
    await act.createComment(epic.id, 'A comment queued after the bad edit')

    await replayFast(db, kit.transport)
    const failed = await outboxRecords(db, ['failed'])
    expect(failed.map((r) => r.kind).sort()).toEqual(['doc', 'epic'])
    const epicRecord = failed.find((r) => r.kind === 'epic')!
    expect(epicRecord.payload).toEqual({ name: LONG_NAME, description: DESCRIPTION })
    expect(failed.find((r) => r.kind === 'doc')!.payload.title).toBe('T'.repeat(257))
    expect(await mergedEpic(db, epic.id)).toMatchObject({ name: LONG_NAME, description: DESCRIPTION })
    expect((await mergedDoc(db, doc.id))?.title).toBe('T'.repeat(257))
    // Nothing of the refused edit reached the service; the comment did.
    const admin = v3(service, service.tokens.admin)
    expect((await admin.get(`/epics/${epic.id}`)).body.name).toBe(epic.name)
    const comments = (await admin.get(`/epics/${epic.id}/comments`)).body as { text: string }[]
    expect(comments.map((c) => c.text)).toContain('A comment queued after the bad edit')
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 2 })

    // Fixing one field keeps the rest of what was typed.
    await act.retry(epicRecord.seq!, { name: 'A name that fits' })
    await replayFast(db, kit.transport)
    expect((await admin.get(`/epics/${epic.id}`)).body).toMatchObject({ name: 'A name that fits', description: DESCRIPTION })
  })
})
