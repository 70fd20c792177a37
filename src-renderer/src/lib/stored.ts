// What the window keeps in localStorage: small things, never a secret, that
// make the next start faster or remember a choice. Storage can be denied or
// full: a read then gives nothing and a write is dropped, which costs only the
// speed-up or the choice.

/** The database of the workspace the window showed last (first-paint/early-cache.ts). */
export const LAST_WORKSPACE_DB_KEY = 'outpost:last-workspace-db'

/** The account signed in last, without its token (app/session.svelte.ts). */
export const LAST_ACCOUNT_KEY = 'outpost:last-account'

/** The key of something kept about one workspace database (`outpost:<what>:<database name>`). */
export const workspaceKey = (what: string, dbName: string): string => `outpost:${what}:${dbName}`

export function readStored(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null
  } catch {
    return null
  }
}

/** The JSON kept under `key`, or undefined when there is none or it does not parse. */
export function readStoredJson(key: string): unknown {
  try {
    const text = readStored(key)
    return text === null ? undefined : JSON.parse(text)
  } catch {
    return undefined
  }
}

export function writeStored(key: string, value: string): void {
  try {
    globalThis.localStorage?.setItem(key, value)
  } catch {
    // Denied or full: see above.
  }
}

export function removeStored(key: string): void {
  try {
    globalThis.localStorage?.removeItem(key)
  } catch {
    // Nothing kept, or nothing to do.
  }
}

/** Forgets everything kept about one workspace database (the workspace is removed from this computer). */
export function forgetStoredFor(dbName: string): void {
  const keys: string[] = []
  try {
    const storage = globalThis.localStorage
    for (let i = 0; storage && i < storage.length; i++) keys.push(storage.key(i)!)
  } catch {
    return
  }
  for (const key of keys) {
    const what = key.startsWith('outpost:') ? key.slice('outpost:'.length).split(':', 1)[0] : undefined
    if (what !== undefined && key === workspaceKey(what, dbName)) removeStored(key)
  }
}
