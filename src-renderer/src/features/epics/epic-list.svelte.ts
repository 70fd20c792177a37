// What the epics list shows: the search, filters and sort the user set, kept
// for the session (going into an epic and back keeps them, and the place in
// the list). epic-filter.ts applies them.
import type { OutpostDb } from '../../data/db.ts'
import { SORTS, type ArchivedFilter, type EpicFilters, type SortDir, type SortKey } from './epic-filter.ts'

export { SORTS, applyFilters, type ArchivedFilter, type EpicFilters, type SortDir, type SortKey } from './epic-filter.ts'

export class EpicListState {
  query = $state('')
  states = $state<string[]>([])
  owners = $state<string[]>([])
  teams = $state<string[]>([])
  objectives = $state<string[]>([])
  archived = $state<ArchivedFilter>('active')
  sort = $state<SortKey>('updated')
  dir = $state<SortDir>('desc')
  /** The row the keyboard is on (its epic id as a string). */
  activeId = $state<string | null>(null)
  /** Where the list was scrolled to (restored when coming back from an epic). */
  scrollOffset = 0

  get filters(): EpicFilters {
    return {
      query: this.query,
      states: this.states,
      owners: this.owners,
      teams: this.teams,
      objectives: this.objectives,
      archived: this.archived,
      sort: this.sort,
      dir: this.dir,
    }
  }

  /** How many filters narrow the list (search and the default "active" aside). */
  get activeFilterCount(): number {
    return [this.states, this.owners, this.teams, this.objectives].filter((f) => f.length > 0).length + (this.archived === 'active' ? 0 : 1)
  }

  /** True when the list is as a start shows it: nothing searched or filtered, the latest updated first. */
  get isAsStarted(): boolean {
    return this.query === '' && this.activeFilterCount === 0 && this.sort === 'updated' && this.dir === 'desc'
  }

  setSort = (key: SortKey) => {
    if (this.sort === key) {
      this.dir = this.dir === 'asc' ? 'desc' : 'asc'
      return
    }
    this.sort = key
    this.dir = SORTS.find((s) => s.key === key)?.dir ?? 'asc'
  }

  clear = () => {
    this.query = ''
    this.states = []
    this.owners = []
    this.teams = []
    this.objectives = []
    this.archived = 'active'
  }
}

/** One list state per workspace database, for the session. */
const states = new WeakMap<OutpostDb, EpicListState>()
export function epicListState(db: OutpostDb): EpicListState {
  let state = states.get(db)
  if (!state) states.set(db, (state = new EpicListState()))
  return state
}
