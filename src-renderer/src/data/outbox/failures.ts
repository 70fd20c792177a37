// What a failed step of the replay does to its records: the service refused
// them (4xx: they fail with its message, their payload kept to be fixed and
// retried or discarded; a 404 is a delete done, or an update deleted
// elsewhere), the account cannot write now (401, a read-only token, an
// untrusted connection: the pass pauses), or time ran short (429, 5xx, network
// errors, timeouts: they wait while others go, and the pass backs off,
// exponentially with jitter). Functions over the replayer (replay.ts).
import Dexie from 'dexie'
import type { OutpostDb } from '../db.ts'
import { isStorageFull } from '../storage-full.ts'
import { failureOf } from '../transport.ts'
import type { OutboxError, OutboxRecord } from '../types.ts'
import { journalIdsOf, JournalUnavailable, type OutboxJournal } from './journal.ts'
import type { WritableKind } from './kinds.ts'
import { setPause, type OutboxPause } from './records.ts'
import { Gone, LocalFailure, payloadField, REQUESTS } from './requests.ts'
import type { ReplayResult } from './replay.ts'

export interface Backoff {
  baseMs: number
  maxMs: number
  /** Transient failures in a row after which this pass stops (the records stay queued for the next one). */
  attempts: number
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, maxMs: 60_000, attempts: 6 }

/** The pass was stopped (ReplayOptions.signal): no failure of the records, which stay as they are. */
export class Aborted extends Error {}

/** Whether the records were being looked for on the service, or sent. */
export type Phase = 'look' | 'send'

/** What sorting failures needs of the pass (replay.ts's Replayer). */
export interface FailingPass {
  readonly db: OutpostDb
  readonly journal?: OutboxJournal
  readonly clock: () => number
  readonly random: () => number
  readonly backoff: Backoff
  readonly result: ReplayResult
  readonly troubled: Set<number>
  failuresInARow: number
  write<T>(run: (replaced: number[]) => Promise<T>): Promise<T>
  confirmDelete(r: OutboxRecord): Promise<void>
  markDeletedElsewhere(r: OutboxRecord): Promise<void>
}

/** What a failed step (looking the records up, or sending them) does to them, and to the pass. */
export async function fail(pass: FailingPass, records: OutboxRecord[], error: unknown, phase: Phase): Promise<void> {
  if (error instanceof Aborted) throw error
  // The cache refused a write (its answer, or the record's state): not the service's doing. The pass stops and the
  // record stays as it is stored, in flight if it was sent, to be reconciled once there is room (never resent blind).
  if (isStorageFull(error)) throw error
  // The answer came, but the journal could not be told: nothing was written, and what went is reconciled next time.
  if (error instanceof JournalUnavailable) return retryLater(pass, records)
  if (error instanceof LocalFailure) {
    await markFailed(pass, records, { message: error.message, ...(error.errors && { errors: error.errors }) })
    return
  }
  if (error instanceof Gone) {
    await refused(pass, records, { status: 404, message: error.message })
    return
  }
  if (isMissingFile(error)) {
    await markFailed(pass, records, { message: 'The file to upload is no longer where Outpost kept it; drop it again.' })
    return
  }
  const f = failureOf(error)
  switch (f.kind) {
    case 'auth':
      return pause(pass, records, 'auth', `The service refused the API token (${f.message}). Sign in again with a valid token; queued changes are kept.`)
    case 'readonly':
      return pause(pass, records, 'read-only', `The API token is read-only (${f.message}). Add a read-write token; queued changes are kept.`)
    case 'insecure':
    case 'bad-url':
      return pause(pass, records, 'insecure', f.message)
    case 'http':
      if (f.status === 429) return retryUnsent(pass, records)
      if (f.status === undefined || f.status >= 500) return retryLater(pass, records)
      return refused(pass, records, f)
    case 'network':
      // Never left, as the gateway says of a create's POST: nothing to look for next time. An idempotent create (a
      // link's PUT) is said so whether it left or not: it stays in flight and goes again as it is, and an unlink
      // made meanwhile goes after it rather than cancelling it here while the service may have it.
      if (phase === 'send')
        await markUnsent(
          pass,
          records.filter((r) => !(r.op === 'create' && REQUESTS[r.kind as WritableKind].idempotentCreate)),
        )
      return retryLater(pass, records)
    default:
      // timeout, outcome-unknown: it may have been applied; it stays in flight and is reconciled before it goes again.
      return retryLater(pass, records)
  }
}

