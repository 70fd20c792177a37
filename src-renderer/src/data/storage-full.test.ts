// Storage that is full (IndexedDB's QuotaExceededError, made by testing/quota.ts):
// a sync page that cannot be written stops the run with nothing of it written
// and its checkpoint where the last stored page left it; what can be fetched
// again is cleared first and the run tried again at once; sync then waits and
// tries again by itself, and resumes where it stopped once there is room. A
// user's change the cache cannot take is kept in the journal, told, and made
// by itself once there is room; kept nowhere (no journal), it is refused as a
// whole, in words. A replay whose answer cannot be written leaves the record
// in flight, reconciled rather than sent twice.
import Dexie from 'dexie'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { fileJournal } from '../../../testing/journal-kit.ts'
import { quotaError, quotaFault } from '../../../testing/quota.ts'
import { v3, v4 } from '../../../testing/service.ts'
import { countingTransport, pages, serviceCounts, startWorld, type World } from '../../../testing/sync-kit.ts'
import { actionsFor, replayFast, startFilledKit, type Kit } from '../../../testing/outbox-kit.ts'
import { startDataLayer, syncStatus, type StorageState } from './data-layer.ts'
import { resolveId } from './outbox/ids.ts'
import { isLocalId } from './outbox/kinds.ts'
import { outboxStatus } from './outbox/records.ts'
import { mergedOne } from './overlay.ts'
import { isQuotaError, isStorageFull, StorageFullError, SYNC_PAUSED_MESSAGE, WRITE_NOT_SAVED_MESSAGE } from './storage-full.ts'
import { createSyncer, readCheckpoints, type SyncProgress } from './sync/index.ts'
import { errorOfRun, failureOfRun } from './sync-worker/protocol.ts'
import type { CachedEpic } from './types.ts'

