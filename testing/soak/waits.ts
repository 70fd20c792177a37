// How long the user's changes wait for their request while nothing stands in
// their way: the service reachable, no faults, no 429 burst, no storage full,
// the app alive, no failure answered meanwhile. A change made then must be on
// its way at once (the data layer is told by the write itself); one that sits
// is a lost wakeup, however sure it is to go at the next reconnect or timer.
//
// The outbox is read every POLL_MS. A record counts from its enqueue (or from
// when it became ready: what it waits for, a create it names say, was done)
// until it is no longer a queued, never-sent record: marked in flight just
// before its request, or merged, cancelled or discarded. A change made while
// something stood in the way, or a wait that trouble cut into, is not counted.
//
// Replay sends the queue in order, one request at a time (bulk where the API
// allows): a change made behind a backlog (an offline spell's hundreds) waits
// for it. So two figures: the wait from its enqueue, and the wait once nothing
// queued before it was left to go (at the head of the queue), which is what a
// lost wakeup or a stuck pass makes long.
import type { OutpostDb } from '../../src-renderer/src/data/db.ts'
import { outboxRecords } from '../../src-renderer/src/data/outbox/index.ts'
import { readyRecords } from '../../src-renderer/src/data/outbox/readiness.ts'

const POLL_MS = 25

export interface Waits {
  /** Changes whose wait was measured from start to end. */
  measured: number
  /** The longest wait from enqueue (ms), and which change it was (with how many were queued before it). */
  longestMs: number
  longest: string | null
  /** The longest wait once nothing queued before the change was left to go (ms), and which change it was. */
  longestAtHeadMs: number
  longestAtHead: string | null
}

export interface WaitWatch {
  /** Something failed just now (a 429 or 5xx answered, a kill): waits under way are not counted. */
  trouble(): void
  /** Stops watching; what is still waiting now counts as it stands. */
  stop(): Promise<Waits>
}

export function watchWaits(options: {
  /** Whether nothing stands in the way now. */
  clear: () => boolean
  /** The running app's cache and an id for it (a record's seq is its cache's), or null between lives. */
  app: () => { db: OutpostDb; id: number } | null
}): WaitWatch {
  const waits: Waits = { measured: 0, longestMs: 0, longest: null, longestAtHeadMs: 0, longestAtHead: null }
  /** Records waiting while clear: when they started, when they reached the head of the queue, and what they are. */
  const waiting = new Map<string, { since: number; head?: number; what: string }>()
  /** Records seen not ready yet (they start when they become ready, not at their enqueue). */
  const notReady = new Set<string>()
  let clearSince: number | null = null
  let troubled = false
  let lastPoll = Date.now()
  let stopped = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let polling: Promise<void> = Promise.resolve()

  const note = (now: number, w: { since: number; head?: number; what: string }, still = '') => {
    waits.measured++
    if (now - w.since > waits.longestMs) {
      waits.longestMs = now - w.since
      waits.longest = w.what + still
    }
    const atHead = w.head === undefined ? 0 : now - w.head
    if (atHead > waits.longestAtHeadMs) {
      waits.longestAtHeadMs = atHead
      waits.longestAtHead = w.what + still
    }
  }
  const forget = () => {
    waiting.clear()
    notReady.clear()
    clearSince = null
    troubled = false
  }

  const poll = async () => {
    const app = options.app()
    if (!app || troubled || !options.clear()) return forget()
    const started = Date.now()
    clearSince ??= started
    let records
    try {
      records = await outboxRecords(app.db)
    } catch {
      // The app died under the read (its cache closed).
      return forget()
    }
    if (troubled || !options.clear() || options.app()?.id !== app.id) return forget()
    const now = Date.now()
    const readyList = readyRecords(records)
    const ready = new Set(readyList.map((r) => r.seq))
    const still = new Set<string>()
    for (const r of records) {
      const key = `${app.id}:${r.seq}`
      // Queued while something stood in the way, or sent before: not a change made while all was clear.
      if (r.state !== 'pending' || r.attempts > 0 || r.createdAt < clearSince) continue
      if (!ready.has(r.seq)) {
        notReady.add(key)
        continue
      }
      still.add(key)
      const ahead = readyList.filter((x) => x.seq! < r.seq!).length
      let w = waiting.get(key)
      if (!w) {
        w = { since: notReady.has(key) ? lastPoll : r.createdAt, what: `${r.op} ${r.kind} ${r.entityId}, ${ahead} queued before it` }
        waiting.set(key, w)
      }
      // At the head: nothing queued before it is left to go (seen at this read; since the last one at the latest).
      if (ahead === 0 && w.head === undefined) w.head = Math.max(w.since, lastPoll)
    }
    for (const [key, w] of waiting) {
      if (still.has(key)) continue
      note(now, w)
      waiting.delete(key)
      notReady.delete(key)
    }
    lastPoll = started
  }

  const loop = () => {
    if (stopped) return
    polling = poll().finally(() => {
      timer = setTimeout(loop, POLL_MS)
    })
  }
  loop()

  return {
    trouble: () => {
      troubled = true
    },
    async stop() {
      stopped = true
      clearTimeout(timer)
      await polling
      const now = Date.now()
      for (const w of waiting.values()) note(now, w, ' (still waiting)')
      return waits
    },
  }
}
