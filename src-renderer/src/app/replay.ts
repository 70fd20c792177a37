// The outbox's replay, as the engine takes it: one pass over the queued
// writes. Closing the workspace aborts a pass at its next step, a wait
// between attempts included (what is in flight is reconciled on the next
// start). A pass waiting between attempts
// (the service unreachable) can be woken: the user's "Send now", or the
// service seen back, tries again at once instead of after the wait.
import type { OutpostDb } from '../data/db.ts'
import type { EngineReplay } from '../data/data-layer.ts'
import { replay, type Backoff } from '../data/outbox/index.ts'
import type { OutboxJournal } from '../data/outbox/journal.ts'
import type { Transport } from '../data/transport.ts'

export function replayFor(db: OutpostDb, transport: Transport, signal?: AbortSignal, backoff?: Partial<Backoff>, journal?: OutboxJournal): EngineReplay {
  // Asked to try again while not waiting (between a failure and its wait): the next wait ends at once.
  let woken = false
  let wake: (() => void) | undefined
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || signal?.aborted) {
        woken = false
        return resolve()
      }
      const done = () => {
        clearTimeout(timer)
        wake = undefined
        resolve()
      }
      const timer = setTimeout(done, ms)
      wake = done
    })
  const run = (yieldTo?: () => boolean) => {
    woken = false
    return replay({ db, transport, signal, sleep, backoff, journal, yieldTo })
  }
  // Closing does not wait out a backoff: the pass wakes, sees the abort and stops.
  signal?.addEventListener('abort', () => wake?.(), { once: true })
  return Object.assign(run, {
    wake: () => {
      if (wake) wake()
      else woken = true
    },
  })
}
