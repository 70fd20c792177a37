// The rows of a bootstrap's v3 lists (every epic; every doc by its title),
// handed by the sync to this window's screens before it stores them. Storing
// 10,000 epics behind the walk's page writes, then reading them back, takes
// the window seconds (at 50,000, tens of seconds): the epic list and the
// search show the handed rows meanwhile, each until it reads the row from the
// cache. A row the cache never got (the run stopped first, or the entity was
// deleted meanwhile) goes when the run ends: each reader then reads from the
// cache what it still holds of them.
//
// The rows are what the cache will hold (partial rows), so the overlay of the
// user's own changes is laid over them as over the cache's; a row the reader
// already has from the cache is left out (it is as new, or newer: a page).
import type { OutpostDb } from './db.ts'
import { replaceInOrder } from './epic-order.ts'
import type { CachedDoc, CachedEpic } from './types.ts'

/** What a bootstrap hands over: the rows of one of its lists. */
export type HandedRows = { kind: 'epic'; rows: readonly CachedEpic[] } | { kind: 'doc'; rows: readonly CachedDoc[] }
export type HandedKind = HandedRows['kind']

/** Told the rows handed, or null when the run ended: read from the cache what is left of them. */
export type HandedListener<K extends HandedKind> = (rows: Extract<HandedRows, { kind: K }>['rows'] | null) => void

interface Hub {
  /** The rows of the run under way, by kind, for a reader that starts after they came. */
  rows: Map<HandedKind, HandedRows['rows']>
  listeners: Set<{ kind: HandedKind; listener: (rows: HandedRows['rows'] | null) => void }>
}

const hubs = new WeakMap<OutpostDb, Hub>()

function hubOf(db: OutpostDb): Hub {
  let hub = hubs.get(db)
  if (!hub) hubs.set(db, (hub = { rows: new Map(), listeners: new Set() }))
  return hub
}

const tell = (hub: Hub, kind: HandedKind, rows: HandedRows['rows'] | null) => {
  for (const entry of hub.listeners) if (entry.kind === kind) entry.listener(rows)
}

/** The sync hands this window rows of one of its bootstrap's lists (the whole list, or a part of it), before storing them. */
export function handRows(db: OutpostDb, handed: HandedRows): void {
  const hub = hubOf(db)
  const before = hub.rows.get(handed.kind)
  hub.rows.set(handed.kind, before ? ([...before, ...handed.rows] as HandedRows['rows']) : handed.rows)
  tell(hub, handed.kind, handed.rows)
}

/** The run that handed rows ended (stored them or not): readers go back to the cache alone. */
export function handedRowsEnded(db: OutpostDb): void {
  const hub = hubOf(db)
  const kinds = [...hub.rows.keys()]
  hub.rows.clear()
  for (const kind of kinds) tell(hub, kind, null)
}

/** Listens for handed rows of a kind (told at once of those of a run under way); returns how to stop. */
export function onHandedRows<K extends HandedKind>(db: OutpostDb, kind: K, listener: HandedListener<K>): () => void {
  const hub = hubOf(db)
  // The hub tells a kind's listeners only the rows of that kind.
  const entry = { kind, listener: listener as (rows: HandedRows['rows'] | null) => void }
  hub.listeners.add(entry)
  const rows = hub.rows.get(kind)
  if (rows) listener(rows as never)
  return () => hub.listeners.delete(entry)
}

/**
 * The handed epics a list (newest first, data/epic-order.ts) shows that its reads of the cache have not found
 * yet, by `String(id)`.
 */
export class HandedInList {
  readonly #rows = new Map<string, CachedEpic>()

  get size(): number {
    return this.#rows.size
  }

  /** Forgets them all (those of a run that ended while nothing listened). */
  clear(): void {
    this.#rows.clear()
  }

  /** A whole read of the cache, with the handed epics it does not hold yet. */
  withWhole(read: CachedEpic[]): CachedEpic[] {
    if (this.#rows.size === 0) return read
    for (const epic of read) this.#rows.delete(String(epic.id))
    return this.#rows.size === 0 ? read : replaceInOrder(read, this.#rows)
  }

  /** What a read of some epics found (undefined: not in the cache): a handed epic the cache does not hold yet stays. */
  keepIn(fresh: Map<string, CachedEpic | undefined>): void {
    for (const [id, epic] of fresh) {
      const handed = this.#rows.get(id)
      if (!handed) continue
      if (epic) this.#rows.delete(id)
      else fresh.set(id, handed)
    }
  }

  /** Of the handed epics (as the user sees them: undefined, deleted here), those `list` lacks: now shown, to add to it. */
  take(list: readonly CachedEpic[], handed: Map<string, CachedEpic | undefined>): Map<string, CachedEpic> {
    for (const epic of list) handed.delete(String(epic.id))
    const added = new Map<string, CachedEpic>()
    for (const [id, epic] of handed) {
      if (!epic) continue
      added.set(id, epic)
      this.#rows.set(id, epic)
    }
    return added
  }

  /** The run ended: the ids of those the cache has not shown yet, to read from it (and forgotten here). */
  end(): string[] {
    const ids = [...this.#rows.keys()]
    this.#rows.clear()
    return ids
  }
}
