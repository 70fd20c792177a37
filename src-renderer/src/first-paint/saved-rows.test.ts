// The first screen kept for the next start (saved-rows.ts) and the cache
// opened before the session is known (early-cache.ts), with a Storage like the
// window's and fake IndexedDB.
import 'fake-indexeddb/auto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { OutpostDb } from '../data/db.ts'
import { forgetWorkspace, openLastWorkspaceEarly, releaseEarlyDb, takeEarlyFirstScreen, workspaceDb } from './early-cache.ts'
import { FIRST_SCREEN_ROWS, readFirstScreen, saveFirstScreen } from './saved-rows.ts'
import { cachedEpic } from '../../../testing/cached-rows.ts'
import type { CachedEpic } from '../data/types.ts'

/** localStorage as a window has it (Node has none). */
class MemoryStorage implements Storage {
  #items = new Map<string, string>()
  get length() {
    return this.#items.size
  }
  clear = () => this.#items.clear()
  getItem = (key: string) => this.#items.get(key) ?? null
  key = (index: number) => [...this.#items.keys()][index] ?? null
  removeItem = (key: string) => void this.#items.delete(key)
  setItem = (key: string, value: string) => void this.#items.set(key, String(value))
}

const epic = (id: number, fields: Partial<CachedEpic> = {}) =>
  cachedEpic(id, {
    description: `Long description of ${id}`,
    owner_ids: ['ada'],
    updated_at: new Date(Date.UTC(2025, 0, 1) + id * 60_000).toISOString(),
    ...fields,
  })

let storage: MemoryStorage
beforeEach(() => {
  storage = new MemoryStorage()
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true })
})
afterEach(() => {
  releaseEarlyDb()
  Reflect.deleteProperty(globalThis, 'localStorage')
})

describe('the first screen kept for the next start', () => {
  it('is the newest active epics of the list, without descriptions', () => {
    const epics = Array.from({ length: 500 }, (_, i) => epic(i + 1, { archived: (i + 1) % 10 === 0 }))
    saveFirstScreen('db-a', epics.reverse())
    const saved = readFirstScreen('db-a')!
    const expected = Array.from({ length: 500 }, (_, i) => 500 - i)
      .filter((id) => id % 10 !== 0)
      .slice(0, FIRST_SCREEN_ROWS)
    expect(saved.map((e) => e.id)).toEqual(expected)
    expect(saved.every((e) => e.description === '' && e.name === `Epic ${e.id}` && e.owner_ids[0] === 'ada')).toBe(true)
  })

  it('is kept per database and goes with the workspace', () => {
    saveFirstScreen('db-a', [epic(1)])
    saveFirstScreen('db-b', [epic(2)])
    expect(readFirstScreen('db-a')!.map((e) => e.id)).toEqual([1])
    storage.setItem('outpost:problems-hidden:db-a', '["x"]')
    saveFirstScreen('x:db-a', [epic(3)])
    forgetWorkspace('db-a')
    expect(readFirstScreen('db-a')).toBeUndefined()
    expect(storage.getItem('outpost:problems-hidden:db-a')).toBeNull()
    // Only that database's: another whose name ends the same way keeps its own.
    expect(readFirstScreen('x:db-a')!.map((e) => e.id)).toEqual([3])
    expect(readFirstScreen('db-b')!.map((e) => e.id)).toEqual([2])
  })

  it('is not trusted when damaged: unreadable JSON gives none, rows of the wrong shape are left out', () => {
    storage.setItem('outpost:first-screen:db-a', '{not json')
    expect(readFirstScreen('db-a')).toBeUndefined()
    storage.setItem('outpost:first-screen:db-a', JSON.stringify([epic(1), { id: 2 }, 'x', null]))
    expect(readFirstScreen('db-a')!.map((e) => e.id)).toEqual([1])
  })

  it('is skipped, not an error, when storage refuses it', () => {
    storage.setItem = () => {
      throw new DOMException('full', 'QuotaExceededError')
    }
    expect(() => saveFirstScreen('db-a', [epic(1)])).not.toThrow()
    expect(readFirstScreen('db-a')).toBeUndefined()
  })
})

describe('the cache opened early', () => {
  it('is the last workspace shown, and its first screen is read once', async () => {
    const first = workspaceDb('http://127.0.0.1:9/', 'demo')
    await first.epics.bulkPut([epic(1), epic(2), epic(3, { archived: true })])
    first.close()

    openLastWorkspaceEarly()
    const opened = workspaceDb('http://127.0.0.1:9/', 'demo')
    expect(opened.name).toBe(first.name)
    const screen = takeEarlyFirstScreen(opened)
    expect((await screen!).map((e) => e.id).sort()).toEqual([1, 2, 3])
    expect(takeEarlyFirstScreen(opened)).toBeUndefined()
    opened.close()
    await OutpostDb.delete(first.name)
  })

  it('is closed unused when another workspace is opened', async () => {
    workspaceDb('http://127.0.0.1:9/', 'demo').close()
    openLastWorkspaceEarly()
    const other = workspaceDb('http://127.0.0.1:9/', 'other')
    expect(other.name).toContain(':other')
    expect(takeEarlyFirstScreen(other)).toBeUndefined()
    other.close()
  })

  it('opens nothing once the workspace is removed (which would make its database again, empty)', async () => {
    const db = workspaceDb('http://127.0.0.1:9/', 'gone')
    saveFirstScreen(db.name, [epic(1)])
    db.close()
    forgetWorkspace(db.name)
    await OutpostDb.delete(db.name)
    expect(readFirstScreen(db.name)).toBeUndefined()
    openLastWorkspaceEarly()
    expect(takeEarlyFirstScreen(db)).toBeUndefined()
    expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(db.name)
  })

  it('opens nothing in a window that never showed a workspace', () => {
    openLastWorkspaceEarly()
    const db = workspaceDb('http://127.0.0.1:9/', 'demo')
    expect(takeEarlyFirstScreen(db)).toBeUndefined()
    db.close()
  })
})
