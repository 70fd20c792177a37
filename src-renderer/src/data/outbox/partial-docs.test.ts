// A doc the bootstrap stored from the v3 list of every doc has only its id and
// title (partial): its text and version are not known. It is never edited
// blind, and it is complete once the doc is opened online or its page comes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v4 } from '../../../../testing/service.ts'
import { actionsFor, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'
import { DOC_NOT_LOADED, WriteRefused } from '../actions.ts'
import { docFromListV3 } from '../convert.ts'
import { mergedDoc } from '../overlay.ts'
import { createSyncer } from '../sync/index.ts'
import type { CachedDoc } from '../types.ts'
import { enqueue } from './queue.ts'
import { outboxRecords } from './records.ts'

let kit: Kit
let doc: CachedDoc
const WRITTEN = 'What the service holds, never downloaded.'

beforeEach(async () => {
  kit = (await startFilledKit()).kit
  const made = await v4(kit.service, kit.service.tokens.member).post('/documents', { title: 'Runbook', content: WRITTEN, content_format: 'markdown' })
  expect(made.status).toBe(201)
  // As the bootstrap's list stores a doc it did not hold: its id and title.
  doc = docFromListV3({ id: made.body.id, title: 'Runbook', app_url: '' })
  await kit.db.docs.put(doc)
})
afterEach(async () => kit.close())

const serviceDoc = async () => (await v4(kit.service).get(`/documents/${doc.id}`)).body as { title: string; content_markdown: string }

describe('a doc whose text is not downloaded yet', () => {
  it('refuses an edit of its title or text with the reason, queues nothing and leaves the service as it was', async () => {
    const act = actionsFor(kit.db, offline(kit.transport))
    const refused = await act.updateDoc(doc.id, { title: 'Runbook', content_markdown: 'Written over what I never saw' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(WriteRefused)
    expect(refused).toMatchObject({ reason: 'not-loaded', message: DOC_NOT_LOADED })
    await expect(act.updateDoc(doc.id, { title: 'Renamed blind' })).rejects.toMatchObject({ reason: 'not-loaded' })
    expect(await outboxRecords(kit.db)).toEqual([])
    expect(await serviceDoc()).toMatchObject({ title: 'Runbook', content_markdown: WRITTEN })
  })

  it('can be deleted, by its id', async () => {
    await actionsFor(kit.db, offline(kit.transport)).deleteDoc(doc.id)
    expect(await replayFast(kit.db, kit.transport)).toMatchObject({ confirmed: 1, failed: 0 })
    expect((await v4(kit.service).get(`/documents/${doc.id}`)).status).toBe(404)
    expect(await kit.db.docs.get(doc.id)).toBeUndefined()
  })

  it('is complete once the doc is opened online, and can then be edited', async () => {
    const syncer = createSyncer({ db: kit.db, transport: kit.transport, clock: Date.now, options: { fileBudgetBytes: 0 } })
    await syncer.refreshDoc(String(doc.id))
    const whole = await mergedDoc(kit.db, doc.id)
    expect(whole).toMatchObject({ title: 'Runbook', content_markdown: WRITTEN, archived: false })
    expect(whole?.updated_at).not.toBe('')
    expect(whole?.content_html).toContain('What the service holds')
    expect(whole?.partial).toBeUndefined()
    await actionsFor(kit.db, kit.transport).updateDoc(doc.id, { content_markdown: 'Edited after reading it' })
    expect(await replayFast(kit.db, kit.transport)).toMatchObject({ confirmed: 1, conflicts: 0 })
    expect((await serviceDoc()).content_markdown.trim()).toBe('Edited after reading it')
  })

  it('shows a text of mine still queued (restored from the journal) as its own, and takes an edit of it', async () => {
    await enqueue(
      kit.db,
      { kind: 'doc', entityId: String(doc.id), op: 'update', payload: { content_markdown: 'Mine, queued' }, base: { content_markdown: WRITTEN } },
      Date.now(),
    )
    const shown = await mergedDoc(kit.db, doc.id)
    expect(shown).toMatchObject({ content_markdown: 'Mine, queued' })
    expect(shown?.partial).toBeUndefined()
    await actionsFor(kit.db, offline(kit.transport)).updateDoc(doc.id, { content_markdown: 'Mine, edited again' })
    expect(await outboxRecords(kit.db)).toHaveLength(1)
  })
})
