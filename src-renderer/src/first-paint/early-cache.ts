// What a window starts before it knows who is signed in: opening the cache of
// the workspace it showed last, and reading the epic list's first screen from
// it. On a filled cache IndexedDB takes 100 to 250 ms to open; this way that
// overlaps the main side's answer about accounts instead of following it.
//
// The name kept (localStorage) is the database's: the service's address and
// the workspace's slug, never a token. When the session turns out to be
// another workspace, or none, the early database is closed unused.
import { databaseName, openWorkspaceDb, OutpostDb } from '../data/db.ts'
import { forgetStoredFor, LAST_WORKSPACE_DB_KEY as LAST_DB_KEY, readStored, removeStored, writeStored } from '../lib/stored.ts'
import { recentEpics } from '../data/overlay.ts'
import type { CachedEpic } from '../data/types.ts'

/** Epics read for the list's first screen: more rows than the tallest window shows, archived ones and all. */
export const FIRST_SCREEN_EPICS = 100

/** User-timing marks of an early open (the interface benchmark reads them): started, database open, first screen read. */
export const OPEN_MARKS = { opening: 'outpost:cache-opening', opened: 'outpost:cache-open', firstScreen: 'outpost:first-screen-read' } as const

let early: { db: OutpostDb; firstScreen: Promise<CachedEpic[]>; taken: boolean } | undefined

/** Opens the last workspace's cache and reads its first screen, if this window showed one before. */
export function openLastWorkspaceEarly(): void {
  const name = readStored(LAST_DB_KEY)
  if (!name || early) return
  performance.mark(OPEN_MARKS.opening)
  const db = new OutpostDb(name)
  db.on('ready', () => void performance.mark(OPEN_MARKS.opened))
  const firstScreen = recentEpics(db, FIRST_SCREEN_EPICS)
  // A failure here is met again, and reported, by the workspace's own reads.
  firstScreen.then(
    () => performance.mark(OPEN_MARKS.firstScreen),
    () => undefined,
  )
  early = { db, firstScreen, taken: false }
}

/** The database of the workspace being opened: the early one when it is that workspace's. Remembers it for the next start. */
export function workspaceDb(baseUrl: string, workspaceSlug: string): OutpostDb {
  const name = databaseName(baseUrl, workspaceSlug)
  // Not kept (storage full or denied): the next start only opens its cache a little later.
  writeStored(LAST_DB_KEY, name)
  if (early && !early.taken && early.db.name === name) {
    early.taken = true
    return early.db
  }
  releaseEarlyDb()
  return openWorkspaceDb(baseUrl, workspaceSlug)
}

/** The first screen of epics read early from `db`, once (later reads go to the cache). */
export function takeEarlyFirstScreen(db: OutpostDb): Promise<CachedEpic[]> | undefined {
  if (early?.db !== db) return undefined
  const { firstScreen } = early
  early = undefined
  return firstScreen
}

/** Closes the early database unless a workspace took it (nobody is signed in, or another workspace is current). */
export function releaseEarlyDb(): void {
  if (early && !early.taken) early.db.close()
  early = undefined
}

/**
 * What this window keeps about a workspace besides its database (which name
 * to open early, its first screen, hidden data problems), forgotten when the
 * workspace is removed: opening a removed database early would make it again, empty.
 */
export function forgetWorkspace(dbName: string): void {
  if (readStored(LAST_DB_KEY) === dbName) removeStored(LAST_DB_KEY)
  forgetStoredFor(dbName)
}
