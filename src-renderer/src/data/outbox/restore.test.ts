// The outbox journal and a lost cache: every change queued is in the journal
// before it shows; when the cache is gone (or older than the journal) the
// open changes come back at the next start and reach the service exactly once,
// those sent before the loss included; what was done with is trimmed.
import { join } from 'node:path'
import Dexie from 'dexie'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { epicsWithExternalId, v3, v4 } from '../../../../testing/service.ts'
import { fileJournal, type FileJournal } from '../../../../testing/journal-kit.ts'
import { quotaFault } from '../../../../testing/quota.ts'
import { isStorageFull } from '../storage-full.ts'
import { actionsFor, failingOnce, fillCache, offline, replayFast, startFilledKit, type Kit } from '../../../../testing/outbox-kit.ts'
import type { OutpostDb } from '../db.ts'
import { mergedEpic } from '../overlay.ts'
import type { CachedEpic } from '../types.ts'
import { resolveId } from './ids.ts'
import { startDataLayer } from '../data-layer.ts'
import { JOURNAL_KEY, journalAgain, RESTORED_KEY, type OutboxJournal } from './journal.ts'
import { outboxRecords, outboxStatus, resolveConflict } from './records.ts'
import { restoreFromJournal } from './restore.ts'
import type { LockFn } from '../lock.ts'

let kit: Kit
let epics: CachedEpic[]
let journal: FileJournal
beforeEach(async () => {
  ;({ kit, epics } = await startFilledKit())
  journal = fileJournal(join(kit.folder, 'journal', 'account.jsonl'))
  // As the app starts: the cache and the journal made to agree before anything is written.
  await restoreFromJournal(kit.db, journal)
})
afterEach(async () => {
  await journal.close()
  await kit.close()
})

/** The browser's storage lost: the database deleted, and the app started on a new, empty one. */
async function wipe(db: OutpostDb): Promise<OutpostDb> {
  await db.delete()
  const fresh = kit.openDb()
  await fresh.open()
  return fresh
}

/**
 * The journal as a crash right after a transaction's commit leaves it: the confirmation made after the commit (of
 * what the transaction made pointless) never reaches it. Those made inside a transaction, before its commit, do.
 */
function crashingAfterCommit(j: OutboxJournal): OutboxJournal & { dropped: number[] } {
  const dropped: number[] = []
  return {
    ...j,
    dropped,
    confirm: (ids, map) => {
      if (Dexie.currentTransaction) return j.confirm(ids, map)
      dropped.push(...ids)
      return Promise.reject(new Error('The app was killed.'))
    },
  }
}

/**
 * Another window reading the cache's epics (or docs), and going on reading until released: a transaction that
 * writes them, or every table, waits for it. Answers once the read has begun.
 */
async function readingElsewhere(table: 'epics' | 'docs' = 'epics'): Promise<{ release(): Promise<void> }> {
  const other = kit.openDb()
  let released = false
  let reads = 0
  const reading = other.transaction('r', other[table], async () => {
    for (; !released; reads++) await other[table].count()
  })
  await vi.waitFor(() => expect(reads).toBeGreaterThan(0))
  return {
    release: async () => {
      released = true
      await reading
      other.close()
    },
  }
}

/** Replays with the journal until nothing is left to send. */
async function replayAll(db: OutpostDb): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await replayFast(db, kit.transport, { journal })
    if ((await outboxStatus(db)).pending === 0) return
  }
  throw new Error('still changes to send after 20 passes')
}

