import { describe, expect, it } from 'vitest'
import { cachedEpic } from '../../../../testing/cached-rows.ts'
import type { CachedEpic, CachedEpicState } from '../../data/types.ts'
import { applyFilters, asksIndex, SORTS, type EpicFilters } from './epic-filter.ts'

const epic = (id: number, fields: Partial<CachedEpic> = {}) =>
  cachedEpic(id, { created_at: `2024-01-${String(id).padStart(2, '0')}T00:00:00Z`, updated_at: `2024-02-${String(id).padStart(2, '0')}T00:00:00Z`, ...fields })

const states = new Map<string, CachedEpicState>([
  ['1', { id: 1, name: 'To Do', type: 'unstarted', color: null, description: '', position: 1 }],
  ['2', { id: 2, name: 'Done', type: 'done', color: null, description: '', position: 2 }],
])
const none: EpicFilters = { query: '', states: [], owners: [], teams: [], objectives: [], archived: 'active', sort: 'updated', dir: 'desc' }
const ids = (list: CachedEpic[]) => list.map((e) => e.id)

describe('the epics list filters', () => {
  const epics = [
    epic(1, { name: 'Offline sync', owner_ids: ['ada'], group_ids: ['web'] }),
    epic(2, { name: 'Billing', description: 'Annual plans, offline invoices', epic_state_id: 2, objective_ids: [7] }),
    epic(3, { name: 'Old thing', archived: true }),
    epic(4, { name: 'Search', deadline: '2024-05-01T12:00:00Z' }),
  ]

  it('hides archived epics unless asked, and sorts by last update', () => {
    expect(ids(applyFilters(epics, none, { states }))).toEqual([4, 2, 1])
    expect(ids(applyFilters(epics, { ...none, archived: 'archived' }, { states }))).toEqual([3])
    expect(ids(applyFilters(epics, { ...none, archived: 'all' }, { states }))).toEqual([4, 3, 2, 1])
  })

  it('filters by state, owner (or none), team and objective', () => {
    expect(ids(applyFilters(epics, { ...none, states: ['2'] }, { states }))).toEqual([2])
    expect(ids(applyFilters(epics, { ...none, owners: ['ada'] }, { states }))).toEqual([1])
    expect(ids(applyFilters(epics, { ...none, owners: [''] }, { states }))).toEqual([4, 2])
    expect(ids(applyFilters(epics, { ...none, teams: ['web'] }, { states }))).toEqual([1])
    expect(ids(applyFilters(epics, { ...none, objectives: ['7'] }, { states }))).toEqual([2])
  })

  it('searches names before descriptions, and ids', () => {
    expect(ids(applyFilters(epics, { ...none, query: 'offline' }, { states }))).toEqual([1, 2])
    expect(ids(applyFilters(epics, { ...none, query: 'plans annual' }, { states }))).toEqual([2])
    expect(ids(applyFilters(epics, { ...none, query: '#4' }, { states }))).toEqual([4])
    // What only the index found (a typo) comes after the text matches.
    expect(ids(applyFilters(epics, { ...none, query: 'ofline' }, { states, ranked: new Map([['1', 5]]) }))).toEqual([1])
  })

  it('sorts by deadline with the undated last, either way', () => {
    expect(ids(applyFilters(epics, { ...none, sort: 'deadline', dir: 'asc' }, { states }))[0]).toBe(4)
    expect(ids(applyFilters(epics, { ...none, sort: 'deadline', dir: 'desc' }, { states }))[0]).toBe(4)
  })

  it('finds the matches among 10,000 epics', () => {
    const many = Array.from({ length: 10_000 }, (_, i) =>
      epic(i + 1, { name: `Epic ${i + 1} about ${i % 7 === 0 ? 'search' : 'sync'}`, description: 'x'.repeat(200) }),
    )
    const found = applyFilters(many, { ...none, query: 'search' }, { states })
    expect(found.length).toBe(Math.ceil(10_000 / 7))
  })
})

