// Offline edits, shown at once and kept across a restart, then replayed to the
// real service: every kind of write, through the real gateway.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startService } from '../../../../src-server/index.ts'
import { epicsWithExternalId, v3, v4 } from '../../../../testing/service.ts'
import { mergedComments, mergedDocEpics, mergedEpic, mergedEpics, mergedFiles, mergedLinkedFiles } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { outboxStatus } from './records.ts'
import {
  actionsFor,
  fillCache,
  fillComments,
  offline,
  replayFast,
  replayUntilDone,
  startFilledKit,
  startKitOn,
  tempFile,
  type Kit,
} from '../../../../testing/outbox-kit.ts'

describe('offline edits', () => {
  let kit: Kit
  beforeEach(async () => {
    kit = (await startFilledKit()).kit
  })
  afterEach(async () => kit.close())

  it('show at once, survive a restart, and reach the service when it is back', async () => {
    const { db, service } = kit
    const down = offline(kit.transport)
    const act = actionsFor(db, down)
    const [first, second] = (await db.epics.orderBy('id').limit(2).toArray()) as CachedEpic[]
    await fillComments(db, kit.transport, first.id as number)

    const epicId = await act.createEpic({ name: 'Offline launch plan', description: 'Written on a train', owner_ids: first.owner_ids })
    await act.updateEpic(first.id, { name: 'Renamed offline', deadline: '2031-05-01T00:00:00Z' })
    await act.archiveEpic(second.id)
    const commentId = await act.createComment(first.id, 'A comment from the train')
    await act.setEpicHealth(first.id, { status: 'At Risk', text: 'No signal' })
    const docId = await act.createDoc({ title: 'Offline notes', content_markdown: '# Notes\n\nWritten offline.' })
    await act.linkDocToEpic(docId, epicId)
    const categoryId = await act.createCategory({ name: 'Offline category', color: '#336699' })
    await act.createObjective({ name: 'Offline objective', description: 'Reach the service', category_ids: [categoryId] })
    await act.createLinkedFile({ name: 'Spec on the drive', type: 'url', url: 'https://example.com/spec' })
    const path = await tempFile(kit.folder, 'notes.txt', 'bytes written offline')
    await act.uploadFile({ path, name: 'notes.txt' })

    // The UI sees everything at once.
    expect((await mergedEpic(db, epicId))?.name).toBe('Offline launch plan')
    expect((await mergedEpic(db, first.id))?.name).toBe('Renamed offline')
    expect((await mergedEpic(db, second.id))?.archived).toBe(true)
    expect((await mergedComments(db, first.id)).some((c) => c.id === commentId && c.text === 'A comment from the train')).toBe(true)
    expect(await mergedDocEpics(db, { epicId })).toEqual([{ doc_id: docId, epic_id: epicId }])
    expect((await mergedEpics(db)).length).toBe((await db.epics.count()) + 1)
    expect((await mergedLinkedFiles(db)).some((f) => f.name === 'Spec on the drive')).toBe(true)
    expect((await mergedFiles(db)).some((f) => f.name === 'notes.txt')).toBe(true)

    // Offline, a pass sends nothing and loses nothing.
    const pass = await replayFast(db, down)
    expect(pass.stopped).toBe('offline')
    const before = await outboxStatus(db)
    expect(before.pending).toBe(11)
    expect(before.failed + before.conflicts).toBe(0)

    // The app restarts: another engine on the same database, now online.
    db.close()
    const db2 = kit.openDb()
    expect((await mergedEpic(db2, first.id))?.name).toBe('Renamed offline')
    await replayUntilDone(db2, kit.transport)
    expect(await outboxStatus(db2)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })
    expect(await db2.overlay.count()).toBe(0)

    // The service has every change, once.
    const created = { body: await epicsWithExternalId(service, (await mergedEpic(db2, epicId))!.external_id!) }
    expect(created.body).toHaveLength(1)
    const serverEpic = await v4(service).get(`/epics/${created.body[0].id}`)
    expect(serverEpic.body.name).toBe('Offline launch plan')
    expect(serverEpic.body.description).toBe('Written on a train')
    expect((await v4(service).get(`/epics/${first.id}`)).body).toMatchObject({ name: 'Renamed offline' })
    expect(Date.parse((await v4(service).get(`/epics/${first.id}`)).body.deadline)).toBe(Date.parse('2031-05-01T00:00:00Z'))
    expect((await v4(service).get(`/epics/${second.id}`)).body.archived).toBe(true)
    const comments = (await v3(service).get(`/epics/${first.id}/comments`)).body as { text: string }[]
    expect(comments.filter((c) => c.text === 'A comment from the train')).toHaveLength(1)
    expect((await v3(service).get(`/epics/${first.id}/health`)).body).toMatchObject({ status: 'At Risk', text: 'No signal' })
    const docs = (await v3(service).get('/documents')).body as { id: string; title: string }[]
    const doc = docs.filter((d) => d.title === 'Offline notes')
    expect(doc).toHaveLength(1)
    expect(((await v3(service).get(`/documents/${doc[0].id}/epics`)).body as { id: number }[]).map((e) => e.id)).toEqual([created.body[0].id])
    const objectives = ((await v3(service).get('/objectives')).body as { name: string; categories: { name: string }[] }[]).filter(
      (o) => o.name === 'Offline objective',
    )
    expect(objectives).toHaveLength(1)
    expect(objectives[0].categories.map((c) => c.name)).toEqual(['Offline category'])
    expect(((await v3(service).get('/linked-files')).body as { name: string }[]).filter((f) => f.name === 'Spec on the drive')).toHaveLength(1)
    const files = ((await v3(service).get('/files')).body as { name: string; size: number }[]).filter((f) => f.name === 'notes.txt')
    expect(files).toEqual([expect.objectContaining({ size: 'bytes written offline'.length })])

    // The cache now holds the service's rows under their service ids; local ids still find them.
    expect((await mergedEpic(db2, epicId))?.id).toBe(created.body[0].id)
    db2.close()
  })
})

