// Which cached rows changed, whoever changed them. Dexie announces every
// committed write as a `storagemutated` event (the same signal liveQuery runs
// on), in this window and, over a BroadcastChannel, in the app's other windows:
// so the index follows the sync engine, the outbox and replay wherever they
// run, without them knowing about search. A write of fewer than 50 rows names
// its keys; a bigger bulk write, a range delete or a clear only says "this
// table changed", and the index then rescans that table (rescan.ts).
import Dexie, { type ObservabilitySet } from 'dexie'
import type { OutpostDb } from '../db.ts'
import { pointKeys } from '../watch.ts'
import type { EntityId } from '../types.ts'
import { KIND_OF_TABLE, isSearchKind, type SearchKind } from './documents.ts'

export interface ChangeSet {
  /** Rows of a kind's cache table known to have been written or deleted. */
  rows: Map<SearchKind, Set<EntityId>>
  /** Kinds whose table changed in a way that names no keys: rescan them. */
  rescan: Set<SearchKind>
  /** Overlay rows written or deleted, as `${kind}\u0000${id}`. */
  overlay: Set<string>
  /** The overlay changed without naming its keys: rescan it. */
  rescanOverlay: boolean
}

export function emptyChangeSet(): ChangeSet {
  return { rows: new Map(), rescan: new Set(), overlay: new Set(), rescanOverlay: false }
}

export function isEmpty(changes: ChangeSet): boolean {
  return changes.rows.size === 0 && changes.rescan.size === 0 && changes.overlay.size === 0 && !changes.rescanOverlay
}

/** Adds what one storagemutated event says about `db` to `into`; true if anything of ours changed. */
export function collectChanges(dbName: string, parts: ObservabilitySet, into: ChangeSet): boolean {
  let touched = false
  for (const [part, tree] of Object.entries(parts)) {
    if (part === 'all') {
      // Dexie's "everything may have changed" (a page restored from the back-forward cache).
      for (const kind of Object.values(KIND_OF_TABLE)) into.rescan.add(kind)
      into.rescanOverlay = true
      touched = true
      continue
    }
    const prefix = `idb://${dbName}/`
    if (!part.startsWith(prefix)) continue
    const [table, index] = part.slice(prefix.length).split('/')
    // '' names the written or deleted primary keys; ':dels' repeats deletions; other parts are secondary indexes.
    if (index !== '' && index !== ':dels') continue
    if (table === 'overlay') {
      const keys = pointKeys(tree)
      if (keys === null) into.rescanOverlay = true
      else
        for (const key of keys) {
          const [kind, id] = key as [string, string]
          if (isSearchKind(kind)) into.overlay.add(overlayKey(kind, id))
        }
      touched = true
      continue
    }
    const kind = KIND_OF_TABLE[table]
    if (!kind) continue
    const keys = pointKeys(tree)
    if (keys === null) into.rescan.add(kind)
    else {
      let set = into.rows.get(kind)
      if (!set) into.rows.set(kind, (set = new Set()))
      for (const key of keys) set.add(key as EntityId)
    }
    touched = true
  }
  return touched
}

export function overlayKey(kind: SearchKind, id: string): string {
  return `${kind}\u0000${id}`
}

export function parseOverlayKey(key: string): [SearchKind, string] {
  const at = key.indexOf('\u0000')
  return [key.slice(0, at) as SearchKind, key.slice(at + 1)]
}

/** Calls `onChange` after each committed write that touched what search indexes. Returns the unsubscribe. */
export function watchChanges(db: OutpostDb, onChange: (changes: ChangeSet) => void): () => void {
  const listener = (parts: ObservabilitySet) => {
    const changes = emptyChangeSet()
    if (collectChanges(db.name, parts, changes)) onChange(changes)
  }
  Dexie.on('storagemutated', listener)
  return () => Dexie.on.storagemutated.unsubscribe(listener)
}

export function mergeChanges(into: ChangeSet, from: ChangeSet): void {
  for (const [kind, ids] of from.rows) {
    let set = into.rows.get(kind)
    if (!set) into.rows.set(kind, (set = new Set()))
    for (const id of ids) set.add(id)
  }
  for (const kind of from.rescan) into.rescan.add(kind)
  for (const key of from.overlay) into.overlay.add(key)
  into.rescanOverlay ||= from.rescanOverlay
}
