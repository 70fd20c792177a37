// The merged reads the UI shows, as Dexie live queries: a write shows at once,
// and the outbox's visible state follows it.
// liveQuery runs only where there is a global indexedDB (as in a window); each test's database has its own.
import 'fake-indexeddb/auto'
import { liveQuery } from 'dexie'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mergedDocEpics, mergedEpic, mergedEpics, mergedEpicsById, overlayOf } from './overlay.ts'
import { outboxStatus, type OutboxStatus } from './outbox/records.ts'
import { actionsFor, fillCache, offline, replayFast, startKit, type Kit } from '../../../testing/outbox-kit.ts'
import type { CachedEpic } from './types.ts'

let kit: Kit
beforeEach(async () => {
  kit = await startKit()
  await fillCache(kit.db, kit.transport)
})
afterEach(async () => kit.close())

/** The values a live query emits, and a way to wait for one that passes. */
function watch<T>(query: () => Promise<T>) {
  const seen: T[] = []
  const waiters: { test: (v: T) => boolean; resolve: (v: T) => void }[] = []
  const sub = liveQuery(query).subscribe({
    next: (v) => {
      seen.push(v)
      for (const w of [...waiters]) if (w.test(v)) w.resolve(v)
    },
  })
  return {
    seen,
    until: (test: (v: T) => boolean) =>
      new Promise<T>((resolve) => {
        const hit = seen.find(test)
        if (hit !== undefined) resolve(hit)
        else waiters.push({ test, resolve })
      }),
    stop: () => sub.unsubscribe(),
  }
}

describe('merged reads', () => {
  it('lay local changes over server rows: created appear under their local id, deleted vanish', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const [a, b] = (await db.epics.orderBy('id').toArray()).filter((e) => !e.archived) as CachedEpic[]
    const total = await db.epics.count()
    const local = await act.createEpic({ name: 'Local one' })
    await act.updateEpic(a.id, { name: 'Patched' })
    await act.deleteEpic(b.id)
    const all = await mergedEpics(db)
    expect(all).toHaveLength(total)
    expect(all.find((e) => e.id === local)).toMatchObject({ name: 'Local one', archived: false, owner_ids: [] })
    expect(all.find((e) => e.id === a.id)).toMatchObject({ name: 'Patched', description: a.description })
    expect(all.find((e) => e.id === b.id)).toBeUndefined()
    expect((await mergedEpics(db, { archived: false })).every((e) => !e.archived)).toBe(true)
    expect(await overlayOf(db, 'epic', a.id)).toMatchObject({ patch: { name: 'Patched' }, created: false, deleted: false })
    const doc = (await db.docs.toArray())[0]
    await act.linkDocToEpic(doc.id, local)
    expect(await mergedDocEpics(db, { epicId: local })).toEqual([{ doc_id: doc.id, epic_id: local }])
    expect(await mergedDocEpics(db, { docId: doc.id })).toContainEqual({ doc_id: doc.id, epic_id: local })
  })

  it('read by id, more epics than one read asks for at once come each with its own local change, in the order asked', async () => {
    const { db } = kit
    const act = actionsFor(db, offline(kit.transport))
    const template = (await db.epics.orderBy('id').first()) as CachedEpic
    const many = Array.from({ length: 1_234 }, (_, i) => ({ ...template, id: 100_000 + i, name: `Epic ${i}` }))
    await db.epics.bulkPut(many)
    const [patched, deleted] = [many[100], many[700]]
    await act.updateEpic(patched.id, { name: 'Patched far in' })
    await act.deleteEpic(deleted.id)
    // Asked newest first, with one that is not there.
    const ids = [...many.map((e) => String(e.id)).reverse(), '999999']
    const read = await mergedEpicsById(db, ids)
    expect([...read.keys()]).toEqual(ids)
    expect(read.get(String(patched.id))).toMatchObject({ name: 'Patched far in', description: template.description })
    expect(read.get(String(deleted.id))).toBeUndefined()
    expect(read.get('999999')).toBeUndefined()
    expect(read.get(String(many[0].id))).toMatchObject({ name: 'Epic 0' })
    expect([...read.values()].filter((e) => e !== undefined)).toHaveLength(1_233)
  })

  it('re-run as live queries when a write is queued and when it is confirmed', async () => {
    const { db } = kit
    const act = actionsFor(db, kit.transport)
    const epic = (await db.epics.orderBy('id').first()) as CachedEpic
    const name = watch(() => mergedEpic(db, epic.id).then((e) => e?.name))
    const status = watch(() => outboxStatus(db))
    await name.until((n) => n === epic.name)

    await act.updateEpic(epic.id, { name: 'Seen at once' })
    await name.until((n) => n === 'Seen at once')
    const queued = await status.until((s: OutboxStatus) => s.pending === 1)
    expect(queued.oldestPendingAt).not.toBeNull()
    expect(queued.oldestPendingAgeMs).toBeGreaterThanOrEqual(0)

    await replayFast(db, kit.transport)
    await status.until((s) => s.pending === 0 && s.failed === 0)
    expect(name.seen.at(-1)).toBe('Seen at once')
    expect((await db.epics.get(epic.id as number))?.name).toBe('Seen at once')
    name.stop()
    status.stop()
  })
})