/** The service refused it (4xx). */
async function refused(
  pass: FailingPass,
  records: OutboxRecord[],
  f: { status?: number; message: string; tag?: string; errors?: Record<string, string> },
): Promise<void> {
  for (const r of records) {
    if (f.status === 404 && r.op === 'delete') await pass.confirmDelete(r)
    else if (f.status === 404 && r.op === 'update') await pass.markDeletedElsewhere(r)
    else {
      const errors = f.errors ? Object.fromEntries(Object.entries(f.errors).map(([k, v]) => [payloadField(k), v])) : undefined
      await markFailed(pass, [r], {
        message: f.message,
        ...(f.status !== undefined && { status: f.status }),
        ...(f.tag !== undefined && { tag: f.tag }),
        ...(errors && { errors }),
      })
    }
  }
  pass.failuresInARow = 0
}

async function pause(pass: FailingPass, records: OutboxRecord[], reason: OutboxPause['reason'], message: string): Promise<void> {
  const paused: OutboxPause = { reason, message, at: pass.clock() }
  await markUnsent(pass, records)
  await pass.write(() => setPause(pass.db, paused))
  pass.result.stopped = reason
  pass.result.pause = paused
}

/** They wait for the user, with the error: to be fixed and retried, or discarded. */
export async function markFailed(pass: FailingPass, records: OutboxRecord[], error: OutboxError): Promise<void> {
  const now = pass.clock()
  await pass.write(async () => {
    for (const r of records) {
      const cur = await pass.db.outbox.get(r.seq!)
      if (!cur) continue
      cur.state = 'failed'
      cur.error = error
      cur.updatedAt = now
      await pass.db.outbox.put(cur)
      pass.result.failed++
    }
  })
}

/** Not applied (the service said so, or the request never left): back to waiting. */
async function markUnsent(pass: FailingPass, records: OutboxRecord[]): Promise<void> {
  await pass.write(async () => {
    const unsent: OutboxRecord[] = []
    for (const r of records) {
      const cur = await pass.db.outbox.get(r.seq!)
      if (cur?.state !== 'in-flight') continue
      await pass.db.outbox.update(cur.seq!, { state: 'pending' })
      unsent.push(cur)
    }
    // A create waiting again takes later changes in (an update merges into it): the journal must not restore it as
    // one that may have reached the service, or it would be looked for with what it said before they merged.
    // (An update or a delete may have left, its answer lost, reported as unreachable: its mark stays.)
    const ids = journalIdsOf(unsent.filter((r) => r.op === 'create'))
    if (pass.journal && ids.length > 0) await Dexie.waitFor(pass.journal.unsent(ids))
  })
}

/**
 * Network errors, timeouts, 5xx: the records wait as they are (in flight if they were sent: they may have been
 * applied, and are reconciled before they go again; others may go meanwhile), tried again after a pause.
 */
export function retryLater(pass: FailingPass, records: OutboxRecord[]): void {
  for (const r of records) pass.troubled.add(r.seq!)
  pass.failuresInARow++
  if (pass.failuresInARow >= pass.backoff.attempts) pass.result.stopped = 'offline'
}

/** A 429: the service did not handle the records; they go back to pending and are tried again after a pause. */
async function retryUnsent(pass: FailingPass, records: OutboxRecord[]): Promise<void> {
  await markUnsent(pass, records)
  retryLater(pass, records)
}

/** Exponential, with "equal jitter": between half and all of base * 2^(failures - 1), capped. */
export function backoffMs(pass: FailingPass): number {
  const ceiling = Math.min(pass.backoff.maxMs, pass.backoff.baseMs * 2 ** Math.max(0, pass.failuresInARow - 1))
  return Math.round(ceiling / 2 + pass.random() * (ceiling / 2))
}

/** A staged file that is gone: found before anything was sent. */
export function isMissingFile(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'ENOENT'
}

/** A 4xx that is about the request itself (not auth, not the rate limit). */
export function isRefusal(error: unknown): boolean {
  if (error instanceof LocalFailure) return true
  const f = failureOf(error)
  return f.kind === 'http' && f.status !== undefined && f.status >= 400 && f.status < 500 && f.status !== 429
}

/**
 * The items of a bulk epic update the service refused as not found (404, its errors naming `epics[i]`): none
 * when the refusal is of anything else, or names no item, or all of them.
 */
export function missingBulkItems(error: unknown, count: number): Set<number> {
  const f = failureOf(error)
  if (f.kind !== 'http' || f.status !== 404 || !f.errors) return new Set()
  const items = new Set<number>()
  for (const key of Object.keys(f.errors)) {
    const index = /^epics\[(\d+)\]$/.exec(key)?.[1]
    if (index === undefined) return new Set()
    items.add(Number(index))
  }
  return [...items].every((i) => i < count) && items.size < count ? items : new Set()
}
