// What a person is writing and has not sent yet: kept in the workspace's cache
// (a `meta` row, `draft:<what>`) as they type, so Escape, going elsewhere, a
// reload or a restart loses none of it. It goes when it is sent, or when the
// person discards it on purpose; removing the workspace removes it with the
// cache. Never sent anywhere: it is the person's own.
//
//   const note = new Draft(ws.db, `health:${epicId}`, { status: 'On Track', text: '' })
//   <textarea bind:value={note.value.text}>   …   note.clear() once sent
import type { OutpostDb } from '../data/db.ts'
import { readStoredJson, removeStored, writeStored } from '../lib/stored.ts'

/** How long typing may go unsaved: a crash loses at most this much of a draft (closing or hiding the window saves at once). */
const SAVE_AFTER_MS = 300

const keyOf = (what: string) => `draft:${what}`

/**
 * A save of a draft not yet in the cache (its write waits for its turn behind others, and a reload
 * or a closed window would drop it): kept in localStorage, which is written at once, until the
 * cache's write is done. `{ value }` is the draft; `{ value: null }`, its removal.
 */
const pendingKeyOf = (db: OutpostDb, key: string) => `outpost-draft:${db.name}:${key}`
const pendingOf = (db: OutpostDb, key: string) => readStoredJson(pendingKeyOf(db, key)) as { value: unknown } | undefined

/** A workspace removed from this computer: its drafts' saves kept in localStorage go too (its cache holds the rest). */
export function forgetPendingDrafts(dbName: string): void {
  const prefix = `outpost-draft:${dbName}:`
  try {
    const storage = globalThis.localStorage
    if (!storage) return
    for (const key of Object.keys(storage)) if (key.startsWith(prefix)) removeStored(key)
  } catch {
    // Storage denied: nothing was kept there.
  }
}

/** Whether something unsent is kept for `what` (a screen opens its editor again for it). */
export async function hasDraft(db: OutpostDb, what: string): Promise<boolean> {
  const pending = pendingOf(db, keyOf(what))
  if (pending) return pending.value !== null
  return (await db.meta.get(keyOf(what)).catch(() => undefined)) !== undefined
}

export class Draft<T> {
  /** What is written now; set it (or bind to it) as the person types. */
  value = $state() as T
  /** The saved draft has been read (a new draft starts empty until then, and typing before it wins). */
  loaded = $state(false)

  private readonly db: OutpostDb
  private readonly key: string
  private readonly empty: T
  private timer: ReturnType<typeof setTimeout> | undefined
  private saved: string
  private readonly stopWatching: () => void

  constructor(db: OutpostDb, what: string, empty: T) {
    this.db = db
    this.key = keyOf(what)
    this.empty = empty
    this.value = structuredClone(empty)
    this.saved = JSON.stringify(empty)
    void db.meta
      .get(this.key)
      .then((row) => {
        // A save the cache had not taken yet when the window went is the latest.
        const pending = pendingOf(db, this.key)
        const kept = pending ? ((pending.value ?? undefined) as T | undefined) : (row?.value as { value: T } | undefined)?.value
        // Typing that began before the read wins over what was kept.
        if (kept !== undefined && JSON.stringify(this.value) === JSON.stringify(this.empty)) {
          this.value = kept
          this.saved = JSON.stringify(kept)
        }
      })
      .catch(() => undefined)
      .finally(() => (this.loaded = true))
    const flush = () => void this.save()
    window.addEventListener('pagehide', flush)
    this.stopWatching = $effect.root(() => {
      $effect(() => {
        // Any change, however deep (a field of an object draft), schedules a save.
        void JSON.stringify(this.value)
        clearTimeout(this.timer)
        this.timer = setTimeout(flush, SAVE_AFTER_MS)
      })
      return () => window.removeEventListener('pagehide', flush)
    })
  }

  /** Something is written (the draft differs from an empty one). */
  get written(): boolean {
    return JSON.stringify(this.value) !== JSON.stringify(this.empty)
  }

  /** Writes the draft now (an empty one is removed): at once to localStorage, then to the cache. */
  async save(): Promise<void> {
    clearTimeout(this.timer)
    const text = JSON.stringify(this.value)
    if (text === this.saved) return
    this.saved = text
    const pendingKey = pendingKeyOf(this.db, this.key)
    const written = this.written
    writeStored(pendingKey, JSON.stringify({ value: written ? $state.snapshot(this.value) : null }))
    try {
      if (!written) await this.db.meta.delete(this.key)
      else await this.db.meta.put({ key: this.key, value: { value: $state.snapshot(this.value), at: Date.now() } })
      // The cache has it (unless a later save is on its way, which keeps its own).
      if (this.saved === text) removeStored(pendingKey)
    } catch {
      // Kept in localStorage until a later save reaches the cache.
    }
  }

  /** Sent or discarded: empty again, and gone from the cache. */
  async clear(): Promise<void> {
    this.value = structuredClone(this.empty)
    await this.save()
  }

  /** The component using it is going: what is written is saved at once. */
  close(): void {
    void this.save()
    this.stopWatching()
  }
}
