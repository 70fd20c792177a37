// One run of the app's data layer against the service, as the soak kills and
// restarts it: its own database object on the shared fake IndexedDB, its own
// gateway, the data layer (sync and replay), and the actions the UI calls.
//
// A kill is what a crash does: the engine is abandoned mid-step (its signal
// aborted, nothing more sent, no answer heard, its database closed), and the
// next life opens the same IndexedDB database. Requests already on the wire
// when it died still reach the service: the next life starts only once they
// have (an app takes longer to start again than the service takes to answer;
// a request still on its way after the restart is a race no client can win
// without idempotency keys on the service). The journal of queued changes is
// the main side's: it outlives the lives, and a life may start on a store
// wiped since the last one (restored from the journal).
import Dexie from 'dexie'
import { IDBKeyRange, type IDBFactory } from 'fake-indexeddb'
import { Gateway } from '../../src-main/gateway/index.ts'
import type { RunningService } from '../../src-server/index.ts'
import type { OperationName, OperationRequest } from '../../src-shared/api/operations.ts'
import { outboxActions, type Actions } from '../../src-renderer/src/data/actions.ts'
import { OutpostDb } from '../../src-renderer/src/data/db.ts'
import { startDataLayer, type DataLayer } from '../../src-renderer/src/data/data-layer.ts'
import { gatewayTransport } from '../gateway-transport.ts'
import { quotaFault, type QuotaFault } from '../quota.ts'
import { createProcessLock } from '../../src-renderer/src/data/lock.ts'
import { replay } from '../../src-renderer/src/data/outbox/index.ts'
import type { OutboxJournal } from '../../src-renderer/src/data/outbox/journal.ts'
import { TransportError, type FileOnDisk, type Transport } from '../../src-renderer/src/data/transport.ts'

/** The service's limit and the gateway's pacing, scaled down from 200 a minute so that a soak ends. */
export interface Pace {
  max: number
  windowMs: number
}

export interface Shared {
  service: RunningService
  indexedDB: IDBFactory
  dbName: string
  folders: { staging: string; cache: string }
  pace: Pace
  /** The network as every life sees it. */
  net: { online: boolean }
  /** Storage as every life sees it: while full, the cache's writes fail with QuotaExceededError. */
  /** Storage full: `kept` counts the user's changes kept in the journal (made once there is room). */
  quota: QuotaFault & { kept: number }
  /** The main side's journal of queued changes: it outlives the window's lives (and their wiped stores). */
  journal: OutboxJournal
  /**
   * Asked as a transaction that made journal entries pointless has committed, before it confirms them: true, and the
   * app dies right then (a crash in the narrow window between the cache's commit and the journal hearing of it).
   */
  crashAfterCommit: () => boolean
}

export type KillReason = 'calls' | 'idle' | 'commit' | 'end'

export interface Life {
  readonly id: number
  readonly db: OutpostDb
  readonly engine: DataLayer
  readonly actions: Actions
  readonly dead: boolean
  /** Requests sent by this life (the kill trigger counts them). */
  readonly calls: number
  /** Resolves when the life is killed. */
  readonly died: Promise<KillReason>
  /** Kills it now (idempotent), or once the user's action under way is done. */
  kill(reason: KillReason): void
  /** It is not killed after its count of requests (the run's calm end). */
  spare(): void
  /**
   * Runs a user's action: a kill meanwhile waits for it. A crash mid-save leaves the change made or not (the
   * journal may hold it), which the soak's model cannot judge; kills still land in the middle of replays and syncs.
   */
  act<T>(run: () => Promise<T>): Promise<T>
  /** After a kill: waits for the requests it had on the wire, closes its database and gateway. */
  bury(): Promise<void>
}

const killed = () => new TransportError({ kind: 'network', message: 'The app was killed.' })
const offline = () => new TransportError({ kind: 'network', message: 'The service could not be reached (offline).' })

let lives = 0