describe('the outbox journal', () => {
  it('restores a lost cache’s changes once, and every one reaches the service once; cancelled ones never', async () => {
    const { service } = kit
    const act = actionsFor(kit.db, offline(kit.transport), { journal })
    await act.updateEpic(epics[0].id, { name: 'Renamed before the loss' })
    const created = await act.createEpic({ name: 'Made before the loss' })
    await act.updateEpic(created, { description: 'and described' })
    await act.createComment(created, 'A comment on it')
    const label = await act.createLabel({ name: 'journaled-label' })
    await act.updateEpic(epics[1].id, { label_ids: [label] })
    const cancelled = await act.createEpic({ name: 'Never sent' })
    await act.deleteEpic(cancelled)
    await act.deleteEpic(epics[2].id)
    const queued = (await outboxRecords(kit.db)).length
    // The create deleted before it went cancelled out: neither is open.
    expect((await journal.read()).entries.length).toBe(7)

    const db = await wipe(kit.db)
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 7, kept: 0, trimmed: 0, journaled: 0 })
    expect((await outboxRecords(db)).length).toBe(queued)
    expect((await db.meta.get(RESTORED_KEY))?.value).toMatchObject({ count: 7 })
    // Restoring again (another window, the next start) finds nothing more to do.
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 0, kept: 0, trimmed: 0, journaled: 0 })

    await fillCache(db, kit.transport)
    await replayAll(db)
    const all = (await v3(service).get('/epics', { query: { includes_description: true } })).body as {
      id: number
      name: string
      description: string
      label_ids: number[]
      comments: { text: string }[]
    }[]
    expect(all.filter((e) => e.name === 'Made before the loss')).toHaveLength(1)
    expect(all.find((e) => e.name === 'Made before the loss')?.description).toBe('and described')
    expect(all.filter((e) => e.name === 'Never sent')).toHaveLength(0)
    expect(all.find((e) => e.id === epics[0].id)?.name).toBe('Renamed before the loss')
    expect(all.find((e) => e.id === epics[2].id)).toBeUndefined()
    const labels = (await v3(service).get('/labels')).body as { id: number; name: string }[]
    expect(labels.filter((l) => l.name === 'journaled-label')).toHaveLength(1)
    expect(all.find((e) => e.id === epics[1].id)?.label_ids).toContain(labels.find((l) => l.name === 'journaled-label')!.id)
    const madeId = all.find((e) => e.name === 'Made before the loss')!.id
    const comments = (await v3(service).get(`/epics/${madeId}/comments`)).body as { text: string }[]
    expect(comments.map((c) => c.text)).toEqual(['A comment on it'])
    // Everything confirmed: the journal holds nothing open, and the local id the user held still finds the epic.
    expect((await journal.read()).entries).toEqual([])
    expect(await resolveId(db, 'epic', created)).toBe(madeId)
  })

  it('a write made on the new cache before the start’s restore ran does not pass for the cache having applied the rest', async () => {
    await actionsFor(kit.db, offline(kit.transport), { journal }).updateEpic(epics[0].id, { name: 'Queued before the loss' })
    const db = await wipe(kit.db)
    await actionsFor(db, offline(kit.transport), { journal }).createEpic({ name: 'Made at once after the loss' })
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 1, kept: 0, trimmed: 0, journaled: 0 })
    expect((await outboxRecords(db)).map((r) => r.payload.name).sort()).toEqual(['Made at once after the loss', 'Queued before the loss'])
  })

  it('a change made at start while the restore runs is queued after the earlier ones it brings back', async () => {
    await actionsFor(kit.db, offline(kit.transport), { journal }).updateEpic(epics[0].id, { name: 'Renamed before the loss' })
    const db = await wipe(kit.db)
    await fillCache(db, kit.transport)
    // The journal is slow to answer: the user renames the epic again meanwhile.
    let answer = () => undefined as void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    const slow: OutboxJournal = { ...journal, read: async () => (await answered, journal.read()) }
    const engine = startDataLayer({ db, transport: offline(kit.transport), journal: slow, sync: { fileBudgetBytes: 0 } })
    const saving = actionsFor(db, offline(kit.transport), { journal, ready: () => engine.restore() }).updateEpic(epics[0].id, {
      name: 'Renamed after the loss',
    })
    answer()
    await saving
    await engine.stop()
    await replayAll(db)
    expect(((await v3(kit.service).get(`/epics/${epics[0].id}`)).body as { name: string }).name).toBe('Renamed after the loss')
  })

  it('a restore that failed is tried again at the next replay, and nothing is replayed before it worked', async () => {
    await actionsFor(kit.db, offline(kit.transport), { journal }).deleteEpic(epics[0].id)
    const db = await wipe(kit.db)
    let unreadable = true
    const flaky: OutboxJournal = { ...journal, read: () => (unreadable ? Promise.reject(new Error('The journal could not be read')) : journal.read()) }
    const errors: unknown[] = []
    let passes = 0
    const pass = async () => {
      passes++
      await replayFast(db, kit.transport, { journal })
    }
    const engine = startDataLayer({
      db,
      transport: kit.transport,
      replay: pass,
      journal: flaky,
      onRestoreError: (error) => errors.push(error),
      sync: { fileBudgetBytes: 0 },
    })
    expect(await engine.restore()).toBe(false)
    await expect(engine.replay()).rejects.toThrow('The journal could not be read')
    expect(passes).toBe(0)
    expect(errors).toHaveLength(2)
    // Tried again: the delete comes back and goes.
    unreadable = false
    await engine.replay()
    expect(passes).toBe(1)
    await engine.stop()
    expect((await v3(kit.service).get(`/epics/${epics[0].id}`)).status).toBe(404)
    expect((await journal.read()).entries).toEqual([])
  })

  it('a deletion refused at its commit (storage full) is kept, and the create it cancels stays in the journal: after a loss both come back and cancel out', async () => {
    const db = kit.openDb()
    // As Chromium refuses it: the transaction's writes go through, its commit is refused.
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit' })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.createEpic({ name: 'Its deletion was not saved' })
    const [created] = await outboxRecords(db)
    fault.full = true
    await act.deleteEpic(created.entityId)
    fault.full = false
    // The cache still has the create; the journal has both (confirmed before the commit, the create would be lost),
    // and the deletion's mark that it made the create pointless, kept with it (a restore queues the deletion, which
    // cancels the create again).
    expect((await outboxRecords(db)).map((r) => r.op)).toEqual(['create'])
    expect((await journal.read()).entries.map((e) => [e.record.op, e.kept === true])).toEqual([
      ['create', false],
      ['delete', true],
      ['void', true],
    ])

    const fresh = await wipe(db)
    expect(await restoreFromJournal(fresh, journal)).toEqual({ restored: 2, kept: 0, trimmed: 0, journaled: 0 })
    expect(await outboxRecords(fresh)).toEqual([])
    await fillCache(fresh, kit.transport)
    await replayAll(fresh)
    expect(await epicsWithExternalId(kit.service, created.externalId!)).toHaveLength(0)
    expect((await journal.read()).entries).toEqual([])
  })

  it('a create the service answered and the cache could not keep the answer of is not made twice, even after a loss', async () => {
    const db = kit.openDb()
    // The doc's row is refused: the answer's whole transaction with it. A doc has no external id: looked for by what it
    // says, and the service keeps it in its own form.
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit', tables: ['docs'] })
    const act = actionsFor(db, kit.transport, { journal })
    await act.createDoc({ title: 'Answered and not kept', content_markdown: 'a\\b <b>bold</b>' })
    fault.full = true
    await expect(replayFast(db, kit.transport, { journal })).rejects.toSatisfy(isStorageFull)
    fault.full = false
    // The journal heard the confirmation (before the commit); the cache still has it in flight.
    expect((await journal.read()).entries).toEqual([])
    expect((await outboxRecords(db)).map((r) => r.state)).toEqual(['in-flight'])

    // The next start journals it again, knowing what it became; the cache is then lost before it goes.
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 0, kept: 0, trimmed: 0, journaled: 1 })
    const fresh = await wipe(db)
    await restoreFromJournal(fresh, journal)
    await fillCache(fresh, kit.transport)
    await replayAll(fresh)
    const docs = (await v3(kit.service).get('/documents')).body as { title: string }[]
    expect(docs.filter((d) => d.title === 'Answered and not kept')).toHaveLength(1)
    expect((await journal.read()).entries).toEqual([])
  })

  /** A create whose answer the cache could not keep, carrying a field its request cannot (archived), then unarchived. */
  async function archivedThenNot(keptInJournal: boolean): Promise<void> {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit', tables: ['epics'] })
    const act = actionsFor(db, offline(kit.transport), { journal })
    const epic = await act.createEpic({ name: 'Archived, then not' })
    // Folded into the create, which cannot carry it: it follows as an update once the create is confirmed.
    await act.archiveEpic(epic)
    fault.full = true
    await expect(replayFast(db, kit.transport, { journal })).rejects.toSatisfy(isStorageFull)
    if (keptInJournal) {
      // Still full, for every table: the user's next change is kept in the journal, and queued by the next restore.
      fault.tables = undefined
      await act.unarchiveEpic(epic)
      fault.full = false
      await restoreFromJournal(db, journal)
    } else {
      // The next start learns from the journal what the create became; then the user's change.
      fault.full = false
      await restoreFromJournal(db, journal)
      await act.unarchiveEpic(epic)
    }
    // The look for the create fails once (the service unreachable for it); the pass goes on with what may go.
    await replayFast(db, failingOnce(kit.transport, 'epics.list', { kind: 'network', message: 'unreachable' }), { journal })
    await replayAll(db)
    const made = ((await v3(kit.service).get('/epics')).body as { name: string; archived: boolean }[]).filter((e) => e.name === 'Archived, then not')
    expect(made).toEqual([expect.objectContaining({ archived: false })])
    expect((await journal.read()).entries).toEqual([])
    db.close()
  }

  it('a change kept over a create whose answer the cache could not keep waits for that create: what the create leaves to follow does not undo it', () =>
    archivedThenNot(true))

  it('so does a change made once the next start knows from the journal what such a create became', () => archivedThenNot(false))

  it('a fix of a failed change refused for storage full leaves the change in the journal: a loss of the cache then loses nothing', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit' })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.createLabel({ name: 'Taken meanwhile' })
    expect((await v3(kit.service, kit.service.tokens.member).post('/labels', { name: 'Taken meanwhile' })).status).toBe(201)
    await replayAll(db)
    const [failed] = await outboxRecords(db, ['failed'])
    // The user renames it and sends it again while storage is full: refused, and told so.
    fault.full = true
    await expect(act.retry(failed.seq!, { name: 'Mine instead' })).rejects.toSatisfy(isStorageFull)
    fault.full = false
    expect((await journal.read()).entries.map((e) => e.record.payload.name)).toEqual(['Taken meanwhile'])
    // The browser's storage is then lost: the change comes back from the journal, as it was, failed again.
    const fresh = await wipe(db)
    await restoreFromJournal(fresh, journal)
    await replayAll(fresh)
    expect((await outboxRecords(fresh, ['failed'])).map((r) => r.payload.name)).toEqual(['Taken meanwhile'])
    fresh.close()
  })

  it('a change journaled again at start (its answer heard, the cache’s write refused) keeps its place: after a loss it does not undo a later one', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit', tables: ['epics'] })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.archiveEpic(epics[0].id)
    fault.full = true
    await expect(replayFast(db, kit.transport, { journal })).rejects.toSatisfy(isStorageFull)
    fault.full = false
    // Answered (the journal heard it), still in flight in the cache; the user changes their mind.
    await act.unarchiveEpic(epics[0].id)
    expect(await restoreFromJournal(db, journal)).toMatchObject({ journaled: 1 })
    const fresh = await wipe(db)
    await restoreFromJournal(fresh, journal)
    await replayAll(fresh)
    expect((await v3(kit.service).get(`/epics/${epics[0].id}`)).body.archived).toBe(false)
    expect((await journal.read()).entries).toEqual([])
    fresh.close()
  })

  it('a change kept in the journal only (storage full) is queued at the next restore, after later writes too, and is not told as a lost cache', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: true, refused: 0, at: 'commit' })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.updateEpic(epics[0].id, { name: 'Kept while storage was full' })
    fault.full = false
    // A later write moves the cache's mark past the kept entry.
    await act.updateEpic(epics[1].id, { name: 'Queued once there was room' })
    expect((await outboxRecords(db)).map((r) => r.payload.name)).toEqual(['Queued once there was room'])
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 0, kept: 1, trimmed: 0, journaled: 0 })
    expect(await db.meta.get(RESTORED_KEY)).toBeUndefined()
    await replayAll(db)
    const names = ((await v3(kit.service).get('/epics')).body as { id: number; name: string }[])
      .filter((e) => e.id === epics[0].id || e.id === epics[1].id)
      .map((e) => e.name)
    expect(names.sort()).toEqual(['Kept while storage was full', 'Queued once there was room'])
    expect((await journal.read()).entries).toEqual([])
    db.close()
  })

  it('a change kept in the journal only, then the same field set again before the restore: the later one is what the service gets', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: true, refused: 0, at: 'commit' })
    const [a, b, c] = await db.objectives.toArray()
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.updateEpic(epics[0].id, { objective_ids: [a.id], name: 'Kept while storage was full' })
    fault.full = false
    // The screen still shows the objectives as they were; the user sets them again (the restore has not run yet).
    await act.updateEpic(epics[0].id, { objective_ids: [b.id, c.id] })
    expect(await restoreFromJournal(db, journal)).toMatchObject({ kept: 1 })
    await replayAll(db)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, conflicts: 0, failed: 0 })
    // The later objectives, and the kept change's other field.
    expect((await v3(kit.service).get(`/epics/${epics[0].id}`)).body).toMatchObject({ objective_ids: [b.id, c.id], name: 'Kept while storage was full' })
    expect((await journal.read()).entries).toEqual([])
    db.close()
  })

  it('a kept change goes over the same field of a change made before it, journaled again since (a fix, a resolved conflict)', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit' })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.updateEpic(epics[2].id, { name: 'Made first' })
    fault.full = true
    await act.updateEpic(epics[2].id, { name: 'Kept, made after it' })
    fault.full = false
    // The first change is journaled again after the kept one (its entry renumbered, its place kept).
    const [first] = await outboxRecords(db)
    const replaced = await db.transaction('rw', db.tables, async () => {
      const r = (await db.outbox.get(first.seq!))!
      const ids = await journalAgain(db, journal, r)
      await db.outbox.put(r)
      return ids
    })
    await journal.confirm(replaced)
    expect(await restoreFromJournal(db, journal)).toMatchObject({ kept: 1 })
    await replayAll(db)
    expect((await v3(kit.service).get(`/epics/${epics[2].id}`)).body).toMatchObject({ name: 'Kept, made after it' })
    expect((await journal.read()).entries).toEqual([])
    db.close()
  })

  it('a kept change whose every field was set again later is done with, nothing of it sent', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: true, refused: 0, at: 'commit' })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.updateEpic(epics[1].id, { name: 'Kept, then replaced' })
    fault.full = false
    await act.updateEpic(epics[1].id, { name: 'The last word' })
    expect(await restoreFromJournal(db, journal)).toMatchObject({ restored: 0 })
    expect((await outboxRecords(db)).map((r) => r.payload)).toEqual([{ name: 'The last word' }])
    await replayAll(db)
    expect((await v3(kit.service).get(`/epics/${epics[1].id}`)).body).toMatchObject({ name: 'The last word' })
    expect((await journal.read()).entries).toEqual([])
    db.close()
  })

  it('a kept change, once queued, is done with when the user discards it: a later restore does not queue it again', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: true, refused: 0, at: 'commit' })
    const act = actionsFor(db, offline(kit.transport), { journal })
    await act.createEpic({ name: 'Kept, then discarded' })
    fault.full = false
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 0, kept: 1, trimmed: 0, journaled: 0 })
    const [queued] = await outboxRecords(db)
    // A restore (another window's start) reads the journal just before the user's discard confirms the entry, and
    // runs its transaction after: it finds the entry open, kept, and in no record.
    const before = await journal.read()
    expect(before.entries.map((e) => e.kept)).toEqual([true])
    await act.discard(queued.seq!)
    expect(await restoreFromJournal(db, { ...journal, read: async () => before })).toEqual({ restored: 0, kept: 0, trimmed: 1, journaled: 0 })
    expect(await outboxRecords(db)).toEqual([])
    expect((await journal.read()).entries).toEqual([])
    await replayAll(db)
    const names = ((await v3(kit.service).get('/epics')).body as { name: string }[]).map((e) => e.name)
    expect(names).not.toContain('Kept, then discarded')
    db.close()
  })

  it('a conflict keeps in the journal only what is left of its change: after a loss, fields the service took are not sent again over what happened since', async () => {
    const { db } = kit
    const epic = epics[0]
    const [gone, stays] = await db.objectives.toArray()
    await actionsFor(db, offline(kit.transport), { journal }).updateEpic(epic.id, { name: 'Mine', objective_ids: [gone.id, stays.id] })
    // Someone else renames the epic: the objectives go, the name waits for the user.
    expect((await v4(kit.service, kit.service.tokens.member).patch(`/epics/${epic.id}`, { name: 'Theirs' })).status).toBe(200)
    expect(await replayFast(db, kit.transport, { journal })).toMatchObject({ conflicts: 1 })
    // Then the user deletes one of those objectives, and it goes.
    await actionsFor(db, kit.transport, { journal }).deleteObjective(gone.id)
    await replayAll(db)
    const fresh = await wipe(db)
    expect(await restoreFromJournal(fresh, journal)).toMatchObject({ restored: 1 })
    expect(await replayFast(fresh, kit.transport, { journal })).toMatchObject({ conflicts: 1, failed: 0 })
    const [record] = await outboxRecords(fresh, ['conflict'])
    expect(Object.keys(record.conflict!.fields)).toEqual(['name'])
    await resolveConflict(fresh, record.seq!, { name: 'mine' }, { journal })
    await replayAll(fresh)
    expect(await outboxStatus(fresh)).toMatchObject({ pending: 0, conflicts: 0, failed: 0 })
    expect((await v3(kit.service).get(`/epics/${epic.id}`)).body).toMatchObject({ name: 'Mine', objective_ids: [stays.id] })
    fresh.close()
  })

  it('a conflict whose write the cache refused (storage full) leaves the change in the journal: a loss before the next start loses nothing', async () => {
    const db = kit.openDb()
    const epic = epics[0]
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit', tables: ['epics'] })
    await actionsFor(db, offline(kit.transport), { journal }).updateEpic(epic.id, { name: 'Mine', description: 'Also mine' })
    expect((await v4(kit.service, kit.service.tokens.member).patch(`/epics/${epic.id}`, { name: 'Theirs' })).status).toBe(200)
    // The description goes; the name meets the conflict, and the cache cannot write what replay made of it.
    fault.full = true
    await expect(replayFast(db, kit.transport, { journal })).rejects.toSatisfy(isStorageFull)
    fault.full = false
    expect((await journal.read()).entries.map((e) => e.record.payload.name)).toContain('Mine')
    // The browser's storage is lost before the next start.
    const fresh = await wipe(db)
    await restoreFromJournal(fresh, journal)
    await replayAll(fresh)
    const [record] = await outboxRecords(fresh, ['conflict'])
    expect(record.conflict?.fields.name).toMatchObject({ mine: 'Mine', theirs: 'Theirs' })
    expect((await v3(kit.service).get(`/epics/${epic.id}`)).body.description).toBe('Also mine')
    fresh.close()
  })

  it('a cache that agrees with the journal is restored without waiting for the outbox lock (another window replaying); one that does not takes it', async () => {
    await actionsFor(kit.db, offline(kit.transport), { journal }).updateEpic(epics[0].id, { name: 'Queued in this cache' })
    const asked: string[] = []
    const neverGranted: LockFn = (name) => {
      asked.push(name)
      return new Promise(() => undefined)
    }
    expect(await restoreFromJournal(kit.db, journal, { lock: neverGranted })).toEqual({ restored: 0, kept: 0, trimmed: 0, journaled: 0 })
    expect(asked).toEqual([])

    const granted: LockFn = (name, run) => {
      asked.push(name)
      return run()
    }
    const db = await wipe(kit.db)
    expect(await restoreFromJournal(db, journal, { lock: granted })).toEqual({ restored: 1, kept: 0, trimmed: 0, journaled: 0 })
    expect(asked).toHaveLength(1)
  })

  it('a new cache with nothing queued: the start’s restore and a replay pass do not wait for another window reading the cache', async () => {
    const db = await wipe(kit.db)
    const empty = fileJournal(join(kit.folder, 'journal', 'new-account.jsonl'))
    const reading = await readingElsewhere()
    // A write of the epics waits for that read, as the sync's first writes do; a journaled write (every table) would.
    let written = false
    const write = db.epics.put(epics[0]).then(() => (written = true))

    expect(await restoreFromJournal(db, empty)).toEqual({ restored: 0, kept: 0, trimmed: 0, journaled: 0 })
    expect((await db.meta.get(JOURNAL_KEY))?.value).toMatchObject({ epoch: (await empty.read()).epoch })
    expect(await replayFast(db, kit.transport, { journal: empty })).toMatchObject({ confirmed: 0, failed: 0, remaining: 0 })
    expect(written).toBe(false)

    await reading.release()
    await write
    await empty.close()
  })

  it('a change queued before another window began reading the cache reaches the service while it reads; its answer is kept after', async () => {
    await actionsFor(kit.db, offline(kit.transport), { journal }).updateEpic(epics[0].id, { name: 'Sent while another window reads' })
    const reading = await readingElsewhere()
    let settled = false
    const replayed = replayFast(kit.db, kit.transport, { journal }).finally(() => (settled = true))

    await vi.waitFor(
      async () => expect(((await v3(kit.service).get(`/epics/${epics[0].id}`)).body as { name: string }).name).toBe('Sent while another window reads'),
      {
        timeout: 10_000,
      },
    )
    // Keeping the answer writes the epic: that waits for the read.
    expect(settled).toBe(false)
    await reading.release()
    expect(await replayed).toMatchObject({ confirmed: 1, remaining: 0 })
    expect((await kit.db.epics.get(epics[0].id))?.name).toBe('Sent while another window reads')
  })

  it('a rename is saved, and reaches the service, while another window reads the docs; it still waits for a read of the epics', async () => {
    const act = actionsFor(kit.db, kit.transport, { journal })
    const docs = await readingElsewhere('docs')
    await act.updateEpic(epics[0].id, { name: 'Renamed while the docs are read' })
    expect((await mergedEpic(kit.db, epics[0].id))?.name).toBe('Renamed while the docs are read')
    expect((await journal.read()).entries.map((e) => e.record.payload)).toContainEqual({ name: 'Renamed while the docs are read' })
    let settled = false
    const replayed = replayFast(kit.db, kit.transport, { journal }).finally(() => (settled = true))
    await vi.waitFor(
      async () => expect(((await v3(kit.service).get(`/epics/${epics[0].id}`)).body as { name: string }).name).toBe('Renamed while the docs are read'),
      { timeout: 10_000 },
    )
    // Keeping the answer is journaled over every table: that waits for the read.
    expect(settled).toBe(false)
    await docs.release()
    expect(await replayed).toMatchObject({ confirmed: 1, remaining: 0 })

    // An update writes its own table: a read of the epics elsewhere holds it back until it ends.
    const reading = await readingElsewhere('epics')
    let saved = false
    const renaming = act.updateEpic(epics[1].id, { name: 'Renamed after the read' }).then(() => (saved = true))
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(saved).toBe(false)
    await reading.release()
    await renaming
    expect((await mergedEpic(kit.db, epics[1].id))?.name).toBe('Renamed after the read')
  })

  it('a health update the service answered and the cache could not keep the answer of is found by the id it became, never made again', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit', tables: ['epicHealth'] })
    const act = actionsFor(db, kit.transport, { journal })
    await act.setEpicHealth(epics[2].id, { status: 'Off Track', text: 'Answered and not kept' })
    fault.full = true
    await expect(replayFast(db, kit.transport, { journal })).rejects.toSatisfy(isStorageFull)
    fault.full = false
    // The next start journals it again and remembers what it became: that one is its own, not another's.
    expect(await restoreFromJournal(db, journal)).toEqual({ restored: 0, kept: 0, trimmed: 0, journaled: 1 })
    await replayAll(db)
    const history = (await v3(kit.service).get(`/epics/${epics[2].id}/health-history`)).body as { text: string }[]
    expect(history.filter((h) => h.text === 'Answered and not kept')).toHaveLength(1)
    expect(await db.outbox.count()).toBe(0)
  })

  it('a create sent before the loss, its answer lost: looked for on the service and adopted, never made twice', async () => {
    const { service } = kit
    const act = actionsFor(kit.db, kit.transport, { journal })
    const created = await act.createEpic({ name: 'Sent, answer lost' })
    const [record] = await outboxRecords(kit.db)
    service.setFaults({ dropAfterCommitRate: 1 })
    await replayFast(kit.db, kit.transport, { journal, backoff: { attempts: 1 } })
    service.setFaults({ dropAfterCommitRate: 0 })
    expect(await epicsWithExternalId(service, record.externalId!)).toHaveLength(1)
    expect((await journal.read()).entries[0].sentAfter).toBeDefined()

    const db = await wipe(kit.db)
    await restoreFromJournal(db, journal)
    expect((await outboxRecords(db)).map((r) => r.state)).toEqual(['in-flight'])
    await replayAll(db)
    expect(await epicsWithExternalId(service, record.externalId!)).toHaveLength(1)
    expect(isFinite(Number(await resolveId(db, 'epic', created)))).toBe(true)
    expect((await journal.read()).entries).toEqual([])
  })

  it('a create whose request never left takes a later change in; sent so, its answer lost: after a loss it is found by what it says now', async () => {
    const { service } = kit
    const act = actionsFor(kit.db, kit.transport, { journal })
    const created = await act.createDoc({ title: 'Doc as first written' })
    // Offline: the request never leaves, the create waits again (and a later change merges into it).
    await replayFast(kit.db, offline(kit.transport), { journal, backoff: { attempts: 1 } })
    await act.updateDoc(created, { title: 'Doc as renamed before it went' })
    expect((await outboxRecords(kit.db)).map((r) => [r.op, r.payload.title])).toEqual([['create', 'Doc as renamed before it went']])
    service.setFaults({ dropAfterCommitRate: 1 })
    await replayFast(kit.db, kit.transport, { journal, backoff: { attempts: 1 } })
    service.setFaults({ dropAfterCommitRate: 0 })

    const db = await wipe(kit.db)
    await restoreFromJournal(db, journal)
    expect((await outboxRecords(db)).map((r) => [r.op, r.state, r.payload.title])).toEqual([['create', 'in-flight', 'Doc as renamed before it went']])
    await replayAll(db)
    const docs = (await v3(service).get('/documents')).body as { title: string }[]
    expect(docs.filter((d) => d.title.startsWith('Doc as'))).toEqual([expect.objectContaining({ title: 'Doc as renamed before it went' })])
  })

  it('a journal that cannot be told a change is done keeps it queued until it can; an entry no record holds any more is trimmed at start', async () => {
    const { service } = kit
    const act = actionsFor(kit.db, kit.transport, { journal })
    const created = await act.createEpic({ name: 'Confirmed once the journal hears it' })
    const [record] = await outboxRecords(kit.db)
    journal.loseConfirmations = true
    await replayFast(kit.db, kit.transport, { journal, backoff: { attempts: 2 } })
    // On the service, but the cache does not drop the record the journal still holds open.
    expect(await epicsWithExternalId(service, record.externalId!)).toHaveLength(1)
    expect((await outboxRecords(kit.db)).map((r) => r.state)).toEqual(['in-flight'])
    expect((await journal.read()).entries).toHaveLength(1)
    journal.loseConfirmations = false
    await replayAll(kit.db)
    expect(await epicsWithExternalId(service, record.externalId!)).toHaveLength(1)
    expect((await journal.read()).entries).toEqual([])
    expect(isFinite(Number(await resolveId(kit.db, 'epic', created)))).toBe(true)

    // A record removed without the journal being told (a data problem discarded, say): trimmed at the next start.
    await act.updateEpic(epics[0].id, { name: 'Removed from the cache by hand' })
    await kit.db.outbox.clear()
    expect(await restoreFromJournal(kit.db, journal)).toEqual({ restored: 0, kept: 0, trimmed: 1, journaled: 0 })
    expect((await journal.read()).entries).toEqual([])
  })

  it('a cache behind the journal gets the entries it never applied; records the journal lacks are journaled', async () => {
    const act = actionsFor(kit.db, offline(kit.transport), { journal })
    await act.updateEpic(epics[0].id, { name: 'Applied by the cache' })
    const mark = (await kit.db.meta.get(JOURNAL_KEY))!.value as { epoch: string; upTo: number }
    await act.updateEpic(epics[1].id, { name: 'Only in the journal' })
    // An older copy of the cache: it knows the first change only.
    await kit.db.transaction('rw', kit.db.tables, async () => {
      const second = (await outboxRecords(kit.db)).find((r) => r.entityId === String(epics[1].id))!
      await kit.db.outbox.delete(second.seq!)
      await kit.db.overlay.clear()
      await kit.db.meta.put({ key: JOURNAL_KEY, value: mark })
    })
    // And a change queued by a version that kept no journal.
    await actionsFor(kit.db, offline(kit.transport)).updateEpic(epics[2].id, { name: 'Never journaled' })

    expect(await restoreFromJournal(kit.db, journal)).toEqual({ restored: 1, kept: 0, trimmed: 0, journaled: 1 })
    expect((await mergedEpic(kit.db, epics[1].id))?.name).toBe('Only in the journal')
    expect((await journal.read()).entries.map((e) => e.record.payload.name)).toEqual(['Applied by the cache', 'Only in the journal', 'Never journaled'])

    // All three survive a loss now.
    const db = await wipe(kit.db)
    expect((await restoreFromJournal(db, journal)).restored).toBe(3)
    await fillCache(db, kit.transport)
    await replayAll(db)
    const names = new Map(((await v3(kit.service).get('/epics')).body as { id: number; name: string }[]).map((e) => [e.id, e.name]))
    expect([names.get(epics[0].id as number), names.get(epics[1].id as number), names.get(epics[2].id as number)]).toEqual([
      'Applied by the cache',
      'Only in the journal',
      'Never journaled',
    ])
  })

  it('a discarded change and a write refused before it was queued leave nothing open in the journal', async () => {
    const act = actionsFor(kit.db, offline(kit.transport), { journal })
    await act.updateEpic(epics[0].id, { name: 'Discarded' })
    const [record] = await outboxRecords(kit.db)
    await act.discard(record.seq!)
    const gone = await act.createEpic({ name: 'Gone' })
    await act.deleteEpic(gone)
    await expect(act.updateEpic(gone, { name: 'After its deletion' })).rejects.toThrow()
    expect((await journal.read()).entries).toEqual([])
  })

  describe('a crash between a commit and its confirmation, then the cache lost', () => {
    it('a failed change fixed by the user comes back as fixed, never as it was', async () => {
      const act = actionsFor(kit.db, offline(kit.transport), { journal })
      await act.createLabel({ name: 'Taken meanwhile' })
      expect((await v3(kit.service, kit.service.tokens.member).post('/labels', { name: 'Taken meanwhile' })).status).toBe(201)
      await replayAll(kit.db)
      const [failed] = await outboxRecords(kit.db, ['failed'])
      const crashing = crashingAfterCommit(journal)
      await actionsFor(kit.db, offline(kit.transport), { journal: crashing }).retry(failed.seq!, { name: 'Mine instead' })
      expect(crashing.dropped.length).toBeGreaterThan(0)

      const fresh = await wipe(kit.db)
      expect(await restoreFromJournal(fresh, journal)).toMatchObject({ restored: 1 })
      expect((await outboxRecords(fresh)).map((r) => r.payload.name)).toEqual(['Mine instead'])
      await replayAll(fresh)
      expect(await outboxStatus(fresh)).toMatchObject({ pending: 0, failed: 0, conflicts: 0 })
      const names = ((await v3(kit.service).get('/labels')).body as { name: string }[]).map((l) => l.name)
      expect(names.filter((n) => n === 'Mine instead')).toHaveLength(1)
      expect((await journal.read()).entries).toEqual([])
      fresh.close()
    })

    it('a kept change a restore took in before it was marked kept, fixed by the user: neither the cache nor a new one gets it back as it was', async () => {
      const db = kit.openDb()
      const fault = quotaFault(db, { full: true, refused: 0, at: 'commit' })
      await actionsFor(db, offline(kit.transport), { journal }).createLabel({ name: 'Taken meanwhile' })
      fault.full = false
      // A restore that read the journal while that write was being refused: it took the change for one a lost cache
      // held, and queued it; the journal marked it kept after.
      const read = await journal.read()
      const before = { ...read, entries: read.entries.map(({ kept: _kept, ...e }) => e) }
      expect(await restoreFromJournal(db, { ...journal, read: async () => before })).toMatchObject({ restored: 1 })
      expect((await journal.read()).entries.map((e) => e.kept)).toEqual([true])
      // Refused (its name taken meanwhile), and fixed by the user, with a crash before the fix's confirmation.
      expect((await v3(kit.service, kit.service.tokens.member).post('/labels', { name: 'Taken meanwhile' })).status).toBe(201)
      await replayFast(db, kit.transport, { journal })
      const [failed] = await outboxRecords(db, ['failed'])
      const crashing = crashingAfterCommit(journal)
      await actionsFor(db, offline(kit.transport), { journal: crashing }).retry(failed.seq!, { name: 'Mine instead' })
      expect(crashing.dropped.length).toBeGreaterThan(0)

      // The next start: the fix stands, the change as it was is done with.
      await restoreFromJournal(db, journal)
      expect((await outboxRecords(db)).map((r) => [r.payload.name, r.journal?.length])).toEqual([['Mine instead', 1]])
      // And a loss of the cache after that brings back the fix alone.
      const fresh = await wipe(db)
      await restoreFromJournal(fresh, journal)
      expect((await outboxRecords(fresh)).map((r) => r.payload.name)).toEqual(['Mine instead'])
      await replayAll(fresh)
      const names = ((await v3(kit.service).get('/labels')).body as { name: string }[]).map((l) => l.name)
      expect(names.filter((n) => n === 'Mine instead')).toHaveLength(1)
      expect((await journal.read()).entries).toEqual([])
      fresh.close()
    })

    it('a kept create a restore took in before it was marked kept, then deleted before it went: it does not come back', async () => {
      const db = kit.openDb()
      const fault = quotaFault(db, { full: true, refused: 0, at: 'commit' })
      await actionsFor(db, offline(kit.transport), { journal }).createEpic({ name: 'Kept, taken in early, deleted' })
      fault.full = false
      const read = await journal.read()
      const before = { ...read, entries: read.entries.map(({ kept: _kept, ...e }) => e) }
      expect(await restoreFromJournal(db, { ...journal, read: async () => before })).toMatchObject({ restored: 1 })
      const [create] = await outboxRecords(db)
      // Deleted before it was sent (nothing left to send), with a crash before the deletion's confirmation.
      const crashing = crashingAfterCommit(journal)
      await actionsFor(db, offline(kit.transport), { journal: crashing }).deleteEpic(create.entityId)
      expect(crashing.dropped.length).toBeGreaterThan(0)
      expect(await outboxRecords(db)).toEqual([])

      await restoreFromJournal(db, journal)
      expect(await outboxRecords(db)).toEqual([])
      const fresh = await wipe(db)
      await restoreFromJournal(fresh, journal)
      expect(await outboxRecords(fresh)).toEqual([])
      expect((await journal.read()).entries).toEqual([])
      fresh.close()
    })

    it('a discarded change does not come back', async () => {
      const act = actionsFor(kit.db, offline(kit.transport), { journal })
      await act.updateEpic(epics[0].id, { name: 'Discarded' })
      const [record] = await outboxRecords(kit.db)
      await actionsFor(kit.db, offline(kit.transport), { journal: crashingAfterCommit(journal) }).discard(record.seq!)

      const fresh = await wipe(kit.db)
      expect(await restoreFromJournal(fresh, journal)).toMatchObject({ restored: 0 })
      expect(await outboxRecords(fresh)).toEqual([])
      expect((await journal.read()).entries).toEqual([])
      fresh.close()
    })

    it('a conflict resolved as the service has it does not come back', async () => {
      const { db } = kit
      const epic = epics[0]
      await actionsFor(db, offline(kit.transport), { journal }).updateEpic(epic.id, { name: 'Mine' })
      expect((await v4(kit.service, kit.service.tokens.member).patch(`/epics/${epic.id}`, { name: 'Theirs' })).status).toBe(200)
      expect(await replayFast(db, kit.transport, { journal })).toMatchObject({ conflicts: 1 })
      const [record] = await outboxRecords(db, ['conflict'])
      await resolveConflict(db, record.seq!, 'theirs', { journal: crashingAfterCommit(journal) })

      const fresh = await wipe(db)
      expect(await restoreFromJournal(fresh, journal)).toMatchObject({ restored: 0 })
      expect(await outboxRecords(fresh)).toEqual([])
      await fillCache(fresh, kit.transport)
      await replayAll(fresh)
      expect((await v3(kit.service).get(`/epics/${epic.id}`)).body).toMatchObject({ name: 'Theirs' })
      fresh.close()
    })

    it('a crash before the commit (the mark appended, the transaction not made) leaves a surviving cache as it was', async () => {
      const act = actionsFor(kit.db, offline(kit.transport), { journal })
      await act.updateEpic(epics[0].id, { name: 'Kept' })
      const [record] = await outboxRecords(kit.db)
      // The discard's transaction appends its mark, then dies before committing (its withdrawal never sent).
      const dying: OutboxJournal = { ...journal, confirm: () => Promise.reject(new Error('The app was killed.')) }
      await expect(
        kit.db.transaction('rw', kit.db.tables, async () => {
          await actionsFor(kit.db, offline(kit.transport), { journal: dying }).discard(record.seq!)
          throw new Error('The app was killed.')
        }),
      ).rejects.toThrow()
      expect((await journal.read()).entries.some((e) => e.record.op === 'void')).toBe(true)
      // The cache survived and still holds the change: the mark is trimmed, the change stays.
      await restoreFromJournal(kit.db, journal)
      expect((await outboxRecords(kit.db)).map((r) => r.payload.name)).toEqual(['Kept'])
      expect((await journal.read()).entries.map((e) => e.record.op)).toEqual(['update'])
    })
  })
})
