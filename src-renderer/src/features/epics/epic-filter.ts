// The epics list's filters, search and sort, applied to the cached epics: a
// pure function, so 10,000 epics filter in a few milliseconds per keystroke
// and tests need no UI.
import type { CachedEpic, CachedEpicState } from '../../data/types.ts'

export type ArchivedFilter = 'active' | 'archived' | 'all'
export type SortKey = 'updated' | 'created' | 'name' | 'deadline' | 'state' | 'position'
export type SortDir = 'asc' | 'desc'

export const SORTS: { key: SortKey; label: string; dir: SortDir }[] = [
  { key: 'updated', label: 'Last updated', dir: 'desc' },
  { key: 'created', label: 'Created', dir: 'desc' },
  { key: 'name', label: 'Name', dir: 'asc' },
  { key: 'deadline', label: 'Deadline', dir: 'asc' },
  { key: 'state', label: 'State', dir: 'asc' },
  { key: 'position', label: 'Priority (position)', dir: 'asc' },
]

export interface EpicFilters {
  query: string
  states: string[]
  owners: string[]
  teams: string[]
  objectives: string[]
  archived: ArchivedFilter
  sort: SortKey
  dir: SortDir
}

const hasAny = (values: readonly (string | number)[], wanted: ReadonlySet<string>) => values.some((v) => wanted.has(String(v)))

/**
 * The epics to show, in order. A query matches words in the name and the
 * description; `ranked` (ids by relevance from the local search index) adds
 * what the index found besides (typos). With a query the list is in
 * relevance order unless the user picked a sort.
 */
export function applyFilters(
  epics: readonly CachedEpic[],
  f: EpicFilters,
  context: { states: ReadonlyMap<string, CachedEpicState>; ranked?: ReadonlyMap<string, number> | null; sortChosen?: boolean },
): CachedEpic[] {
  const states = new Set(f.states)
  const owners = new Set(f.owners)
  const teams = new Set(f.teams)
  const objectives = new Set(f.objectives)
  const q = f.query.trim().toLowerCase()
  const words = q.split(/\s+/).filter(Boolean)
  const ranked = q ? context.ranked : null
  const idQuery = /^#?\d+$/.test(q) ? q.replace('#', '') : null
  const textScore = new Map<CachedEpic, number>()

  const out: CachedEpic[] = []
  for (const e of epics) {
    if (f.archived === 'active' && e.archived) continue
    if (f.archived === 'archived' && !e.archived) continue
    if (states.size && !states.has(String(e.epic_state_id))) continue
    if (owners.size && !hasAny(e.owner_ids, owners) && !(owners.has('') && e.owner_ids.length === 0)) continue
    if (teams.size && !hasAny(e.group_ids, teams) && !(teams.has('') && e.group_ids.length === 0)) continue
    if (objectives.size && !hasAny(e.objective_ids, objectives)) continue
    if (q) {
      const byId = idQuery !== null && String(e.id) === idQuery
      const score = byId ? 3 : textMatch(e, q, words)
      if (score === 0 && !ranked?.has(String(e.id))) continue
      textScore.set(e, score)
    }
    out.push(e)
  }

  // With a query: best text matches first (id, then the name, then the description), then
  // what only the index found, unless the user picked a sort.
  if (q && !context.sortChosen) {
    const rank = (e: CachedEpic) => (textScore.get(e) ?? 0) * 1000 + (ranked?.get(String(e.id)) ?? 0)
    return out.sort((a, b) => rank(b) - rank(a) || b.updated_at.localeCompare(a.updated_at))
  }
  const sign = f.dir === 'asc' ? 1 : -1
  const stateRank = (e: CachedEpic) => context.states.get(String(e.epic_state_id))?.position ?? Number.MAX_SAFE_INTEGER
  const compare: Record<SortKey, (a: CachedEpic, b: CachedEpic) => number> = {
    updated: (a, b) => a.updated_at.localeCompare(b.updated_at),
    created: (a, b) => a.created_at.localeCompare(b.created_at),
    name: (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true }),
    // Epics without a deadline go last whichever the direction.
    deadline: (a, b) => (a.deadline ? (b.deadline ? a.deadline.localeCompare(b.deadline) : -sign) : b.deadline ? sign : 0),
    state: (a, b) => stateRank(a) - stateRank(b),
    position: (a, b) => a.position - b.position,
  }
  const by = compare[f.sort]
  return out.sort((a, b) => sign * by(a, b) || sign * compare.updated(a, b))
}


const lowered = new WeakMap<CachedEpic, { name: string; description: string }>()

/** 2 when every word is in the name, 1 when every word is in the name or the description, else 0. */
function textMatch(e: CachedEpic, q: string, words: string[]): number {
  let text = lowered.get(e)
  if (!text) lowered.set(e, (text = { name: e.name.toLowerCase(), description: e.description.toLowerCase() }))
  const { name, description } = text
  if (name.includes(q) || words.every((w) => name.includes(w))) return 2
  return words.every((w) => name.includes(w) || description.includes(w)) ? 1 : 0
}
