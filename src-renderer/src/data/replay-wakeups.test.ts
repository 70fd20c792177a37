// A change made while online leaves at once, whatever the replay is doing: the
// write itself tells the engine once it has committed (no count read later is
// asked whether there is work), and a replay asked for while a pass runs makes
// one more pass after it. Timers are fake and the service answers at once (an
// in-memory copy of the local service's own answers), so each race is played
// out the same way every run.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { OperationName, OperationRequest } from '../../../src-shared/api/operations.ts'
import type { ThreadedCommentV3 } from '../../../src-shared/api/v3/epics.ts'
import type { EpicV4 } from '../../../src-shared/api/v4/epics.ts'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { fillCache, startFilledKit, type Kit } from '../../../testing/outbox-kit.ts'
import { outboxActions } from './actions.ts'
import { startDataLayer, type DataLayerOptions } from './data-layer.ts'
import { OutpostDb } from './db.ts'
import { createProcessLock } from './lock.ts'
import { outboxStatus, replay } from './outbox/index.ts'
import { TransportError, type Transport } from './transport.ts'
import { replayFor } from '../app/replay.ts'
import type { CachedEpic } from './types.ts'

let kit: Kit
let epic: CachedEpic
let template: { epic: EpicV4; comment: ThreadedCommentV3; me: string }
beforeAll(async () => {
  const filled = await startFilledKit()
  kit = filled.kit
  epic = filled.epics[0]
  // The service's own answers, as shapes for the instant service below.
  template = {
    epic: await kit.transport.call<EpicV4>('epics.get', { params: { id: epic.id as number } }),
    comment: await kit.transport.call<ThreadedCommentV3>('epicComments.create', { params: { epicId: epic.id as number }, body: { text: 'template' } }),
    me: (await kit.transport.call<{ id: string }>('member')).id,
  }
})
afterAll(() => kit.close())

/** A cache of its own for each test, filled from the service before the clock is faked. */
let caches = 0
async function freshCache(): Promise<OutpostDb> {
  const db = new OutpostDb(`wakeups-${++caches}`, { indexedDB: new IDBFactory(), IDBKeyRange })
  await fillCache(db, kit.transport)
  return db
}
afterEach(() => vi.useRealTimers())

/** A service that answers at once (no timer, no socket): the operations an epic's rename and a comment need. */
function instantService(): Transport & { sent: OperationName[]; comments: string[] } {
  let current = structuredClone(template.epic)
  let ids = 9_000_000
  let tick = Date.parse(current.updated_at)
  const sent: OperationName[] = []
  /** The comments made, in the order the service made them, and by epic. */
  const comments: string[] = []
  const threads = new Map<number, ThreadedCommentV3[]>()
  const answer = (op: OperationName, request: OperationRequest = {}): unknown => {
    switch (op) {
      case 'epics.get':
        return current
      case 'epics.update':
        current = { ...current, ...(request.body as Partial<EpicV4>), updated_at: new Date((tick += 1000)).toISOString() }
        return current
      case 'member':
        return { id: template.me }
      case 'epicComments.create': {
        const body = request.body as { text: string }
        comments.push(body.text)
        const at = new Date((tick += 1000)).toISOString()
        const made = { ...template.comment, id: ++ids, text: body.text, created_at: at, updated_at: at }
        threads.set((request.params as { epicId: number }).epicId, [...(threads.get((request.params as { epicId: number }).epicId) ?? []), made])
        return made
      }
      case 'epicComments.list':
        // Looked for after an answer that did not say whether it was made (reconciled by what it says).
        return threads.get((request.params as { epicId: number }).epicId) ?? []
      default:
        throw new Error(`the instant service does not answer ${op}`)
    }
  }
  const call = async <T>(op: OperationName, request?: OperationRequest): Promise<T> => {
    sent.push(op)
    return answer(op, request) as T
  }
  const none = () => Promise.reject(new Error('not used here'))
  return { sent, comments, call, upload: none, download: none, stage: none, discard: async () => undefined, sweepStaged: async () => ({ removed: 0, kept: 0 }) }
}

/** Lets every IndexedDB step and promise that is due run (the fake timers hold only what waits for time). */
async function settle(): Promise<void> {
  for (let i = 0; i < 400; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

/** `ms` of fake time go by, 50 ms at a time, with whatever IndexedDB and the service have to do in between. */
async function elapse(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 50) {
    await vi.advanceTimersByTimeAsync(50)
    await settle()
  }
}

/** The engine and the actions as a window wires them: every committed change tells the engine. */
function wired(db: OutpostDb, transport: Transport, options: Partial<DataLayerOptions> = {}) {
  const lock = createProcessLock()
  const engine = startDataLayer({
    db,
    transport,
    lock,
    replay: () => replay({ db, transport, lock }),
    sync: { fileBudgetBytes: 0 },
    ...options,
  })
  const actions = outboxActions({ db, transport, onQueued: () => engine.queued() })
  return { engine, actions }
}

/** Only the timers and the clock are fake: IndexedDB's own steps (setImmediate) run as they come. */
const fakeTimers = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })

