// The conflict check of epic updates: once a pass for all of them, in one
// request (one page of "epics changed since" when few changed, every epic at
// once when many did), and still finding every conflict.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v4 } from '../../../../testing/service.ts'
import { mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { outboxRecords } from './records.ts'
import { createSyncer } from '../sync/index.ts'
import { actionsFor, counting, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'

let kit: Kit
beforeEach(async () => {
  kit = (await startFilledKit({ seed: { epics: 150 } })).kit
})
afterEach(async () => kit.close())

const elsewhere = (id: number | string, body: unknown) => v4(kit.service, kit.service.tokens.member).patch(`/epics/${id}`, body)

describe('the conflict check of epic updates', () => {
  it('many epics edited over old versions: every epic read in one request, conflicts and merges as one by one', async () => {
    const { db } = kit
    const epics = await db.epics.orderBy('id').toArray()
    expect(epics).toHaveLength(150)
    const act = actionsFor(db, offline(kit.transport))
    for (const [i, e] of epics.entries()) await act.updateEpic(e.id, { name: `Checked ${i}` })
    const [clash, merge] = [epics[17], epics[101]]
    expect((await elsewhere(clash.id, { name: 'Theirs' })).status).toBe(200)
    expect((await elsewhere(merge.id, { description: 'Their description' })).status).toBe(200)

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 149, conflicts: 1, failed: 0 })
    // One check for both bulks, and nothing fetched one by one.
    expect(t.counts.get('epics.v3List')).toBe(1)
    expect(t.counts.get('epics.bulkUpdate')).toBe(2)
    expect(t.total()).toBe(3)

    const [conflict] = await outboxRecords(db, ['conflict'])
    expect(conflict).toMatchObject({ entityId: String(clash.id) })
    expect(conflict.conflict?.fields).toEqual({ name: { base: clash.name, mine: 'Checked 17', theirs: 'Theirs' } })
    expect((await v4(kit.service).get(`/epics/${merge.id}`)).body).toMatchObject({ name: 'Checked 101', description: 'Their description' })
    expect(await mergedEpic(db, merge.id)).toMatchObject({ name: 'Checked 101', description: 'Their description' })
  })

  it('a few epics edited over recent versions: one page of "changed since" covers them', async () => {
    const { db } = kit
    const recent: CachedEpic[] = await db.epics.orderBy('updated_at').reverse().limit(5).toArray()
    const act = actionsFor(db, offline(kit.transport))
    for (const [i, e] of recent.entries()) await act.updateEpic(e.id, { name: `Recent ${i}` })
    expect((await elsewhere(recent[2].id, { name: 'Theirs too' })).status).toBe(200)

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 4, conflicts: 1 })
    expect(t.counts.get('epics.list')).toBe(1)
    expect(t.counts.get('epics.bulkUpdate')).toBe(1)
    expect(t.total()).toBe(2)
    // What a rename can meet: neither comments nor health nor descriptions, most of a page's bytes.
    const fields = String(t.asked.find((a) => a.op === 'epics.list')?.request?.query?.fields).split(',')
    expect(fields).toEqual(expect.arrayContaining(['id', 'name', 'updated_at']))
    expect(fields).not.toContain('comments')
    expect(fields).not.toContain('healths')
    expect(fields).not.toContain('description')
    const [conflict] = await outboxRecords(db, ['conflict'])
    expect(conflict.conflict?.fields.name).toEqual({ base: recent[2].name, mine: 'Recent 2', theirs: 'Theirs too' })
  })

  it('a few descriptions edited over recent versions: the page reads descriptions too, and finds theirs', async () => {
    const { db } = kit
    const recent: CachedEpic[] = await db.epics.orderBy('updated_at').reverse().limit(4).toArray()
    const act = actionsFor(db, offline(kit.transport))
    for (const [i, e] of recent.entries()) await act.updateEpic(e.id, { description: `Mine ${i}` })
    expect((await elsewhere(recent[1].id, { description: 'Theirs, meanwhile' })).status).toBe(200)

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 3, conflicts: 1 })
    expect(t.counts.get('epics.list')).toBe(1)
    expect(String(t.asked.find((a) => a.op === 'epics.list')?.request?.query?.fields).split(',')).toContain('description')
    const [conflict] = await outboxRecords(db, ['conflict'])
    expect(conflict.conflict?.fields.description).toEqual({ base: recent[1].description, mine: 'Mine 1', theirs: 'Theirs, meanwhile' })
  })

  it('an epic deleted elsewhere among many is found when its update goes (deleted elsewhere), the rest land', async () => {
    const { db } = kit
    const epics = (await db.epics.orderBy('id').toArray()).slice(0, 20)
    const act = actionsFor(db, offline(kit.transport))
    for (const [i, e] of epics.entries()) await act.updateEpic(e.id, { name: `Among many ${i}` })
    expect((await v4(kit.service).delete(`/epics/${epics[4].id}`, undefined, { query: { force: true } })).status).toBe(204)

    const t = counting(kit.transport)
    expect(await replayFast(db, t)).toMatchObject({ confirmed: 19, conflicts: 1 })
    // Not in the whole list: fetched alone (404), so it never makes the bulk fail.
    expect(t.counts.get('epics.get')).toBe(1)
    expect(t.counts.get('epics.bulkUpdate')).toBe(1)
    const [conflict] = await outboxRecords(db, ['conflict'])
    expect(conflict).toMatchObject({ entityId: String(epics[4].id), conflict: { deletedElsewhere: true } })
  })

  describe('after a sync', () => {
    const sync = () => createSyncer({ db: kit.db, transport: kit.transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()

    it('many epics edited over old versions: one page of what changed since the sync tells them all, no whole list; conflicts and merges as one by one', async () => {
      const { db } = kit
      await sync()
      const epics = await db.epics.orderBy('id').toArray()
      const act = actionsFor(db, offline(kit.transport))
      for (const [i, e] of epics.entries()) await act.updateEpic(e.id, { name: `Checked ${i}` })
      // Changed elsewhere before a sync brought it to the cache, and after the last sync.
      const [broughtClash, clash, merge] = [epics[5], epics[17], epics[101]]
      expect((await elsewhere(broughtClash.id, { name: 'Theirs, synced' })).status).toBe(200)
      await sync()
      expect((await elsewhere(clash.id, { name: 'Theirs' })).status).toBe(200)
      expect((await elsewhere(merge.id, { description: 'Their description' })).status).toBe(200)

      const t = counting(kit.transport)
      expect(await replayFast(db, t)).toMatchObject({ confirmed: 148, conflicts: 2, failed: 0 })
      expect(t.counts.get('epics.v3List')).toBeUndefined()
      expect(t.counts.get('epics.list')).toBe(1)
      expect(t.counts.get('epics.bulkUpdate')).toBe(2)
      expect(t.total()).toBe(3)

      const conflicts = await outboxRecords(db, ['conflict'])
      expect(Object.fromEntries(conflicts.map((c) => [c.entityId, c.conflict?.fields]))).toEqual({
        [String(broughtClash.id)]: { name: { base: broughtClash.name, mine: 'Checked 5', theirs: 'Theirs, synced' } },
        [String(clash.id)]: { name: { base: clash.name, mine: 'Checked 17', theirs: 'Theirs' } },
      })
      expect((await v4(kit.service).get(`/epics/${merge.id}`)).body).toMatchObject({ name: 'Checked 101', description: 'Their description' })
      expect(await mergedEpic(db, merge.id)).toMatchObject({ name: 'Checked 101', description: 'Their description' })
    })

    it('more changed elsewhere since the sync than its pages hold: the check goes on as without a sync, and finds the conflict', async () => {
      const { db } = kit
      await sync()
      const epics = await db.epics.orderBy('id').toArray()
      const act = actionsFor(db, offline(kit.transport))
      for (const [i, e] of epics.entries()) await act.updateEpic(e.id, { name: `Checked ${i}` })
      for (const e of epics.slice(30, 60)) expect((await elsewhere(e.id, { deadline: '2027-03-01T12:00:00Z' })).status).toBe(200)
      expect((await elsewhere(epics[44].id, { name: 'Theirs among many' })).status).toBe(200)

      const t = counting(kit.transport)
      expect(await replayFast(db, t)).toMatchObject({ confirmed: 149, conflicts: 1, failed: 0 })
      expect(t.counts.get('epics.list')).toBe(2)
      expect(t.counts.get('epics.v3List')).toBe(1)
      const [conflict] = await outboxRecords(db, ['conflict'])
      expect(conflict.conflict?.fields).toEqual({ name: { base: epics[44].name, mine: 'Checked 44', theirs: 'Theirs among many' } })
      expect((await v4(kit.service).get(`/epics/${epics[31].id}`)).body).toMatchObject({ name: 'Checked 31', deadline: '2027-03-01T12:00:00Z' })
    })

    it('an epic deleted elsewhere since the sync: the bulk refused for it, it is deleted elsewhere and the rest go together', async () => {
      const { db } = kit
      await sync()
      const epics = (await db.epics.orderBy('id').toArray()).slice(0, 20)
      const act = actionsFor(db, offline(kit.transport))
      for (const [i, e] of epics.entries()) await act.updateEpic(e.id, { name: `Among many ${i}` })
      expect((await v4(kit.service).delete(`/epics/${epics[4].id}`, undefined, { query: { force: true } })).status).toBe(204)

      const t = counting(kit.transport)
      expect(await replayFast(db, t)).toMatchObject({ confirmed: 19, conflicts: 1 })
      expect(t.counts.get('epics.bulkUpdate')).toBe(2)
      expect(t.counts.get('epics.update')).toBeUndefined()
      const [conflict] = await outboxRecords(db, ['conflict'])
      expect(conflict).toMatchObject({ entityId: String(epics[4].id), conflict: { deletedElsewhere: true } })
      for (const [i, e] of epics.entries()) if (i !== 4) expect((await v4(kit.service).get(`/epics/${e.id}`)).body).toMatchObject({ name: `Among many ${i}` })
    })
  })
})
