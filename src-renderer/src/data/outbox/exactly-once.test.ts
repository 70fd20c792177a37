// Exactly once: through connections dropped before the service handles a
// request and after it commits one, and engines killed mid-replay and started
// again on the same database, the service ends with every intended change once
// and nothing else.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { seededRandom } from '../../../../src-server/faults.ts'
import { epicsWithExternalId, v3, v4, walk } from '../../../../testing/service.ts'
import { mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { outboxRecords, outboxStatus } from './records.ts'
import {
  actionsFor,
  counting,
  fillCache,
  fillComments,
  killing,
  offline,
  replayFast,
  startFilledKit,
  tempFile,
  type Kit,
} from '../../../../testing/outbox-kit.ts'

let kit: Kit
let epics: CachedEpic[]
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit({ seed: 'demo', faultSeed: Number(process.env.EO_SEED ?? 11) }))
})
afterEach(async () => kit.close())

describe('a lost answer', () => {
  it('of an update: the next pass finds it applied and does not send it again', async () => {
    const { db, service } = kit
    await actionsFor(db, kit.transport).updateEpic(epics[0].id, { name: 'Applied, answer lost' })
    service.setFaults({ dropAfterCommitRate: 1 })
    const first = await replayFast(db, kit.transport, { backoff: { attempts: 1 } })
    expect(first.stopped).toBe('offline')
    expect((await v4(service).get(`/epics/${epics[0].id}`)).body.name).toBe('Applied, answer lost')

    service.setFaults({ dropAfterCommitRate: 0 })
    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 1, remaining: 0 })
    expect(t.counts.get('epics.update')).toBeUndefined()
    expect(t.counts.get('epics.get')).toBe(1)
  })

  it('of a text cleared (null, which the service keeps as ""): found applied, not taken for someone else’s change', async () => {
    const { db, service } = kit
    const admin = v3(service, service.tokens.admin)
    const file = (await db.files.orderBy('id').toArray())[0]
    const linked = (await db.linkedFiles.orderBy('id').toArray())[0]
    await admin.put(`/files/${file.id}`, { description: 'Said something' })
    await admin.put(`/linked-files/${linked.id}`, { description: 'Said something', thumbnail_url: 'https://example.com/t.png' })
    await fillCache(db, kit.transport)
    const act = actionsFor(db, kit.transport)
    await act.updateFile(file.id, { description: null })
    await act.updateLinkedFile(linked.id, { description: null })
    service.setFaults({ dropAfterCommitRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 2 } })).stopped).toBe('offline')
    service.setFaults({ dropAfterCommitRate: 0 })
    // Both applied (the service keeps "" for null), neither answer heard: still queued.
    expect((await outboxRecords(db)).map((r) => r.kind)).toEqual(['file', 'linkedFile'])
    expect((await admin.get(`/files/${file.id}`)).body.description).toBe('')
    expect((await admin.get(`/linked-files/${linked.id}`)).body).toMatchObject({ description: '', thumbnail_url: 'https://example.com/t.png' })

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 2, conflicts: 0, remaining: 0 })
    expect(t.counts.get('files.update')).toBeUndefined()
    expect(t.counts.get('linkedFiles.update')).toBeUndefined()
  })

  it('of a create: the next pass finds it by external_id and adopts it', async () => {
    const { db, service } = kit
    const local = await actionsFor(db, kit.transport).createEpic({ name: 'Created, answer lost' })
    const [record] = await outboxRecords(db)
    service.setFaults({ dropAfterCommitRate: 1 })
    const first = await replayFast(db, kit.transport, { backoff: { attempts: 1 } })
    expect(first.stopped).toBe('offline')
    expect((await outboxRecords(db))[0].state).toBe('in-flight')

    service.setFaults({ dropAfterCommitRate: 0 })
    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 1, remaining: 0 })
    expect(t.counts.get('epics.create')).toBeUndefined()
    const found = (await epicsWithExternalId(service, record.externalId!)) as { id: number }[]
    expect(found).toHaveLength(1)
    expect((await mergedEpic(db, local))?.id).toBe(found[0].id)
  })

  it('of an epic create, with 150 newer epics by someone else: found by walking the recently updated epics, exactly one, ours', async () => {
    const { db, service } = kit
    const local = await actionsFor(db, kit.transport).createEpic({ name: 'Lost among others' })
    const [record] = await outboxRecords(db)
    service.setFaults({ dropAfterCommitRate: 1 })
    expect((await replayFast(db, kit.transport, { backoff: { attempts: 1 } })).stopped).toBe('offline')
    service.setFaults({ dropAfterCommitRate: 0 })
    // Someone else's epics, made and changed after ours: the first pages of the walk hold only theirs.
    const member = v4(service, service.tokens.member)
    for (const start of [0, 100]) {
      const epics = Array.from({ length: Math.min(100, 150 - start) }, (_, i) => ({ name: `Someone else's ${start + i}`, external_id: `theirs-${start + i}` }))
      expect((await member.post('/epics/bulk', { epics })).status).toBe(201)
    }

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 1, remaining: 0 })
    expect(t.counts.get('epics.create')).toBeUndefined()
    expect(t.counts.get('epics.v3List')).toBeUndefined()
    // Two pages of theirs and the one with ours; none past it.
    expect(t.counts.get('epics.list')).toBe(2)
    const named = (await v3(service).get('/epics')).body.filter((e: { name: string }) => e.name === 'Lost among others')
    expect(named).toHaveLength(1)
    expect(named[0].external_id).toBe(record.externalId)
    expect((await mergedEpic(db, local))?.id).toBe(named[0].id)
  })
})