const until = async (done: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('what counts as storage full', () => {
  it('Dexie’s error, one that carries it, and one that crossed from the sync worker', () => {
    expect(isQuotaError(quotaError())).toBe(true)
    const aborted = new Dexie.AbortError('Transaction aborted', quotaError())
    expect(isQuotaError(aborted)).toBe(true)
    expect(isQuotaError(new Dexie.AbortError('Transaction aborted'))).toBe(false)
    expect(isStorageFull(errorOfRun(failureOfRun(aborted, false)))).toBe(true)
    expect(isStorageFull(new Error('network'))).toBe(false)
  })
})

describe('sync with storage full', () => {
  let world: World
  let serviceNow = Date.parse('2025-06-02T09:00:00.000Z')
  beforeAll(async () => {
    world = await startWorld({ seed: { epics: 450, docs: 120, files: 6 }, clock: () => serviceNow })
  })
  afterAll(() => world.close())

  /** A data layer over a database whose writes the fault refuses; `fill(p)` says when to fill it up. */
  function engineOn(name: string, fill: (p: SyncProgress) => boolean) {
    const db = world.openDb(name)
    const fault = quotaFault(db)
    const counting = countingTransport(world.transport)
    const evicted: number[][] = []
    const states: (StorageState | null)[] = []
    const engine = startDataLayer({
      db,
      transport: { ...counting, evictFiles: async (keep) => (evicted.push(keep), { removed: 0, bytes: 0 }) },
      sync: { fileBudgetBytes: 0 },
      storageRetry: { firstMs: 40, maxMs: 80 },
      onStorage: (state) => states.push(state),
      syncer: (config) =>
        createSyncer({
          ...config,
          onProgress: (p) => {
            config.onProgress?.(p)
            if (fill(p)) fault.full = true
          },
        }),
    })
    return { db, fault, counted: counting.counted, evicted, states, engine }
  }

  it('a bootstrap page: the run stops with nothing of the page written, waits, and resumes from its last page once there is room', async () => {
    // Full once the second page is stored (once: room that comes back stays).
    let filled = false
    const { db, fault, counted, evicted, states, engine } = engineOn(
      'quota-bootstrap',
      (p) => !filled && p.kind === 'epics' && p.done >= 200 && (filled = true),
    )
    await expect(engine.sync()).rejects.toThrow(SYNC_PAUSED_MESSAGE)
    // The downloaded files were cleared and the run tried again at once, which found no more room.
    expect(evicted).toEqual([[]])
    expect(states).toHaveLength(1)
    expect(states[0]).toMatchObject({ message: SYNC_PAUSED_MESSAGE })
    expect(engine.storage()).not.toBeNull()
    expect(fault.refused).toBeGreaterThanOrEqual(2)

    // The checkpoint is where the last stored pages left it: nothing of the pages after them is in the cache.
    const cp = (await readCheckpoints(db)).get('epics')!
    expect(cp.bootstrapped).toBe(false)
    const stored = cp.ends!.desc.pages + cp.ends!.asc.pages
    expect(cp.done).toBeGreaterThanOrEqual(200)
    expect(cp.done).toBe(Math.min(450, stored * 100))
    expect(await db.epicComments.count()).toBeLessThanOrEqual(serviceCounts(world.service).comments)
    // A bootstrap lists every epic from the v3 list, and completes those its stored pages brought.
    expect(await db.epics.count()).toBe(450)
    expect(await db.epics.filter((e) => !e.partial).count()).toBe(cp.done)

    // Still full: it tries again by itself, and waits again.
    await until(() => states.length >= 2)
    expect(states[1]).not.toBeNull()
    expect(evicted).toHaveLength(1)

    // Room again: the next try resumes after the second page, and the message goes.
    fault.full = false
    counted.reset()
    await until(() => engine.storage() === null)
    expect(states.at(-1)).toBeNull()
    // The pages not stored, and the walk's last page.
    expect(counted.calls.get('epics.list')).toBe(pages(450) - stored + 1)
    const c = serviceCounts(world.service)
    expect(await db.epics.count()).toBe(c.epics)
    expect(await db.epicComments.count()).toBe(c.comments)
    expect(await db.docs.count()).toBe(c.docs)
    expect(await syncStatus(db)).toMatchObject({ state: 'idle', bootstrapped: true, error: null })
    await engine.stop()
  })

  it('an incremental page: the checkpoint stays below what was not written, and every change arrives once there is room', async () => {
    let filling = false
    const { db, fault, states, engine } = engineOn('quota-incremental', (p) => filling && p.kind === 'epics' && p.phase === 'incremental' && p.done >= 100)
    await engine.sync()
    const before = (await readCheckpoints(db)).get('epics')!
    // 150 epics renamed on the service: two pages of changes.
    serviceNow += 60_000
    const ids = world.service.ctx.col<any>('epic').ids().map(Number).slice(0, 150)
    for (let i = 0; i < ids.length; i += 100) {
      await v4(world.service).patch('/epics/bulk', { epics: ids.slice(i, i + 100).map((id) => ({ id, name: `Renamed ${id}` })) })
      serviceNow += 1_000
    }
    filling = true
    await expect(engine.sync()).rejects.toBeInstanceOf(StorageFullError)
    const renamed = async () => (await db.epics.bulkGet(ids)).filter((e) => e?.name === `Renamed ${e?.id}`).length
    const during = (await readCheckpoints(db)).get('epics')!
    // The walk's mark is not moved past the unwritten page: the next walk still reads down to the old one.
    expect(during.since).toBe(before.since)
    expect(during.cursor).not.toBeNull()
    expect(await renamed()).toBe(100)
    expect(engine.storage()).not.toBeNull()

    fault.full = false
    filling = false
    // The user's Sync now, without waiting for the next try.
    await engine.sync({ force: true })
    expect(await renamed()).toBe(150)
    expect(engine.storage()).toBeNull()
    expect(states.at(-1)).toBeNull()
    expect((await readCheckpoints(db)).get('epics')!.since! > before.since!).toBe(true)
    await engine.stop()
  })
})

describe('a user’s change with storage full', () => {
  let kit: Kit
  let epics: CachedEpic[]
  beforeAll(async () => {
    ;({ kit, epics } = await startFilledKit())
  })
  afterAll(() => kit.close())

  it('is kept in the journal and made by itself once there is room, each change once, with the user told', async () => {
    const db = kit.openDb()
    // As Chromium refuses it: every write goes through, the commit is refused.
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit' })
    const journal = fileJournal(join(kit.folder, 'journal', 'kept.jsonl'))
    const engine = startDataLayer({
      db,
      transport: kit.transport,
      journal,
      replay: () => replayFast(db, kit.transport, { journal }).then(() => undefined),
      sync: { fileBudgetBytes: 0 },
    })
    const told: boolean[] = []
    const actions = actionsFor(db, kit.transport, {
      journal,
      ready: () => engine.restore(),
      onStorageFull: (kept) => {
        told.push(kept)
        void engine.storageFull()
      },
    })
    expect(await engine.restore()).toBe(true)
    const epic = epics[3]
    fault.full = true
    await actions.updateEpic(epic.id, { name: 'Renamed while storage was full' })
    const comment = await actions.createComment(epic.id, 'Written while storage was full')
    expect(told).toEqual([true, true])
    expect(fault.refused).toBeGreaterThan(0)
    // The cache took nothing; the journal has both, kept.
    expect(await db.outbox.count()).toBe(0)
    expect((await mergedOne<CachedEpic>(db, 'epic', epic.id))?.name).toBe(epic.name)
    expect((await journal.read()).entries.map((e) => [e.record.op, e.kept])).toEqual([
      ['update', true],
      ['create', true],
    ])

    // Room again: the next replay queues them (shown at once) and sends them.
    fault.full = false
    await engine.replay()
    await engine.replay()
    expect(((await v3(kit.service).get(`/epics/${epic.id}`)).body as { name: string }).name).toBe('Renamed while storage was full')
    const comments = (await v3(kit.service).get(`/epics/${epic.id}/comments`)).body as { id: number; text: string }[]
    expect(comments.filter((c) => c.text === 'Written while storage was full')).toHaveLength(1)
    expect((await mergedOne<CachedEpic>(db, 'epic', epic.id))?.name).toBe('Renamed while storage was full')
    expect(isLocalId(await resolveId(db, 'comment', comment))).toBe(false)
    expect(await db.outbox.count()).toBe(0)
    expect((await journal.read()).entries).toEqual([])
    await engine.stop()
    await journal.close()
    db.close()
  })

  it('kept while a replay is under way: the pass lets the restore go first, and a change made after it is the one the service keeps', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, at: 'commit' })
    const journal = fileJournal(join(kit.folder, 'journal', 'kept-mid-pass.jsonl'))
    // The pass's requests wait at a gate while it is shut (a slow link): the pass holds the outbox lock meanwhile.
    let gate: Promise<void> | null = null
    let open = () => {}
    let arrived = () => {}
    const waiting = new Promise<void>((resolve) => (arrived = resolve))
    const slow = {
      ...kit.transport,
      call: (async (...args: Parameters<typeof kit.transport.call>) => {
        if (gate) {
          arrived()
          await gate
        }
        return kit.transport.call(...args)
      }) as typeof kit.transport.call,
    }
    const engine = startDataLayer({
      db,
      transport: kit.transport,
      journal,
      replay: (yieldTo) => replayFast(db, slow, { journal, yieldTo }).then(() => undefined),
      sync: { fileBudgetBytes: 0 },
    })
    const actions = actionsFor(db, kit.transport, { journal, ready: () => engine.restore(), onStorageFull: () => void engine.storageFull() })
    expect(await engine.restore()).toBe(true)
    const [other, epic] = [epics[6], epics[7]]
    // Objectives the epic does not have yet, so that each setting is a change.
    const [a, b, c] = (await db.objectives.toArray()).filter((o) => !(epic.objective_ids ?? []).includes(Number(o.id)))

    await actions.updateEpic(other.id, { name: 'On its way' })
    gate = new Promise<void>((resolve) => (open = resolve))
    const pass = engine.replay()
    await waiting
    // Storage full: the change is kept in the journal; the screen still shows the objectives as they were.
    fault.full = true
    await actions.updateEpic(epic.id, { objective_ids: [a.id] })
    fault.full = false
    // Room again; the restore waits for the outbox lock (the pass has it), so the user's next change is queued first.
    await actions.updateEpic(epic.id, { objective_ids: [b.id, c.id] })
    gate = null
    open()
    await pass
    await engine.replay()

    expect(await outboxStatus(db)).toMatchObject({ pending: 0, conflicts: 0, failed: 0 })
    expect((await v3(kit.service).get(`/epics/${epic.id}`)).body).toMatchObject({ objective_ids: [b.id, c.id] })
    expect((await v3(kit.service).get(`/epics/${other.id}`)).body).toMatchObject({ name: 'On its way' })
    expect((await journal.read()).entries).toEqual([])
    await engine.stop()
    await journal.close()
    db.close()
  })

  it('kept nowhere (no journal), is refused as a whole, in words, and the same change is saved once there is room', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db)
    let told = 0
    const actions = actionsFor(db, kit.transport, { onStorageFull: () => told++ })
    const [epic] = epics
    fault.full = true
    const edit = actions.updateEpic(epic.id, { name: 'Written while the disk was full' })
    await expect(edit).rejects.toBeInstanceOf(StorageFullError)
    await expect(edit).rejects.toThrow(WRITE_NOT_SAVED_MESSAGE)
    await expect(actions.createComment(epic.id, 'A comment that could not be saved')).rejects.toBeInstanceOf(StorageFullError)
    expect(told).toBe(2)
    // Nothing half-done: no record, no overlay, the epic as it was.
    expect(await db.outbox.count()).toBe(0)
    expect(await db.overlay.count()).toBe(0)
    expect((await mergedOne<CachedEpic>(db, 'epic', epic.id))?.name).toBe(epic.name)

    fault.full = false
    await actions.updateEpic(epic.id, { name: 'Written while the disk was full' })
    expect(await db.outbox.count()).toBe(1)
    expect((await mergedOne<CachedEpic>(db, 'epic', epic.id))?.name).toBe('Written while the disk was full')
    db.close()
  })

  it('a create the service confirmed but the cache could not write stays in flight and is found again, never sent twice', async () => {
    const db = kit.openDb()
    const fault = quotaFault(db, { full: false, refused: 0, tables: ['epics'] })
    await db.outbox.clear()
    await db.overlay.clear()
    const actions = actionsFor(db, kit.transport)
    await actions.createEpic({ name: 'Created with a full disk' })
    fault.full = true
    await expect(replayFast(db, kit.transport)).rejects.toSatisfy(isStorageFull)
    const [record] = await db.outbox.toArray()
    expect(record).toMatchObject({ state: 'in-flight', op: 'create' })

    fault.full = false
    await replayFast(db, kit.transport)
    expect(await db.outbox.count()).toBe(0)
    const named = ((await v3(kit.service).get('/epics')).body as { name: string }[]).filter((e) => e.name === 'Created with a full disk')
    expect(named).toHaveLength(1)
    db.close()
  })
})