describe('every other write the UI offers', () => {
  let kit: Kit
  beforeEach(async () => {
    kit = (await startFilledKit()).kit
  })
  afterEach(async () => kit.close())

  it('edits and deletes of comments, docs, links, files, linked files, categories and objectives; every epic field', async () => {
    const { db, service } = kit
    const admin3 = v3(service, service.tokens.admin)
    const act = actionsFor(db, offline(kit.transport))
    const live = (await db.epics.orderBy('id').toArray()).filter((e) => !e.archived)
    const archived = (await db.epics.toArray()).find((e) => e.archived)
    const epic = live[0]
    // Two comments of ours on the epic, then the cache.
    const c1 = (await admin3.post(`/epics/${epic.id}/comments`, { text: 'To be edited' })).body.id as number
    const c2 = (await admin3.post(`/epics/${epic.id}/comments`, { text: 'To be deleted' })).body.id as number
    await fillComments(db, kit.transport, epic.id as number)
    const [doc, otherDoc] = await db.docs.toArray()
    await admin3.put(`/documents/${doc.id}/epics/${live[1].id}`)
    await db.docEpics.put({ doc_id: doc.id, epic_id: live[1].id })
    const [file, otherFile] = await db.files.toArray()
    const [link, otherLink] = await db.linkedFiles.toArray()
    const [category, otherCategory] = (await db.categories.toArray()).filter((c) => !c.archived)
    const [objective, otherObjective] = await db.objectives.toArray()
    const members = ((await admin3.get('/members')).body as { id: string; disabled: boolean }[]).filter((m) => !m.disabled).map((m) => m.id)
    const groups = ((await admin3.get('/groups')).body as { id: string; archived: boolean }[]).filter((g) => !g.archived).map((g) => g.id)
    const states = (await v4(service).get('/epic-workflow/states')).body.entities as { id: number }[]
    const labels = await db.labels.toArray()

    await act.editComment(c1, 'Edited offline')
    await act.deleteComment(c2)
    await act.updateDoc(doc.id, { title: 'Retitled offline', content_markdown: 'Rewritten **offline**.' })
    await act.deleteDoc(otherDoc.id)
    await act.unlinkDocFromEpic(doc.id, live[1].id)
    await act.updateFile(file.id, { name: 'renamed.bin', description: 'Described offline' })
    await act.deleteFile(otherFile.id)
    await act.updateLinkedFile(link.id, { name: 'Renamed link', url: 'https://example.com/renamed' })
    await act.deleteLinkedFile(otherLink.id)
    await act.updateCategory(category.id, { name: 'Renamed category', color: '#00ff00', archived: true })
    await act.deleteCategory(otherCategory.id)
    await act.updateObjective(objective.id, { name: 'Renamed objective', state: 'in progress', description: 'Now', category_ids: [category.id] })
    await act.deleteObjective(otherObjective.id)
    if (archived) await act.unarchiveEpic(archived.id)
    const fields = {
      epic_state_id: states[1].id,
      planned_start_date: '2031-01-01T00:00:00Z',
      owner_ids: members.slice(0, 2),
      follower_ids: members.slice(1, 3),
      group_ids: groups.slice(0, 1),
      objective_ids: [objective.id as number],
      requested_by_id: members[0],
    }
    await act.updateEpic(live[2].id, fields)
    if (labels.length >= 2) await act.updateEpic(live[3].id, { label_ids: [labels[0].id as number, labels[1].id as number], name: 'With labels' })
    const expected = await outboxStatus(db)

    const result = await replayFast(db, kit.transport)
    expect(result).toMatchObject({ confirmed: expected.pending, failed: 0, conflicts: 0, remaining: 0 })
    expect(await db.overlay.count()).toBe(0)

    const flat = (list: { id: number; text: string; comments: unknown[] }[]): { id: number; text: string }[] =>
      list.flatMap((c) => [c, ...flat(c.comments as never)])
    const comments = flat((await admin3.get(`/epics/${epic.id}/comments`)).body)
    expect(comments.find((c) => c.id === c1)?.text).toBe('Edited offline')
    expect(comments.find((c) => c.id === c2)).toBeUndefined()
    expect(await db.epicComments.get(c2)).toBeUndefined()
    const serverDoc = (await admin3.get(`/documents/${doc.id}`)).body
    expect(serverDoc).toMatchObject({ title: 'Retitled offline', content_markdown: 'Rewritten **offline**.' })
    expect((await db.docs.get(doc.id))?.content_html).toContain('<strong>offline</strong>')
    expect((await admin3.get(`/documents/${otherDoc.id}`)).status).toBe(404)
    expect((await admin3.get(`/documents/${doc.id}/epics`)).body).toEqual([])
    expect((await admin3.get(`/files/${file.id}`)).body).toMatchObject({ name: 'renamed.bin', description: 'Described offline' })
    expect((await admin3.get(`/files/${otherFile.id}`)).status).toBe(404)
    expect((await admin3.get(`/linked-files/${link.id}`)).body).toMatchObject({ name: 'Renamed link', url: 'https://example.com/renamed' })
    expect((await admin3.get(`/linked-files/${otherLink.id}`)).status).toBe(404)
    expect((await v4(service).get(`/categories/${category.id}`)).body).toMatchObject({ name: 'Renamed category', color: '#00ff00', archived: true })
    expect((await v4(service).get(`/categories/${otherCategory.id}`)).status).toBe(404)
    const serverObjective = (await admin3.get(`/objectives/${objective.id}`)).body
    expect(serverObjective).toMatchObject({ name: 'Renamed objective', state: 'in progress', description: 'Now' })
    expect(serverObjective.categories.map((c: { id: number }) => c.id)).toEqual([category.id])
    expect((await admin3.get(`/objectives/${otherObjective.id}`)).status).toBe(404)
    if (archived) expect((await v4(service).get(`/epics/${archived.id}`)).body.archived).toBe(false)
    const e2 = (await admin3.get(`/epics/${live[2].id}`)).body
    expect(e2).toMatchObject({
      epic_state_id: fields.epic_state_id,
      owner_ids: fields.owner_ids,
      follower_ids: fields.follower_ids,
      group_ids: fields.group_ids,
      objective_ids: fields.objective_ids,
      requested_by_id: fields.requested_by_id,
    })
    expect(Date.parse(e2.planned_start_date)).toBe(Date.parse(fields.planned_start_date))
    if (labels.length >= 2) {
      const e3 = (await admin3.get(`/epics/${live[3].id}`)).body
      expect(e3.name).toBe('With labels')
      expect([...e3.label_ids].sort()).toEqual([labels[0].id, labels[1].id].sort())
    }
  })
})