describe('a change made online leaves at once', () => {
  it('a comment queued after the pass that sent a rename made its last read of the queue goes within a second', async () => {
    const db = await freshCache()
    fakeTimers()
    const service = instantService()
    const { engine, actions } = wired(db, service)

    // The pass's reads of the queue: once the rename is confirmed (no epic record left), the next read is its last.
    // Right then, before that read answers, the user posts a comment, and it commits.
    const read = db.outbox.toArray.bind(db.outbox)
    let commented: Promise<unknown> | undefined
    db.outbox.toArray = (async () => {
      const rows = await read()
      if (!commented && service.sent.includes('epics.update') && rows.every((r) => r.kind !== 'epic')) {
        commented = actions.createComment(epic.id, 'Posted while the rename was on its way')
        await commented
      }
      return rows
    }) as typeof db.outbox.toArray

    await actions.updateEpic(epic.id, { name: `${epic.name} (renamed)` })
    await elapse(1000)
    expect(commented, 'the pass read the queue once the rename was confirmed').toBeDefined()
    expect(service.sent.filter((op) => op === 'epics.update')).toHaveLength(1)

    // Nothing else will ask for a replay (no main side here): the comment's own commit has to.
    await elapse(1000)
    expect(service.sent).toContain('epicComments.create')
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, inFlight: 0, failed: 0 })
    await engine.stop()
    db.close()
  })

  it('a change made while the last pass still runs (its queue read) is not left for the next trigger', async () => {
    const db = await freshCache()
    fakeTimers()
    const service = instantService()
    const { engine, actions } = wired(db, service)
    // Three changes in a row, each made as the pass before it reads the queue for the last time.
    let made = 0
    const read = db.outbox.toArray.bind(db.outbox)
    let busy = false
    db.outbox.toArray = (async () => {
      const rows = await read()
      if (!busy && made < 3 && rows.length === 0 && service.sent.length > 0) {
        busy = true
        made++
        await actions.createComment(epic.id, `Comment ${made}`)
        busy = false
      }
      return rows
    }) as typeof db.outbox.toArray

    await actions.createComment(epic.id, 'Comment 0')
    for (let i = 0; i < 4; i++) {
      await elapse(1000)
    }
    expect(service.sent.filter((op) => op === 'epicComments.create')).toHaveLength(4)
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, inFlight: 0 })
    await engine.stop()
    db.close()
  })

  it('replay() asked twice while a pass runs makes one more pass once it ends', async () => {
    const db = await freshCache()
    let passes = 0
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    const engine = startDataLayer({
      db,
      transport: kit.transport,
      replay: async () => {
        passes++
        if (passes === 1) await held
      },
      sync: { fileBudgetBytes: 0 },
    })
    const first = engine.replay()
    await vi.waitFor(() => expect(passes).toBe(1))
    const second = engine.replay()
    const third = engine.replay()
    release()
    await Promise.all([first, second, third])
    expect(passes).toBe(2)
    // Nothing asked since: no pass more.
    await engine.replay()
    expect(passes).toBe(3)
    await engine.stop()
    db.close()
  })

  it('a change queued while the service is known to be out of reach waits, and goes once the window sees it back', async () => {
    const db = await freshCache()
    fakeTimers()
    const service = instantService()
    let online = false
    const { engine, actions } = wired(db, service, { online: () => online })
    await actions.createComment(epic.id, 'Written on the train')
    await elapse(5000)
    expect(service.sent).toEqual([])

    online = true
    engine.queued()
    await elapse(1000)
    expect(service.sent).toContain('epicComments.create')
    await engine.stop()
    db.close()
  })

  it('a change made while a pass waits out a long backoff (the service failed a moment ago) is tried at once', async () => {
    const db = await freshCache()
    fakeTimers()
    const service = instantService()
    // The first comment meets a 503; the service is fine again after that.
    let failed = false
    const flaky: Transport = {
      ...service,
      call: (op, request) => {
        if (op === 'epicComments.create' && !failed) {
          failed = true
          return Promise.reject(new TransportError({ kind: 'http', status: 503, message: 'Service unavailable' }))
        }
        return service.call(op, request)
      },
    }
    const closing = new AbortController()
    // A wait between attempts far longer than the test: only a wake ends it.
    const { engine, actions } = wired(db, flaky, { replay: replayFor(db, flaky, closing.signal, { baseMs: 600_000, maxMs: 600_000 }) })
    await actions.createComment(epic.id, 'Met a 503')
    await elapse(1000)
    expect(failed).toBe(true)

    const before = service.sent.length
    await actions.createComment(epic.id, 'Written after the service came back')
    await elapse(1000)
    expect(service.sent.slice(before)).toContain('epicComments.create')
    // The first is still waiting out its backoff: closing ends the wait.
    closing.abort()
    await engine.stop()
    db.close()
  })
})