describe('a lost answer of every kind of create', () => {
  it('is found again (external_id, or what the user wrote) and never sent twice', async () => {
    const { db, service } = kit
    const act = actionsFor(db, offline(kit.transport))
    const labels = await db.labels.toArray()
    const epic = await act.createEpic({ name: 'Lost epic', label_ids: labels.length ? [labels[0].id as number] : undefined })
    const comment = await act.createComment(epics[0].id, 'Lost comment')
    await act.replyToComment(comment, 'Lost reply')
    await act.setEpicHealth(epics[0].id, { status: 'At Risk', text: 'Lost health' })
    const doc = await act.createDoc({ title: 'Lost doc', content_markdown: 'Lost *markdown*' })
    await act.linkDocToEpic(doc, epic)
    const category = await act.createCategory({ name: 'Lost category' })
    await act.createObjective({ name: 'Lost objective', category_ids: [category] })
    await act.createLinkedFile({ name: 'Lost link', type: 'url', url: 'https://example.com/lost' })
    await act.uploadFile({ path: await tempFile(kit.folder, 'lost.txt', 'lost bytes'), name: 'lost.txt' })

    // Every write commits and its answer is lost: each pass finds the creates it lost before, and loses new ones.
    service.setFaults({ dropAfterCommitRate: 1 })
    const t = counting(kit.transport)
    for (let i = 0; i < 12; i++) await replayFast(db, t, { backoff: { attempts: 3 } })
    // Only the link is left: an idempotent PUT is resent, not looked up, and it never hears back here.
    expect((await outboxRecords(db)).map((r) => r.kind)).toEqual(['docEpic'])
    service.setFaults({ dropAfterCommitRate: 0 })
    await replayFast(db, t)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })
    for (const op of [
      'epics.v3Create',
      'epicComments.create',
      'epicComments.reply',
      'epicHealth.create',
      'documents.create',
      'categories.create',
      'objectives.create',
      'linkedFiles.create',
      'files.upload',
    ]) {
      expect(t.counts.get(op), op).toBe(1)
    }
    for (const op of [
      'epics.list',
      'epicComments.list',
      'epicHealth.history',
      'documents.list',
      'categories.list',
      'objectives.list',
      'linkedFiles.list',
      'files.list',
    ]) {
      expect(t.counts.get(op), op).toBeGreaterThanOrEqual(1)
    }

    const admin3 = v3(service, service.tokens.admin)
    const flat = flatten((await admin3.get(`/epics/${epics[0].id}/comments`)).body)
    expect(flat.filter((c) => c.text === 'Lost comment' || c.text === 'Lost reply')).toHaveLength(2)
    expect(((await admin3.get(`/epics/${epics[0].id}/health-history`)).body as { text: string }[]).filter((h) => h.text === 'Lost health')).toHaveLength(1)
    const lostDocs = ((await admin3.get('/documents')).body as { id: string; title: string }[]).filter((d) => d.title === 'Lost doc')
    expect(lostDocs).toHaveLength(1)
    const epicId = (await mergedEpic(db, epic))!.id
    expect(((await admin3.get(`/documents/${lostDocs[0].id}/epics`)).body as { id: number }[]).map((e) => e.id)).toEqual([epicId])
    expect(((await admin3.get('/objectives')).body as { name: string }[]).filter((o) => o.name === 'Lost objective')).toHaveLength(1)
    expect(((await admin3.get('/linked-files')).body as { name: string }[]).filter((o) => o.name === 'Lost link')).toHaveLength(1)
    expect(((await admin3.get('/files')).body as { name: string }[]).filter((o) => o.name === 'lost.txt')).toHaveLength(1)
    expect((await walk(v4(service), '/categories', { filter: 'include_archived', limit: 100 })).filter((c) => c.name === 'Lost category')).toHaveLength(1)
  })
})