describe('the service stopped', () => {
  it('keeps the writes while it is down, and sends them once it is started again', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'outpost-stopped-'))
    const file = join(folder, 'service.db')
    const first = await startService({ seed: 'demo', db: file, rateLimit: 'off' })
    const port = Number(new URL(first.baseUrl).port)
    const own = await startKitOn(first)
    try {
      const { db } = own
      await fillCache(db, own.transport)
      const act = actionsFor(db, own.transport)
      const [epic] = (await db.epics.orderBy('id').limit(1).toArray()) as CachedEpic[]
      await first.close()

      await act.updateEpic(epic.id, { description: 'Queued while the service was down' })
      const localId = await act.createEpic({ name: 'Made while the service was down' })
      const pass = await replayFast(db, own.transport)
      expect(pass.stopped).toBe('offline')
      expect((await outboxStatus(db)).pending).toBe(2)

      const again = await startService({ db: file, port, rateLimit: 'off' })
      try {
        await replayUntilDone(db, own.transport)
        expect((await v4(again).get(`/epics/${epic.id}`)).body.description).toBe('Queued while the service was down')
        const external = (await mergedEpic(db, localId))!.external_id!
        expect(await epicsWithExternalId(again, external)).toHaveLength(1)
      } finally {
        await again.close()
      }
    } finally {
      await own.closeClient()
      await rm(folder, { recursive: true, force: true })
    }
  })
})
