// Storage that is full: IndexedDB refusing a write for want of quota (the
// origin's share of the disk used up, or the disk itself full), or the main
// side finding no room on the disk for a file. Neither is a network matter nor
// a bug: the person can fix it, so it is said in their words, what they wrote
// is kept on screen, and sync waits (data-layer.ts) until there is room again.

/** Whether `error` is IndexedDB's quota refusal: Dexie's own error, or one that carries it (`inner`, an abort of its transaction). */
export function isQuotaError(error: unknown): boolean {
  for (let e = error as { name?: unknown; inner?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.name === 'QuotaExceededError') return true
    e = (e.inner ?? e.cause) as typeof e
  }
  return false
}

/** Storage is full: what was being written was not, and the message says what to do. */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError'
}

/** Any form of "no room": IndexedDB's quota, or the main side's full disk (StorageFullError, also as it crossed from the sync worker). */
export function isStorageFull(error: unknown): boolean {
  return error instanceof StorageFullError || (error as { name?: unknown } | null)?.name === 'StorageFullError' || isQuotaError(error)
}

/** Shown while sync waits for room. */
export const SYNC_PAUSED_MESSAGE =
  'Outpost’s storage is full, so sync is paused. Downloaded files were cleared to make room; free some more space on this computer and sync resumes by itself.'

/** A change the person made that the cache could not take, kept in the journal until there is room. */
export const WRITE_KEPT_MESSAGE =
  'Outpost’s storage is full, so this change is kept aside on disk: it shows and is sent by itself once there is room, with nothing to do again. Free some space on this computer.'

/** A change the person made that could not be saved. */
export const WRITE_NOT_SAVED_MESSAGE =
  'Outpost’s storage is full, so this change was not saved. What you wrote is still here: free some space on this computer, then try again.'
