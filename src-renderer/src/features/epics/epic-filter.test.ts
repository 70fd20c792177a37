import { describe, expect, it } from 'vitest'
import type { CachedEpic, CachedEpicState } from '../../data/types.ts'
import { applyFilters, type EpicFilters } from './epic-filter.ts'

const epic = (id: number, fields: Partial<CachedEpic> = {}): CachedEpic => ({
  id,
  name: `Epic ${id}`,
  description: '',
  archived: false,
  epic_state_id: 1,
  started: false,
  completed: false,
  started_at: null,
  completed_at: null,
  deadline: null,
  planned_start_date: null,
  owner_ids: [],
  follower_ids: [],
  group_ids: [],
  objective_ids: [],
  label_ids: [],
  requested_by_id: null,
  external_id: null,
  position: id,
  app_url: '',
  created_at: `2024-01-${String(id).padStart(2, '0')}T00:00:00Z`,
  updated_at: `2024-02-${String(id).padStart(2, '0')}T00:00:00Z`,
  ...fields,
})

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
    const many = Array.from({ length: 10_000 }, (_, i) => epic(i + 1, { name: `Epic ${i + 1} about ${i % 7 === 0 ? 'search' : 'sync'}`, description: 'x'.repeat(200) }))
    const found = applyFilters(many, { ...none, query: 'search' }, { states })
    expect(found.length).toBe(Math.ceil(10_000 / 7))
  })
})
