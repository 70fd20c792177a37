// A replay pass waiting between attempts (the service unreachable) tries again at once when the engine is
// asked to replay (the user's "Send now", the service seen back), instead of sleeping out its backoff.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startDataLayer } from '../data/data-layer.ts'
import { outboxRecords, outboxStatus } from '../data/outbox/index.ts'
import { actionsFor, fillCache, startKit, type Kit } from '../../../testing/outbox-kit.ts'
import type { Transport } from '../data/transport.ts'
import type { OperationName, OperationRequest } from '../../../src-shared/api/operations.ts'
import { replayFor } from './replay.ts'

let kit: Kit
beforeEach(async () => {
  kit = await startKit({ seed: 'demo' })
  await fillCache(kit.db, kit.transport)
})
afterEach(() => kit.close())

/** Resolves once `transport` has failed `n` calls. */
function failures(transport: Transport, n: number): { transport: Transport; reached: Promise<void> } {
  let failed = 0
  let reached!: () => void
  const done = new Promise<void>((resolve) => (reached = resolve))
  const counted: Transport = {
    ...transport,
    call: <T>(operation: OperationName, request?: OperationRequest) =>
      transport.call<T>(operation, request).catch((error: unknown): never => {
        if (++failed >= n) reached()
        throw error
      }),
  }
  return { transport: counted, reached: done }
}

describe('replay, as the engine runs it', () => {
  it('a pass waiting out its backoff tries again at once when asked to replay', async () => {
    const { db, service } = kit
    const [epic] = await db.epics.toArray()
    await actionsFor(db, kit.transport).updateEpic(epic.id, { name: 'Sent when asked' })
    service.setFaults({ dropRate: 1 })
    const { transport, reached } = failures(kit.transport, 1)
    // A wait between attempts far longer than the test may take: only a wake ends it.
    const engine = startDataLayer({
      db,
      transport,
      replay: replayFor(db, transport, undefined, { baseMs: 600_000, maxMs: 600_000 }),
      sync: { fileBudgetBytes: 0 },
    })
    const pass = engine.replay()
    await reached
    expect(await outboxRecords(db)).toHaveLength(1)

    service.setFaults({ dropRate: 0 })
    await engine.replay()
    await pass
    expect(await outboxStatus(db)).toMatchObject({ pending: 0, failed: 0 })
    expect(
      (await kit.service.app.inject({ method: 'GET', url: `/api/v3/epics/${epic.id}`, headers: { 'shortcut-token': service.tokens.v3 } })).json().name,
    ).toBe('Sent when asked')
    await engine.stop()
  })
})
