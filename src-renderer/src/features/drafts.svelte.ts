// What a person is writing and has not sent yet: kept in the workspace's cache
// (a `meta` row, `draft:<what>`) as they type, so Escape, going elsewhere, a
// reload or a restart loses none of it. It goes when it is sent, or when the
// person discards it on purpose; removing the workspace removes it with the
// cache. Never sent anywhere: it is the person's own.
//
//   const note = new Draft(ws.db, `health:${epicId}`, { status: 'On Track', text: '' })
//   <textarea bind:value={note.value.text}>   …   note.clear() once sent
import type { OutpostDb } from '../data/db.ts'

/** How long typing may go unsaved: a crash loses at most this much of a draft (closing or hiding the window saves at once). */
const SAVE_AFTER_MS = 300

const keyOf = (what: string) => `draft:${what}`

/** Whether something unsent is kept for `what` (a screen opens its editor again for it). */
export async function hasDraft(db: OutpostDb, what: string): Promise<boolean> {
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
        const kept = (row?.value as { value: T } | undefined)?.value
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

  /** Writes the draft now (an empty one is removed). */
  async save(): Promise<void> {
    clearTimeout(this.timer)
    const text = JSON.stringify(this.value)
    if (text === this.saved) return
    this.saved = text
    if (!this.written) await this.db.meta.delete(this.key).catch(() => undefined)
    else await this.db.meta.put({ key: this.key, value: { value: $state.snapshot(this.value), at: Date.now() } }).catch(() => undefined)
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
