import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import MiniSearch from 'minisearch'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { OutpostDb } from '../db.ts'
import { cachedEpic } from '../../../../testing/cached-rows.ts'
import type { CachedComment, CachedDoc, CachedEpic, CachedFile, OverlayRow } from '../types.ts'
import { createSearch, SEARCH_MARKS, type LocalSearch } from './index.ts'
import { handedRowsEnded, handRows } from '../handed-rows.ts'

let opened: { db: OutpostDb; search?: LocalSearch }[] = []
let dbCount = 0

function openDb(name = `search-test-${++dbCount}`): OutpostDb {
  const db = new OutpostDb(name, { indexedDB, IDBKeyRange })
  opened.push({ db })
  return db
}

function start(db: OutpostDb, options?: Parameters<typeof createSearch>[1]): LocalSearch {
  const search = createSearch(db, options)
  opened.push({ db, search })
  return search
}

afterEach(async () => {
  vi.unstubAllGlobals()
  for (const { db, search } of opened) {
    search?.dispose()
    db.close()
  }
  opened = []
})

let clock = 0
const stamp = () => new Date(Date.UTC(2025, 0, 1) + ++clock * 1000).toISOString()

function epic(id: number, name: string, description = '', more: Partial<CachedEpic> = {}): CachedEpic {
  return cachedEpic(id, { name, description, created_at: stamp(), updated_at: stamp(), ...more })
}

function doc(id: string, title: string, content_markdown: string): CachedDoc {
  return { id, title, content_markdown, content_html: '', archived: false, creator_id: null, created_at: stamp(), updated_at: stamp() }
}

function comment(id: number, epic_id: number, text: string, deleted = false): CachedComment {
  return { id, epic_id, parent_id: null, author_id: null, text, deleted, external_id: null, created_at: stamp(), updated_at: stamp() }
}

function file(id: number, name: string, description: string | null): CachedFile {
  return {
    id,
    name,
    description,
    content_type: 'application/pdf',
    size: 1,
    url: '',
    thumbnail_url: null,
    story_ids: [],
    uploader_id: null,
    external_id: null,
    created_at: stamp(),
    updated_at: stamp(),
  }
}

function overlay(kind: OverlayRow['kind'], id: string, patch: Record<string, unknown>, flags: Partial<OverlayRow> = {}): OverlayRow {
  return { kind, id, patch, created: false, deleted: false, updatedAt: ++clock, ...flags }
}

const ids = (search: LocalSearch, text: string, options?: Parameters<LocalSearch['query']>[1]) => search.query(text, options).map((r) => `${r.kind}:${r.id}`)

async function seeded(): Promise<{ db: OutpostDb; search: LocalSearch }> {
  const db = openDb()
  await db.epics.bulkPut([
    epic(1, 'Design system tokens', 'Colours, spacing and type as tokens shared by web and desktop.'),
    epic(2, 'Billing export', 'Export invoices to CSV for the finance team.'),
    epic(3, 'Dashboard performance', 'The dashboard takes four seconds to load with many widgets.'),
    epic(4, 'Onboarding checklist', 'A checklist that guides new members through their first week.'),
  ])
  await db.docs.bulkPut([
    doc(
      'd-1',
      'Release process',
      '# Release process\n\nEvery **release** is tagged. See [the runbook](https://wiki.example.com/runbook).\n\n- Build\n- Sign\n- Publish',
    ),
  ])
  await db.epicComments.bulkPut([comment(10, 2, 'Finance asked for a quarterly summary as well.')])
  await db.files.bulkPut([file(20, 'invoice-template.pdf', 'The invoice layout finance signed off')])
  const search = start(db)
  await search.ready
  return { db, search }
}