/** Starts a life; it kills itself once it has sent `killAfterCalls` requests. */
export function startLife(shared: Shared, killAt = Number.POSITIVE_INFINITY): Life {
  let killAfterCalls = killAt
  const id = ++lives
  const { service, pace, net } = shared
  const gateway = new Gateway({
    baseUrl: service.baseUrl,
    workspaceSlug: service.workspace,
    token: service.tokens.admin,
    tokenKind: 'v4',
    rateLimit: { max: pace.max, windowMs: pace.windowMs, marginMs: Math.max(20, Math.round(pace.windowMs * 0.05)) },
    // The gateway's own retries, scaled down like the rate limit.
    retry: { baseDelayMs: 5, maxDelayMs: 100 },
  })
  const inner = gatewayTransport(gateway, shared.folders)
  const db = new OutpostDb(shared.dbName, { indexedDB: shared.indexedDB, IDBKeyRange })
  quotaFault(db, shared.quota)
  const controller = new AbortController()
  const wire = new Set<Promise<unknown>>()
  let dead = false
  let calls = 0
  let died!: (reason: KillReason) => void
  const diedP = new Promise<KillReason>((resolve) => (died = resolve))

  let acting = 0
  let deferred: KillReason | undefined
  const kill = (reason: KillReason) => {
    if (dead) return
    // A crash does not wait for the user's action; the soak's kills otherwise land between actions.
    if (acting > 0 && reason !== 'end' && reason !== 'commit') {
      deferred ??= reason
      return
    }
    dead = true
    controller.abort(new DOMException('The app was killed.', 'AbortError'))
    void engine.stop().catch(() => undefined)
    died(reason)
  }

  /** A request: refused when offline or dead; its answer unheard once dead. */
  const send = <T>(run: () => Promise<T>): Promise<T> => {
    if (dead) return Promise.reject(killed())
    if (!net.online) return Promise.reject(offline())
    const answer = run()
    wire.add(answer)
    void answer.then(
      () => wire.delete(answer),
      () => wire.delete(answer),
    )
    if (++calls >= killAfterCalls) kill('calls')
    return answer.then(
      (value) => {
        if (dead) throw killed()
        return value
      },
      (error) => {
        throw dead ? killed() : error
      },
    )
  }

  // The main side outlives the window, but a dead window asks it nothing more (its calls die with it).
  const alive =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> =>
      dead ? Promise.reject(killed()) : call(...args)
  const journal: OutboxJournal = {
    append: alive((records) => shared.journal.append(records)),
    sent: alive((ids) => shared.journal.sent(ids)),
    unsent: alive((ids) => shared.journal.unsent(ids)),
    kept: alive((ids) => shared.journal.kept(ids)),
    confirm: alive((ids, map) => {
      // Made outside a transaction: the confirmation of what a committed one made pointless (journal.ts).
      if (!Dexie.currentTransaction && shared.crashAfterCommit()) {
        kill('commit')
        return Promise.reject(killed())
      }
      return shared.journal.confirm(ids, map)
    }),
    read: alive(() => shared.journal.read()),
  }

  const transport: Transport = {
    call: <T>(operation: OperationName, request?: OperationRequest) => send(() => inner.call<T>(operation, request)),
    upload: <T>(files: FileOnDisk[], options?: Parameters<Transport['upload']>[1]) => send(() => inner.upload<T>(files, options)),
    download: (fileId, url, name) => send(() => inner.download(fileId, url, name)),
    stage: (file) => inner.stage(file),
    discard: (path) => inner.discard(path),
    sweepStaged: (keep) => inner.sweepStaged(keep),
  }

  // Locks die with the process (Web Locks are released when a page goes away): each life has its own.
  const lock = createProcessLock()
  const engine = startDataLayer({
    db,
    transport,
    lock,
    replay: (yieldTo) =>
      replay({
        db,
        transport,
        lock,
        signal: controller.signal,
        backoff: { baseMs: 5, maxMs: 100, attempts: 6 },
        journal,
        yieldTo,
      }),
    journal,
    sync: {
      fileBudgetBytes: 0,
      // Scaled like the rate limit, so that lists and id sweeps come round during a soak.
      referenceIntervalMs: 20_000,
      filesIntervalMs: 10_000,
      sweepIntervalMs: 30_000,
    },
  })
  const actions = outboxActions({
    db,
    transport,
    journal,
    ready: () => engine.restore(),
    // As in the window: a committed change tells the replay itself.
    onQueued: () => engine.queued(),
    onStorageFull: (kept) => {
      if (kept) shared.quota.kept++
      void engine.storageFull()
    },
  })

  return {
    id,
    db,
    engine,
    actions,
    get dead() {
      return dead
    },
    get calls() {
      return calls
    },
    died: diedP,
    kill,
    spare() {
      killAfterCalls = Number.POSITIVE_INFINITY
    },
    async act(run) {
      acting++
      try {
        return await run()
      } finally {
        if (--acting === 0 && deferred) kill(deferred)
      }
    },
    async bury() {
      kill('end')
      // Waiting turns are refused at once; what is on the wire lands (or fails) before the next life starts.
      const closing = gateway.close()
      await Promise.allSettled([...wire])
      await closing
      db.close()
    },
  }
}