// The list's orders are kept per list of epics and walked, not sorted per keystroke: they must give
// exactly what sorting the matches with the plain comparators gives, ties included (that is this).
function sortedPlainly(
  epics: readonly CachedEpic[],
  f: EpicFilters,
  context: { states: ReadonlyMap<string, CachedEpicState>; ranked?: ReadonlyMap<string, number> | null; sortChosen?: boolean },
): CachedEpic[] {
  const q = f.query.trim().toLowerCase()
  const words = q.split(/\s+/).filter(Boolean)
  const idQuery = /^#?\d+$/.test(q) ? q.replace('#', '') : null
  const score = (e: CachedEpic) => {
    if (idQuery !== null && String(e.id) === idQuery) return 3
    const name = e.name.toLowerCase()
    const description = e.description.toLowerCase()
    if (name.includes(q) || words.every((w) => name.includes(w))) return 2
    return words.every((w) => name.includes(w) || description.includes(w)) ? 1 : 0
  }
  const some = (values: readonly (string | number)[], wanted: string[]) => values.some((v) => wanted.includes(String(v)))
  const out = epics.filter(
    (e) =>
      (f.archived === 'all' || e.archived === (f.archived === 'archived')) &&
      (!f.states.length || f.states.includes(String(e.epic_state_id))) &&
      (!f.owners.length || some(e.owner_ids, f.owners) || (f.owners.includes('') && e.owner_ids.length === 0)) &&
      (!f.teams.length || some(e.group_ids, f.teams) || (f.teams.includes('') && e.group_ids.length === 0)) &&
      (!f.objectives.length || some(e.objective_ids, f.objectives)) &&
      (!q || score(e) > 0 || !!context.ranked?.has(String(e.id))),
  )
  if (q && !context.sortChosen) {
    const rank = (e: CachedEpic) => score(e) * 1000 + (context.ranked?.get(String(e.id)) ?? 0)
    return out.sort((a, b) => rank(b) - rank(a) || b.updated_at.localeCompare(a.updated_at))
  }
  const sign = f.dir === 'asc' ? 1 : -1
  const stateRank = (e: CachedEpic) => context.states.get(String(e.epic_state_id))?.position ?? Number.MAX_SAFE_INTEGER
  const compare: Record<EpicFilters['sort'], (a: CachedEpic, b: CachedEpic) => number> = {
    updated: (a, b) => a.updated_at.localeCompare(b.updated_at),
    created: (a, b) => a.created_at.localeCompare(b.created_at),
    name: (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }),
    deadline: (a, b) => (a.deadline ? (b.deadline ? a.deadline.localeCompare(b.deadline) : -sign) : b.deadline ? sign : 0),
    state: (a, b) => stateRank(a) - stateRank(b),
    position: (a, b) => a.position - b.position,
  }
  return out.sort((a, b) => sign * compare[f.sort](a, b) || sign * compare.updated(a, b))
}