describe('local search', () => {
  it('finds by prefix, in titles and bodies', async () => {
    const { search } = await seeded()
    expect(ids(search, 'desi')).toEqual(['epic:1'])
    expect(ids(search, 'Dash')).toEqual(['epic:3'])
    expect(ids(search, 'widg')).toEqual(['epic:3'])
    expect(ids(search, 'runbook')).toEqual(['doc:d-1'])
    expect(ids(search, 'design tok')).toEqual(['epic:1'])
  })

  it('answers a single letter from titles, shorter titles first', async () => {
    const { search } = await seeded()
    expect(ids(search, 'd')).toEqual(['epic:1', 'epic:3'])
    expect(ids(search, 'design t')).toEqual(['epic:1'])
    expect(ids(search, 'design x')).toEqual([])
    expect(ids(search, 'p t')).toEqual(['file:20'])
  })

  it('finds despite a typo', async () => {
    const { search } = await seeded()
    expect(ids(search, 'dashbord')).toEqual(['epic:3'])
    expect(ids(search, 'onbaording')).toEqual(['epic:4'])
    expect(ids(search, 'invoces')).toContain('epic:2')
  })

  it('answers with kind, id, title, snippet and score', async () => {
    const { search } = await seeded()
    const [hit] = search.query('widgets')
    expect(hit).toMatchObject({ kind: 'epic', id: 3, title: 'Dashboard performance', archived: false })
    expect(hit.snippet).toContain('widgets')
    expect(hit.score).toBeGreaterThan(0)
    const [release] = search.query('runbook')
    // Markdown marks and link targets are not shown in snippets.
    expect(release.snippet).not.toContain('https')
    expect(release.snippet).not.toContain('**')
    expect(search.query('wiki')).toEqual([])
  })

  it('ranks the exact title first, then titles that start with the query, then title words, then bodies', async () => {
    const db = openDb()
    await db.epics.bulkPut([
      epic(1, 'Research notes', 'search search search search: the body says it many times'),
      epic(2, 'Offline search'),
      epic(3, 'Search filters'),
      epic(4, 'Search'),
      epic(5, 'Unrelated', 'a search in the description only'),
    ])
    const search = start(db)
    await search.ready
    const ranked = ids(search, 'search')
    expect(ranked.slice(0, 3)).toEqual(['epic:4', 'epic:3', 'epic:2'])
    expect(new Set(ranked.slice(3))).toEqual(new Set(['epic:1', 'epic:5']))
    // Scores follow the order.
    const scores = search.query('search').map((r) => r.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    expect(ids(search, 'search fil')[0]).toBe('epic:3')
    expect(ids(search, 'search', { limit: 2 })).toEqual(['epic:4', 'epic:3'])
  })

  it('ranks archived entities after live ones of the same tier', async () => {
    const db = openDb()
    await db.epics.bulkPut([epic(1, 'Roadmap 2024', '', { archived: true }), epic(2, 'Roadmap 2025')])
    const search = start(db)
    await search.ready
    const results = search.query('roadmap')
    expect(results.map((r) => r.id)).toEqual([2, 1])
    expect(results[1].archived).toBe(true)
  })

  it('filters by kind', async () => {
    const { search } = await seeded()
    expect(new Set(ids(search, 'finance'))).toEqual(new Set(['epic:2', 'comment:10', 'file:20']))
    expect(ids(search, 'finance', { kinds: ['comment'] })).toEqual(['comment:10'])
    expect(ids(search, 'finance', { kinds: ['file', 'doc'] })).toEqual(['file:20'])
    expect(ids(search, 'release', { kinds: ['doc'] })).toEqual(['doc:d-1'])
    expect(ids(search, 'release', { kinds: ['epic'] })).toEqual([])
  })

  it("titles a comment with its epic's name and says which epic", async () => {
    const { search } = await seeded()
    const [hit] = search.query('quarterly')
    expect(hit).toMatchObject({ kind: 'comment', id: 10, title: 'Billing export', epicId: 2 })
    expect(hit.snippet).toContain('quarterly summary')
  })

  it('answers each keystroke of a phrase as it would the phrase typed at once', async () => {
    const { db, search } = await seeded()
    for (const phrase of ['design tokens shared', 'finance invoice', 'dashbord widgets', 'release runbook build']) {
      for (let n = 1; n <= phrase.length; n++) {
        const typed = search.query(phrase.slice(0, n))
        // A new index knows no earlier keystroke.
        const fresh = start(db)
        await fresh.ready
        expect(typed, phrase.slice(0, n)).toEqual(fresh.query(phrase.slice(0, n)))
        fresh.dispose()
      }
    }
  })

  it('cuts no snippet when asked not to, and ranks the same', async () => {
    const { search } = await seeded()
    const plain = search.query('finance', { snippets: false })
    expect(plain.length).toBeGreaterThan(1)
    expect(plain.every((hit) => hit.snippet === undefined)).toBe(true)
    const full = search.query('finance')
    expect(full.some((hit) => hit.snippet?.includes('finance'))).toBe(true)
    expect(plain).toEqual(full.map(({ snippet: _, ...hit }) => hit))
  })

  it('asks the index once for a word typed again after others', async () => {
    const { db, search } = await seeded()
    const asked = vi.spyOn(MiniSearch.prototype, 'search')
    search.query('dashboard')
    for (const other of ['billing', 'release', 'tokens', 'checklist', 'invoice', 'finance', 'spacing', 'widgets', 'members', 'quarterly']) search.query(other)
    const before = asked.mock.calls.length
    // A phrase not asked before, of words that were: the words' matches are kept, the index is not asked.
    const phrase = search.query('dashboard widgets')
    expect(asked.mock.calls.length).toBe(before)
    asked.mockRestore()
    const fresh = start(db)
    await fresh.ready
    expect(phrase).toEqual(fresh.query('dashboard widgets'))
    expect(phrase.map((hit) => `${hit.kind}:${hit.id}`)).toEqual(['epic:3'])
  })

  it('scores a common word only on the documents a narrower word matches, and ranks as if it had scored it everywhere', async () => {
    const db = openDb()
    await db.epics.bulkPut(Array.from({ length: 300 }, (_, i) => epic(i + 1, `Release ${i + 1}`, `Shipped with release train ${i % 7}.`)))
    const whole = start(db)
    await whole.ready
    // "release" asked alone first is matched everywhere, and kept for the phrase.
    expect(whole.query('release')).toHaveLength(20)
    const kept = whole.query('release 123 train')

    const narrowed = start(db)
    await narrowed.ready
    const asked = vi.spyOn(MiniSearch.prototype, 'search')
    const answer = narrowed.query('release 123 train')
    // "123" is asked everywhere; "release" and "train" only on what "123" matched.
    expect(asked.mock.calls.map(([, options]) => options?.boostDocument !== undefined)).toEqual([false, true, true])
    asked.mockRestore()
    expect(answer).toEqual(kept)
    expect(answer.map((hit) => hit.id).sort()).toEqual([123])
    // Typing back: the words scored on the same documents are not asked for again, only the new one, on those documents.
    const again = vi.spyOn(MiniSearch.prototype, 'search')
    expect(ids(narrowed, 'release 123 trai')).toEqual(['epic:123'])
    expect(
      again.mock.calls.map(([query, options]) => [JSON.stringify(query).match(/"queries":\["(\w+)"\]/)?.[1], options?.boostDocument !== undefined]),
    ).toEqual([['trai', true]])
    again.mockRestore()
  })

  it('takes a number as typed: a prefix of one, never one a digit off', async () => {
    const db = openDb()
    await db.epics.bulkPut([epic(1, 'Epic 2607'), epic(2, 'Epic 2617'), epic(3, 'Epic 26073'), epic(4, 'Epic 607'), epic(5, 'Epik launch')])
    const search = start(db)
    await search.ready
    expect(ids(search, 'epic 2607').sort()).toEqual(['epic:1', 'epic:3'])
    expect(ids(search, '26073')).toEqual(['epic:3'])
    // Words keep their typos.
    expect(ids(search, 'epik 2607').sort()).toEqual(['epic:1', 'epic:3'])
  })

  it('answers a query asked again from memory, the same words however typed, until the index changes', async () => {
    const { db, search } = await seeded()
    const first = search.query('billing ex')
    const letters = search.query('b e')
    const asked = vi.spyOn(MiniSearch.prototype, 'search')
    expect(search.query('billing ex')).toBe(first)
    expect(search.query('  Billing  EX ')).toBe(first)
    expect(asked).not.toHaveBeenCalled()
    // Other options are another question.
    expect(search.query('billing ex', { snippets: false })).not.toBe(first)
    asked.mockRestore()

    // A change no query reads (the epic's state) leaves the answer as it was.
    await db.epics.update(2, { epic_state_id: 500000003, updated_at: stamp() })
    await search.settled()
    expect(search.query('billing ex')).toBe(first)

    // A change that leaves the words as they were (archiving) still shows in the next answer.
    await db.epics.update(2, { archived: true, updated_at: stamp() })
    await search.settled()
    const after = search.query('billing ex')
    expect(after).not.toBe(first)
    expect(after[0]).toMatchObject({ kind: 'epic', id: 2, archived: true })
    expect(first[0]).toMatchObject({ kind: 'epic', id: 2, archived: false })
    // So does a query of letters, which walks the titles in an order kept between keystrokes.
    expect(letters[0]).toMatchObject({ kind: 'epic', id: 2, archived: false })
    expect(search.query('b e')[0]).toMatchObject({ kind: 'epic', id: 2, archived: true })
  })

  it('answers letters as a walk of every title would: a title that is the query, then those it starts, then those with a word it starts, shorter and live first', async () => {
    const db = openDb()
    const words = ['alpha', 'beta', 'rollout', 'risk', 'sync', 'search', 'tokens', 'billing', 'ux', 'road', 'map', 'q']
    let seed = 7
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    const titles = Array.from({ length: 400 }, () =>
      Array.from({ length: 1 + Math.floor(next() * 4) }, () => words[Math.floor(next() * words.length)]).join(' '),
    )
    titles.push('r', 'r', 'r s')
    const epics = titles.map((title, i) => epic(i + 1, title, '', { archived: next() < 0.2 }))
    await db.epics.bulkPut(epics)
    const search = start(db)
    await search.ready
    // The ranking written out: tier (3 the title is the query, 2 starts with it, 1 every letter starts a
    // title word), then 8 / (8 + the title's length), halved when archived; equals in the index's order (by id).
    const expected = (query: string, limit: number) => {
      const letters = query.split(' ')
      const startsWords = (title: string) => letters.every((letter) => title.split(' ').some((word) => word.startsWith(letter)))
      return epics
        .filter((e) => startsWords(e.name))
        .map((e) => {
          const relevance = (8 / (8 + e.name.length)) * (e.archived ? 0.5 : 1)
          const tier = e.name === query ? 3 : e.name.startsWith(query) ? 2 : 1
          return { id: `epic:${e.id}`, rank: tier + relevance / (1 + relevance) }
        })
        .sort((a, b) => b.rank - a.rank)
        .slice(0, limit)
        .map((r) => r.id)
    }
    for (const query of ['a', 'b', 'r', 's', 't', 'u', 'm', 'q', 'x', 'r s', 's r', 'b m r']) {
      for (const limit of [1, 5, 20, 200]) expect(ids(search, query, { limit }), `${query} (${limit})`).toEqual(expected(query, limit))
    }
  })

  /**
   * 2,500 epics of few title words and queries of letters that find many of them, with the answers of a
   * search that has no idle time (as here, in Node: the first query of letters makes the order); and a
   * search of the same cache whose idle periods, each with no time left, the test gives it (`idle`).
   */
  async function titlesInIdleTime(titles = 2_500) {
    const db = openDb()
    await db.epics.bulkPut(Array.from({ length: titles }, (_, i) => epic(i + 1, `${['road', 'risk', 'map'][i % 3]} ${i % 40}`, '', { archived: i % 7 === 0 })))
    const queries = ['r', 'm', 'r 1', 'm 3', 'road 2', 'x']
    const answersOf = (search: LocalSearch) => queries.map((q) => ids(search, q, { limit: 50 }))
    const plain = start(db)
    await plain.ready
    const answers = answersOf(plain)
    const periods: IdleRequestCallback[] = []
    vi.stubGlobal('requestIdleCallback', (run: IdleRequestCallback) => periods.push(run))
    const search = start(db)
    await search.ready
    await new Promise((resolve) => setTimeout(resolve, 20))
    return { answers, answersOf, search, periods, idle: (timeLeft = 0) => periods.shift()!({ didTimeout: false, timeRemaining: () => timeLeft }) }
  }

  it('orders the titles for letters in idle time, a slice an idle period, and answers as it would without', async () => {
    const { answers, answersOf, search, periods, idle } = await titlesInIdleTime()
    expect(answers[0]).toHaveLength(50)
    // One slice of 1,000 titles an idle period (with no time left), then the merge of the sorted slices with the last.
    let ran = 0
    while (periods.length > 0) {
      ran++
      idle()
    }
    expect(ran).toBe(3)
    expect(answersOf(search)).toEqual(answers)
  })

  it('weighs four slices at most in an idle period that has time left, since a key pressed meanwhile waits for it', async () => {
    const { answers, answersOf, search, periods, idle } = await titlesInIdleTime(4_500)
    // Periods of 50 ms: 4,000 titles in the first, the last 500 and the merge of the sorted slices in the second.
    idle(50)
    expect(periods).toHaveLength(1)
    idle(50)
    expect(periods).toHaveLength(0)
    expect(answersOf(search)).toEqual(answers)
  })

  it('a query of letters while the titles are being weighed in idle time finishes the order, and answers as it would without', async () => {
    const { answers, answersOf, search, periods, idle } = await titlesInIdleTime()
    // One idle period of three: 1,000 titles weighed, the rest by the query.
    idle()
    expect(periods).toHaveLength(1)
    expect(answersOf(search)).toEqual(answers)
    // The order is made: the next idle period has nothing left to do.
    idle()
    expect(periods).toHaveLength(0)
  })

  it('answers nothing to an empty query', async () => {
    const { search } = await seeded()
    expect(search.query('')).toEqual([])
    expect(search.query('  -- ')).toEqual([])
  })

  it('normalises case and accents', async () => {
    const db = openDb()
    await db.epics.bulkPut([epic(1, 'Café menu', 'Crème brûlée for Zoë')])
    const search = start(db)
    await search.ready
    expect(ids(search, 'cafe')).toEqual(['epic:1'])
    expect(ids(search, 'CREME brulee')).toEqual(['epic:1'])
    expect(ids(search, 'zoë')).toEqual(['epic:1'])
  })
})

describe('incremental updates', () => {
  it('reflects rows added, updated and deleted after the build', async () => {
    const { db, search } = await seeded()
    await db.epics.put(epic(5, 'Keyboard shortcuts', 'Every action has one.'))
    await search.settled()
    expect(ids(search, 'keyboard')).toEqual(['epic:5'])

    await db.epics.update(5, { name: 'Hotkeys', updated_at: stamp() })
    await search.settled()
    expect(ids(search, 'keyboard')).toEqual([])
    expect(ids(search, 'hotkeys')).toEqual(['epic:5'])

    await db.epics.delete(5)
    await search.settled()
    expect(ids(search, 'hotkeys')).toEqual([])

    await db.docs.update('d-1', { content_markdown: 'Now about **canary** builds', updated_at: stamp() })
    await db.epicComments.update(10, { deleted: true, updated_at: stamp() })
    await search.settled()
    expect(ids(search, 'canary')).toEqual(['doc:d-1'])
    expect(ids(search, 'runbook')).toEqual([])
    expect(ids(search, 'quarterly')).toEqual([])
  })

  it('renamed by the hundreds, again and again as the old words are swept: finds the new names, and never fails', async () => {
    const db = openDb()
    const named = (round: number) =>
      Array.from({ length: 600 }, (_, i) => epic(i + 1, `${round === 0 ? 'first' : round === 30 ? 'last' : `r${round}q${i}z`} item${i}x${round}`))
    await db.epics.bulkPut(named(0))
    const search = start(db)
    await search.ready
    const failures: unknown[] = []
    const failed = (error: unknown) => failures.push(error)
    process.on('unhandledRejection', failed)
    try {
      for (let round = 1; round <= 30; round++) {
        await db.epics.bulkPut(named(round))
        // The next names come while the index sweeps out the last ones' words.
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      await search.settled()
      await new Promise((resolve) => setTimeout(resolve, 200))
    } finally {
      process.off('unhandledRejection', failed)
    }
    expect(failures).toEqual([])
    expect(ids(search, 'last', { limit: 1000 })).toHaveLength(600)
    expect(ids(search, 'first', { limit: 1000 })).toEqual([])
    expect(ids(search, 'item417x30')[0]).toBe('epic:418')
  })

  it('finds what a change brought between two keystrokes', async () => {
    const { db, search } = await seeded()
    expect(ids(search, 'tokens')).not.toContain('epic:6')
    await db.epics.put(epic(6, 'Tokens review', 'Every week.'))
    await search.settled()
    expect(ids(search, 'tokens')).toContain('epic:6')
    expect(ids(search, 'tokens r')).toEqual(['epic:6'])
  })

  it('follows bulk writes that name no keys: big pages, range deletes, clear', async () => {
    const { db, search } = await seeded()
    // 50 rows or more: Dexie reports only "the table changed", the index rescans it.
    await db.epics.bulkPut(Array.from({ length: 120 }, (_, i) => epic(100 + i, `Telemetry probe ${i}`)))
    await db.epics.bulkPut(Array.from({ length: 60 }, (_, i) => ({ ...epic(1, 'x'), id: 300 + i, name: `Widget ${i}` })))
    await search.settled()
    expect(search.query('telemetry', { limit: 500 })).toHaveLength(120)
    expect(ids(search, 'telemetry probe 7')).toContain('epic:107')

    await db.epics.bulkPut(Array.from({ length: 120 }, (_, i) => ({ ...epic(100 + i, `Observability probe ${i}`) })))
    await search.settled()
    expect(search.query('telemetry')).toEqual([])
    expect(search.query('observability', { limit: 500 })).toHaveLength(120)

    await db.epics.where('id').between(100, 160, true, false).delete()
    await search.settled()
    expect(search.query('observability', { limit: 500 })).toHaveLength(60)

    await db.epics.clear()
    await search.settled()
    expect(search.query('observability')).toEqual([])
    expect(search.query('dashboard')).toEqual([])
    expect(ids(search, 'release')).toEqual(['doc:d-1'])
  })

  it('picks up a doc whose markdown arrives after its row, under the same updated_at', async () => {
    const db = openDb()
    const search = start(db)
    await search.ready
    const rows = Array.from({ length: 60 }, (_, i) => doc(`d-${i}`, `Spec ${i}`, ''))
    await db.docs.bulkPut(rows)
    await search.settled()
    await db.docs.bulkPut(rows.map((row, i) => ({ ...row, content_markdown: i === 7 ? 'The **quokka** protocol' : 'Body' })))
    await search.settled()
    expect(ids(search, 'quokka')).toEqual(['doc:d-7'])
  })

  it('keeps changes made while the index is being built', async () => {
    const db = openDb()
    await db.epics.bulkPut(Array.from({ length: 2000 }, (_, i) => epic(i + 1, `Item ${i + 1}`)))
    const search = start(db, { sliceMs: 0.01 })
    await db.epics.put(epic(1, 'Renamed while building'))
    await db.epics.put(epic(5000, 'Added while building'))
    await db.epics.delete(1999)
    await search.ready
    await search.settled()
    expect(ids(search, 'building')).toEqual(expect.arrayContaining(['epic:1', 'epic:5000']))
    expect(ids(search, 'item 1999')).not.toContain('epic:1999')
    expect(search.stats().documents).toBe(2000)
  })

  it('sees writes made through another connection to the same database (another window)', async () => {
    const { db, search } = await seeded()
    const other = openDb(db.name)
    await other.epics.put(epic(7, 'Written elsewhere'))
    await search.settled()
    expect(ids(search, 'elsewhere')).toEqual(['epic:7'])
  })

  it('ignores other databases', async () => {
    const { search } = await seeded()
    const other = openDb()
    await other.epics.put(epic(7, 'Another workspace'))
    await search.settled()
    expect(ids(search, 'workspace')).toEqual([])
  })

  it('bumps its version on changes, and stops following after dispose', async () => {
    const { db, search } = await seeded()
    const versions: number[] = []
    const unsubscribe = search.version.subscribe((v) => versions.push(v))
    await db.epics.put(epic(8, 'Versioned'))
    await search.settled()
    expect(versions.length).toBeGreaterThan(1)
    unsubscribe()
    search.dispose()
    await db.epics.put(epic(9, 'After dispose'))
    await search.settled()
    expect(search.query('dispose')).toEqual([])
  })
})

describe('rows the sync hands over before storing them', () => {
  it('finds them by their titles at once, keeps them while the cache does not hold them, then follows the cache', async () => {
    const { db, search } = await seeded()
    const handed = Array.from({ length: 80 }, (_, i) => ({ ...epic(500 + i, `Zephyr roadmap ${i}`), partial: true as const }))
    handRows(db, { kind: 'epic', rows: handed })
    await search.settled()
    expect(search.query('zephyr', { limit: 500 })).toHaveLength(80)
    // A walk's page (a write that names no keys: a rescan) before the list is stored takes none of them away.
    await db.epics.bulkPut(Array.from({ length: 60 }, (_, i) => epic(700 + i, `Telemetry probe ${i}`)))
    await search.settled()
    expect(search.query('zephyr', { limit: 500 })).toHaveLength(80)
    expect(search.query('telemetry', { limit: 500 })).toHaveLength(60)
    // The list stored, one of them renamed since by a page: the cache's rows from then on.
    await db.epics.bulkPut(handed.slice(0, 79))
    await db.epics.put({ ...handed[0], name: 'Annual plan', updated_at: stamp() })
    await search.settled()
    expect(ids(search, 'annual plan')).toEqual(['epic:500'])
    expect(search.query('zephyr', { limit: 500 })).toHaveLength(79)
    // The run ended: the one the cache never got (deleted on the service meanwhile) goes.
    handedRowsEnded(db)
    await search.settled()
    expect(search.query('zephyr', { limit: 500 }).map((r) => r.id)).not.toContain(579)
    expect(search.query('zephyr', { limit: 500 })).toHaveLength(78)
  })

  it("lays the user's changes over them, and leaves out those the cache already holds", async () => {
    const { db, search } = await seeded()
    await db.overlay.bulkPut([overlay('epic', '600', {}, { deleted: true }), overlay('epic', '601', { name: 'Renamed offline' })])
    await search.settled()
    handRows(db, {
      kind: 'epic',
      rows: [
        { ...epic(600, 'Deleted here'), partial: true },
        { ...epic(601, 'Old name'), partial: true },
        // The cache's copy of epic 1 is the one kept.
        { ...epic(1, 'Stale copy'), partial: true },
      ],
    })
    await search.settled()
    expect(ids(search, 'deleted here')).toEqual([])
    expect(ids(search, 'renamed offline')).toEqual(['epic:601'])
    expect(ids(search, 'stale copy')).toEqual([])
    expect(ids(search, 'design system tokens')).toEqual(['epic:1'])
  })

  it('takes in the rows a run handed before the search was started (a window whose search opens late)', async () => {
    const db = openDb()
    await db.epics.bulkPut(Array.from({ length: 30 }, (_, i) => epic(i + 1, `Backlog item ${i}`)))
    handRows(db, { kind: 'epic', rows: [{ ...epic(6_000, 'Quarterly review'), partial: true }] })
    const search = start(db, { sliceMs: 1 })
    await search.ready
    await search.settled()
    expect(ids(search, 'quarterly review')).toEqual(['epic:6000'])
    expect(search.query('backlog', { limit: 100 })).toHaveLength(30)
    handedRowsEnded(db)
  })

  it('takes in rows handed while it is being built, and holds them once built', async () => {
    const db = openDb()
    await db.epics.bulkPut(Array.from({ length: 1_200 }, (_, i) => epic(i + 1, `Backlog item ${i}`)))
    const search = start(db, { sliceMs: 1 })
    // Handed as the build reads its first page.
    await new Promise((resolve) => setTimeout(resolve, 0))
    handRows(db, { kind: 'epic', rows: [{ ...epic(5_000, 'Lighthouse audit'), partial: true }] })
    await search.ready
    await search.settled()
    expect(ids(search, 'lighthouse audit')).toEqual(['epic:5000'])
    expect(search.query('backlog', { limit: 2_000 })).toHaveLength(1_200)
  })

  it('finds the docs handed by their titles, until their pages bring their text', async () => {
    const { db, search } = await seeded()
    handRows(db, { kind: 'doc', rows: [{ ...doc('d-9', 'Incident review', ''), updated_at: '', partial: true }] })
    await search.settled()
    expect(ids(search, 'incident review')).toEqual(['doc:d-9'])
    await db.docs.put(doc('d-9', 'Incident review', 'What happened to the *pager* rota.'))
    handedRowsEnded(db)
    await search.settled()
    expect(ids(search, 'pager')).toEqual(['doc:d-9'])
  })
})

describe('overlay (offline changes)', () => {
  it('finds entities created offline, edited offline, and hides those deleted offline', async () => {
    const { db, search } = await seeded()
    await db.overlay.put(overlay('epic', 'local:abc', { name: 'Offline draft', description: 'Typed on a plane' }, { created: true }))
    await db.overlay.put(overlay('epic', '2', { name: 'Billing exports v2' }))
    await db.overlay.put(overlay('epic', '3', {}, { deleted: true }))
    await db.overlay.put(overlay('comment', 'local:c1', { text: 'A comment from the train', epic_id: 1 }, { created: true }))
    await search.settled()
    expect(search.query('plane')[0]).toMatchObject({ kind: 'epic', id: 'local:abc', title: 'Offline draft' })
    expect(search.query('exports v2')[0]).toMatchObject({ id: 2, title: 'Billing exports v2' })
    expect(ids(search, 'dashboard')).toEqual([])
    expect(search.query('train')[0]).toMatchObject({ kind: 'comment', id: 'local:c1', title: 'Design system tokens', epicId: 1 })

    // Confirmed: the overlay rows go, the server rows arrive under the server ids.
    await db.transaction('rw', db.overlay, db.epics, async () => {
      await db.overlay.bulkDelete([
        ['epic', 'local:abc'],
        ['epic', '2'],
        ['epic', '3'],
      ])
      await db.epics.put(epic(6, 'Offline draft', 'Typed on a plane'))
    })
    await search.settled()
    expect(ids(search, 'plane')).toEqual(['epic:6'])
    expect(ids(search, 'billing')).toEqual(['epic:2'])
    expect(search.query('billing')[0].title).toBe('Billing export')
    expect(ids(search, 'dashboard')).toEqual(['epic:3'])
  })

  it('applies overlay rows present when the index is built', async () => {
    const db = openDb()
    await db.epics.bulkPut([epic(1, 'Server name'), epic(2, 'Going away')])
    await db.overlay.bulkPut([
      overlay('epic', '1', { name: 'Local name' }),
      overlay('epic', '2', {}, { deleted: true }),
      overlay('doc', 'local:d', { title: 'Offline doc', content_markdown: 'About *otters*' }, { created: true }),
      overlay('label', '5', { name: 'Local label' }),
    ])
    const search = start(db)
    await search.ready
    expect(ids(search, 'local')).toEqual(['epic:1'])
    expect(ids(search, 'server')).toEqual([])
    expect(ids(search, 'going')).toEqual([])
    expect(ids(search, 'otters')).toEqual(['doc:local:d'])
  })

  it('follows overlay changes that name no keys', async () => {
    const { db, search } = await seeded()
    await db.overlay.bulkPut(Array.from({ length: 60 }, (_, i) => overlay('epic', `local:${i}`, { name: `Sketch ${i}` }, { created: true })))
    await search.settled()
    expect(search.query('sketch', { limit: 100 })).toHaveLength(60)
    await db.overlay.clear()
    await search.settled()
    expect(search.query('sketch')).toEqual([])
  })
})

describe('building', () => {
  it('indexes the cache in slices and reports them', async () => {
    const db = openDb()
    await db.epics.bulkPut(Array.from({ length: 300 }, (_, i) => epic(i + 1, `Epic ${i + 1}`)))
    const search = start(db, { sliceMs: 0.01 })
    await search.ready
    const stats = search.stats()
    expect(stats).toMatchObject({ documents: 300, building: false })
    expect(stats.slices).toBeGreaterThan(10)
    expect(ids(search, 'epic 300')[0]).toBe('epic:300')
  })

  it('waits before reading the cache when asked to (a window lets its first screen read first)', async () => {
    const db = openDb()
    await db.epics.put(epic(1, 'Alpha'))
    const search = start(db, { startDelayMs: 200 })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(search.stats()).toMatchObject({ documents: 0, building: true })
    await search.ready
    expect(ids(search, 'alpha')).toEqual(['epic:1'])
  })

  it('marks in the performance timeline when it is built and when it has caught up with changes', async () => {
    const last = (name: string) => performance.getEntriesByName(name, 'mark').at(-1) as PerformanceMark | undefined
    const db = openDb()
    await db.epics.put(epic(1, 'Alpha'))
    const search = start(db)
    await search.ready
    expect(last(SEARCH_MARKS.ready)?.detail).toMatchObject({ documents: 1 })
    await db.epics.put(epic(2, 'Beta'))
    await search.settled()
    expect(last(SEARCH_MARKS.settled)?.detail).toMatchObject({ documents: 2 })
    expect(last(SEARCH_MARKS.settled)!.startTime).toBeGreaterThanOrEqual(last(SEARCH_MARKS.updating)!.startTime)
    // One of each at a time: a long session does not pile them up.
    expect(performance.getEntriesByName(SEARCH_MARKS.settled, 'mark')).toHaveLength(1)
  })

  it('reports a failed build through ready and onError', async () => {
    const db = openDb()
    await db.open()
    db.close()
    const errors: unknown[] = []
    const search = start(db, { onError: (e) => errors.push(e) })
    await expect(search.ready).rejects.toThrow()
    expect(errors).toHaveLength(1)
  })
})