describe('exactly once under faults and kills', () => {
  it('every intended change once, nothing else', async () => {
    const { db, service } = kit
    const admin3 = v3(service, service.tokens.admin)
    const random = seededRandom(2024 + Number(process.env.EO_SEED ?? 0))

    // ---- what is there before ----
    const commented = epics.slice(0, 3)
    for (const e of commented) await admin3.post(`/epics/${e.id}/comments`, { text: `Existing comment on ${e.id}` })
    for (const e of commented) await fillComments(db, kit.transport, e.id as number)
    const existingDoc = (await db.docs.toArray())[0]
    const existingCategory = (await db.categories.toArray())[0]
    const labels = await db.labels.toArray()
    const before = {
      epics: (await admin3.get('/epics')).body.length as number,
      docs: (await admin3.get('/documents')).body.length as number,
      categories: (await walk(v4(service), '/categories', { filter: 'include_archived', limit: 100 })).length,
      objectives: (await admin3.get('/objectives')).body.length as number,
      linkedFiles: (await admin3.get('/linked-files')).body.length as number,
      files: (await admin3.get('/files')).body.length as number,
      comments: new Map<number, number>(),
      health: new Map<number, number>(),
    }
    for (const e of epics.slice(0, 6)) {
      before.comments.set(e.id as number, count((await admin3.get(`/epics/${e.id}/comments`)).body))
      before.health.set(e.id as number, (await admin3.get(`/epics/${e.id}/health-history`)).body.length)
    }

    // ---- what the user does offline ----
    const act = actionsFor(db, offline(kit.transport))
    const createdEpics: string[] = []
    for (let i = 0; i < 8; i++) {
      const labelIds = i < 2 && labels.length > 0 ? [labels[i % labels.length].id as number] : undefined
      createdEpics.push(await act.createEpic({ name: `EO epic ${i}`, description: `Exactly once ${i}`, label_ids: labelIds }))
    }
    const updated = epics.slice(0, 10)
    for (const [i, e] of updated.entries()) await act.updateEpic(e.id, { name: `EO update ${i}`, description: `Updated once ${i}` })
    await act.archiveEpic(epics[10].id)
    const deleted = [epics[11], epics[12]]
    for (const e of deleted) await act.deleteEpic(e.id)
    const newComments: { epic: string | number; text: string; local: string }[] = []
    for (const [i, e] of commented.entries()) {
      const text = `EO comment ${i}`
      newComments.push({ epic: e.id, text, local: await act.createComment(e.id, text) })
    }
    for (const [i, local] of createdEpics.slice(0, 2).entries()) {
      const text = `EO comment on a new epic ${i}`
      newComments.push({ epic: local, text, local: await act.createComment(local, text) })
    }
    const replyTo = newComments[0].local
    await act.replyToComment(replyTo, 'EO reply')
    const existingComments = await db.epicComments.toArray()
    const edited = existingComments.filter((c) => c.text.startsWith('Existing comment on')).slice(0, 2)
    for (const c of edited) await act.editComment(c.id, `EO edited ${c.id}`)
    for (const e of epics.slice(3, 5)) await act.setEpicHealth(e.id, { status: 'Off Track', text: `EO health ${e.id}` })
    const docs: string[] = []
    for (let i = 0; i < 3; i++) docs.push(await act.createDoc({ title: `EO doc ${i}`, content_markdown: `# Doc ${i}\n\nWritten once.` }))
    await act.updateDoc(existingDoc.id, { title: 'EO doc updated' })
    await act.linkDocToEpic(docs[0], epics[5].id)
    await act.linkDocToEpic(docs[1], createdEpics[2])
    const categories = [await act.createCategory({ name: 'EO category 0' }), await act.createCategory({ name: 'EO category 1', color: '#123456' })]
    await act.updateCategory(existingCategory.id, { color: '#abcdef' })
    await act.createObjective({ name: 'EO objective 0', description: 'Once' })
    await act.createObjective({ name: 'EO objective 1', category_ids: [categories[0]] })
    await act.createLinkedFile({ name: 'EO link 0', type: 'url', url: 'https://example.com/0' })
    await act.createLinkedFile({ name: 'EO link 1', type: 'google', url: 'https://example.com/1' })
    for (let i = 0; i < 2; i++) await act.uploadFile({ path: await tempFile(kit.folder, `eo-${i}.txt`, `file ${i} `.repeat(i + 1)), name: `eo-${i}.txt` })
    const externalIds = new Map((await outboxRecords(db)).filter((r) => r.externalId).map((r) => [r.entityId, r.externalId!]))
    const queued = (await outboxStatus(db)).pending
    expect(queued).toBeGreaterThan(40)

    // ---- replay through faults, killing the engine at random points ----
    service.setFaults({ dropRate: 0.3, dropAfterCommitRate: 0.3 })
    let kills = 0
    let engine = db
    for (let round = 0; round < 200; round++) {
      engine = round === 0 ? db : kit.openDb()
      const controller = new AbortController()
      // Most engines are killed after a few requests; now and then one runs its pass to the end.
      const kill = round % 10 !== 9
      const t = kill ? killing(kit.transport, 1 + Math.floor(random() * 4), controller) : kit.transport
      const result = await replayFast(engine, t, { signal: controller.signal })
      if (result.stopped === 'aborted') kills++
      const status = await outboxStatus(engine)
      engine.close()
      if (status.pending === 0) break
    }
    expect(kills).toBeGreaterThan(5)
    service.setFaults({ dropRate: 0, dropAfterCommitRate: 0 })
    const last = kit.openDb()
    await replayFast(last, kit.transport)
    expect(await outboxStatus(last)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })
    expect(await last.overlay.count()).toBe(0)

    // ---- the service has each change once, and nothing else ----
    const allEpics = (await admin3.get('/epics', { query: { includes_description: true } })).body as {
      id: number
      name: string
      description: string
      archived: boolean
      external_id: string | null
      label_ids: number[]
    }[]
    expect(allEpics).toHaveLength(before.epics + 8 - 2)
    for (const [i, local] of createdEpics.entries()) {
      const mine = allEpics.filter((e) => e.external_id === externalIds.get(local))
      expect(mine).toHaveLength(1)
      expect(mine[0]).toMatchObject({ name: `EO epic ${i}`, description: `Exactly once ${i}` })
      if (i < 2 && labels.length > 0) expect(mine[0].label_ids).toEqual([labels[i % labels.length].id])
      expect((await mergedEpic(last, local))?.id).toBe(mine[0].id)
    }
    for (const [i, e] of updated.entries())
      expect(allEpics.find((x) => x.id === e.id)).toMatchObject({ name: `EO update ${i}`, description: `Updated once ${i}` })
    expect(allEpics.find((x) => x.id === epics[10].id)?.archived).toBe(true)
    for (const e of deleted) expect(allEpics.find((x) => x.id === e.id)).toBeUndefined()

    for (const c of newComments) {
      const epicId = typeof c.epic === 'number' ? c.epic : (await mergedEpic(last, c.epic))!.id
      const flat = flatten((await admin3.get(`/epics/${epicId}/comments`)).body)
      expect(flat.filter((x) => x.external_id === externalIds.get(c.local))).toEqual([expect.objectContaining({ text: c.text })])
    }
    for (const e of epics.slice(0, 6)) {
      const flat = flatten((await admin3.get(`/epics/${e.id}/comments`)).body)
      const added = newComments.filter((c) => c.epic === e.id).length + (e.id === newComments[0].epic ? 1 : 0)
      expect(flat.length).toBe(before.comments.get(e.id as number)! + added)
    }
    const replies = flatten((await admin3.get(`/epics/${newComments[0].epic}/comments`)).body).filter((x) => x.text === 'EO reply')
    expect(replies).toHaveLength(1)
    for (const c of edited) {
      const flat = flatten((await admin3.get(`/epics/${c.epic_id}/comments`)).body)
      expect(flat.find((x) => x.id === c.id)?.text).toBe(`EO edited ${c.id}`)
    }
    for (const e of epics.slice(3, 5)) {
      const history = (await admin3.get(`/epics/${e.id}/health-history`)).body as { text: string }[]
      expect(history.length).toBe(before.health.get(e.id as number)! + 1)
      expect(history.filter((h) => h.text === `EO health ${e.id}`)).toHaveLength(1)
    }

    const allDocs = (await admin3.get('/documents')).body as { id: string; title: string }[]
    expect(allDocs).toHaveLength(before.docs + 3)
    for (let i = 0; i < 3; i++) expect(allDocs.filter((d) => d.title === `EO doc ${i}`)).toHaveLength(1)
    expect(allDocs.find((d) => d.id === existingDoc.id)?.title).toBe('EO doc updated')
    const doc0 = allDocs.find((d) => d.title === 'EO doc 0')!
    expect(((await admin3.get(`/documents/${doc0.id}/epics`)).body as { id: number }[]).map((e) => e.id)).toEqual([epics[5].id])
    const doc1 = allDocs.find((d) => d.title === 'EO doc 1')!
    expect(((await admin3.get(`/documents/${doc1.id}/epics`)).body as { id: number }[]).map((e) => e.id)).toEqual([
      (await mergedEpic(last, createdEpics[2]))!.id,
    ])

    const allCategories = await walk(v4(service), '/categories', { filter: 'include_archived', limit: 100 })
    expect(allCategories).toHaveLength(before.categories + 2)
    for (const local of categories) expect(allCategories.filter((c) => c.external_id === externalIds.get(local))).toHaveLength(1)
    expect(allCategories.find((c) => c.id === existingCategory.id)?.color).toBe('#abcdef')
    const allObjectives = (await admin3.get('/objectives')).body as { name: string; categories: { name: string }[] }[]
    expect(allObjectives).toHaveLength(before.objectives + 2)
    expect(allObjectives.filter((o) => o.name === 'EO objective 0')).toHaveLength(1)
    expect(allObjectives.filter((o) => o.name === 'EO objective 1').map((o) => o.categories.map((c) => c.name))).toEqual([['EO category 0']])
    const allLinks = (await admin3.get('/linked-files')).body as { name: string }[]
    expect(allLinks).toHaveLength(before.linkedFiles + 2)
    expect(
      allLinks
        .filter((l) => l.name.startsWith('EO link'))
        .map((l) => l.name)
        .sort(),
    ).toEqual(['EO link 0', 'EO link 1'])
    const allFiles = (await admin3.get('/files')).body as { name: string; size: number }[]
    expect(allFiles).toHaveLength(before.files + 2)
    expect(
      allFiles
        .filter((f) => f.name.startsWith('eo-'))
        .map((f) => [f.name, f.size])
        .sort(),
    ).toEqual([
      ['eo-0.txt', 7],
      ['eo-1.txt', 14],
    ])
    last.close()
  })
})

interface Thread {
  id: number
  text: string
  external_id: string | null
  comments: Thread[]
}

function flatten(list: Thread[]): Thread[] {
  return list.flatMap((c) => [c, ...flatten(c.comments ?? [])])
}

function count(list: Thread[]): number {
  return flatten(list).length
}
