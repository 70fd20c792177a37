// Which epics the user changed lately, from any window of the workspace: a
// change of one of them that a sync brings is the user's own, not someone
// else's to tell (notifier.svelte.ts).
//
// A window sees its own outbox writes as they happen, by Dexie's hooks (a read
// of the list may come only after the change was made, sent and confirmed).
// The outbox is one table that the workspace's windows share, but hooks fire
// only in the window that writes: so each window says which epics it wrote on
// a BroadcastChannel named after the database, and takes in what the others
// say. A window that opens takes every epic the outbox holds a change of as
// changed now (the outbox holds only the user's changes, from any window).
import type { OutpostDb } from '../../data/db.ts'
import type { OutboxRecord } from '../../data/types.ts'

/** What of a BroadcastChannel is used here. */
export interface Channel {
  postMessage(message: unknown): void
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void
  close(): void
}

export interface OwnWritesOptions {
  clock?: () => number
  /** The channel the workspace's windows share (null where there is none). */
  channel?: (name: string) => Channel | null
}

const browserChannel = (name: string): Channel | null => (typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : null)

export class OwnWrites {
  /** When the user last queued, sent or dropped a change of each epic (by id), in any window. */
  private readonly at = new Map<string, number>()
  private readonly clock: () => number

  constructor(
    private readonly db: OutpostDb,
    private readonly options: OwnWritesOptions = {},
  ) {
    this.clock = options.clock ?? Date.now
  }

  /** Whether the user changed this epic within the last `ms`. */
  changedWithin(id: string, ms: number): boolean {
    return this.clock() - (this.at.get(id) ?? -Infinity) < ms
  }

  /** Follows the writes until the returned function is called. */
  start(): () => void {
    const { db } = this
    const others = (this.options.channel ?? browserChannel)(`outpost:own-writes:${db.name}`)
    others?.addEventListener('message', (event) => {
      if (typeof event.data === 'string') this.at.set(event.data, this.clock())
    })
    const own = (record: OutboxRecord | undefined) => {
      if (record?.kind !== 'epic') return
      const id = String(record.entityId)
      this.at.set(id, this.clock())
      others?.postMessage(id)
    }
    const creating = (_key: unknown, record: OutboxRecord) => own(record)
    const updating = (_changes: unknown, _key: unknown, record: OutboxRecord) => own(record)
    const deleting = (_key: unknown, record: OutboxRecord) => own(record)
    db.outbox.hook('creating', creating)
    db.outbox.hook('updating', updating)
    db.outbox.hook('deleting', deleting)
    void db.outbox
      .toArray()
      .then((records) => {
        for (const r of records) if (r.kind === 'epic' && !this.at.has(String(r.entityId))) this.at.set(String(r.entityId), this.clock())
      })
      .catch(() => undefined)
    return () => {
      db.outbox.hook('creating').unsubscribe(creating)
      db.outbox.hook('updating').unsubscribe(updating)
      db.outbox.hook('deleting').unsubscribe(deleting)
      others?.close()
    }
  }
}