describe('the epics list order', () => {
  // Few distinct values, so most epics tie on something; timestamps with and without milliseconds.
  let seed = 7
  const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]
  const stamp = () => `2024-0${pick([1, 2, 3])}-1${pick([1, 2])}T0${pick([8, 9])}:00:00${pick(['Z', '.000Z', '.500Z'])}`
  const many = Array.from({ length: 600 }, (_, i) =>
    epic(i + 1, {
      name: pick(['Offline sync', 'offline Sync', 'Billing 2', 'Billing 10', 'billing 2', 'Search', 'Épic', 'epic']),
      description: pick(['', 'offline first', 'about billing', 'search the sync']),
      archived: random() < 0.2,
      epic_state_id: pick([1, 2, 3, null]),
      owner_ids: pick([[], ['ada'], ['ada', 'bo']]),
      group_ids: pick([[], ['web']]),
      deadline: pick([null, null, stamp()]),
      position: pick([1, 2, 3]),
      created_at: stamp(),
      updated_at: stamp(),
    }),
  )
  const ranked = new Map([...Array.from({ length: 40 }, (_, i) => [String(i * 13 + 1), pick([0.5, 1, 2, 1500])] as const), ['100000', 3] as const])

  it('is what sorting the matches gives, ties included, for every sort, direction and query', () => {
    for (const { key } of SORTS)
      for (const dir of ['asc', 'desc'] as const)
        for (const query of ['', 'offline', 'sync billing', 'bill', '#13', 'zzz'])
          for (const sortChosen of [false, true])
            for (const context of [{ states }, { states, ranked }]) {
              const f: EpicFilters = {
                ...none,
                query,
                sort: key,
                dir,
                archived: pick(['active', 'archived', 'all'] as const),
                owners: pick([[], ['ada'], ['']]),
              }
              const expected = ids(sortedPlainly(many, f, { ...context, sortChosen }))
              expect(ids(applyFilters(many, f, { ...context, sortChosen })), `${key} ${dir} "${query}" ${sortChosen} ${'ranked' in context}`).toEqual(expected)
              // Asked for lazily, the index's matches give the same.
              expect(ids(applyFilters(many, f, { states, ranked: () => ('ranked' in context ? ranked : null), sortChosen }))).toEqual(expected)
            }
  })

  it('gives, typing letter by letter (and back), what each query gives alone', () => {
    const typed = (text: string) => Array.from(text, (_, i) => text.slice(0, i + 1))
    const queries = [
      ...typed('offline sync'),
      ...typed('offline sync').reverse(),
      ...typed('bill ing 2'),
      'billing 10',
      ...typed('#13'),
      ...typed('sea'),
      ' sea ',
      'sea rch',
    ]
    for (const sortChosen of [false, true])
      for (const context of [{ states }, { states, ranked }])
        for (const query of queries) {
          const f: EpicFilters = { ...none, query, sort: 'name', archived: 'all' }
          expect(ids(applyFilters(many, f, { ...context, sortChosen })), `"${query}"`).toEqual(ids(sortedPlainly(many, f, { ...context, sortChosen })))
        }
  })

  it('finds by id a query that adds digits, whatever the text matched before', () => {
    const list = [epic(1, { name: 'One' }), epic(12, { name: 'Twelve' }), epic(21, { name: 'Twenty-one 1' })]
    expect(ids(applyFilters(list, { ...none, query: '1' }, { states }))).toEqual([1, 21])
    expect(ids(applyFilters(list, { ...none, query: '12' }, { states }))).toEqual([12])
  })

  it('starts again when the filters or the epics change between keystrokes', () => {
    const f: EpicFilters = { ...none, query: 'sync', archived: 'all' }
    applyFilters(many, { ...f, archived: 'archived' }, { states })
    expect(ids(applyFilters(many, { ...f, query: 'sync ' }, { states }))).toEqual(ids(sortedPlainly(many, f, { states })))
    const renamed = many.map((e) => (e.id === 2 ? { ...e, name: 'sync sync' } : e))
    expect(ids(applyFilters(renamed, { ...f, query: 'sync s' }, { states }))).toEqual(ids(sortedPlainly(renamed, { ...f, query: 'sync s' }, { states })))
  })

  it('asks the index only after the text, with how many epics the text matched', () => {
    const asked: number[] = []
    const found = applyFilters(many, { ...none, query: 'search', archived: 'all' }, { states, ranked: (n) => (asked.push(n), null) })
    expect(asked).toEqual([found.length])
    expect(applyFilters(many, none, { states, ranked: () => (asked.push(-1), null) }).length).toBeGreaterThan(0)
    expect(asked).toEqual([found.length])
  })

  it('asks the index for a word of three letters or more that the text finds in fewer than 20 epics, never for an id', () => {
    expect(asksIndex('epik', 0)).toBe(true)
    expect(asksIndex('  epik 12 ', 19)).toBe(true)
    expect(asksIndex('epik', 20)).toBe(false)
    expect(asksIndex('ep', 0)).toBe(false)
    expect(asksIndex('#123', 0)).toBe(false)
    expect(asksIndex('4242', 0)).toBe(false)
  })

  it('follows a change of the states for the state sort', () => {
    const f: EpicFilters = { ...none, sort: 'state', dir: 'asc', archived: 'all' }
    const swapped = new Map<string, CachedEpicState>([
      ['1', { ...states.get('1')!, position: 3 }],
      ['2', states.get('2')!],
    ])
    applyFilters(many, f, { states })
    expect(ids(applyFilters(many, f, { states: swapped }))).toEqual(ids(sortedPlainly(many, f, { states: swapped })))
  })
})
