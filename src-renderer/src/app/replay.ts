// The outbox's replay, as the engine takes it: one pass over the queued
// writes. Closing the workspace aborts a pass at its next step (what is in
// flight is reconciled on the next start).
import type { OutpostDb } from '../data/db.ts'
import { replay } from '../data/outbox/index.ts'
import type { Transport } from '../data/transport.ts'

export function replayFor(db: OutpostDb, transport: Transport, signal?: AbortSignal): () => Promise<unknown> {
  return () => replay({ db, transport, signal })
}
