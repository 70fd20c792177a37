// The epics list's filters, search and sort, applied to the cached epics: a
// pure function, so 10,000 epics filter within a keystroke's frame and tests
// need no UI.
//
// Nothing is sorted per keystroke: each list of epics (a live query's answer,
// never changed in place) is sorted once per sort and kept, so a keystroke
// walks the epics already in order, and the relevance order is three buckets
// of that walk (id, name, description matches). A keystroke that adds to the
// query walks only what the last one matched.
import type { CachedEpic, CachedEpicState } from '../../data/types.ts'
import { compareText } from '../../data/epic-order.ts'

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

/** Ids (as strings) by relevance, from the local search index. */
export type Ranked = ReadonlyMap<string, number>

export interface FilterContext {
  states: ReadonlyMap<string, CachedEpicState>
  /**
   * What the local search index found for the query; or a function asking it,
   * given how many epics the text matched, so a caller asks the index only
   * when the text finds few (it answers null not to add any).
   */
  ranked?: Ranked | ((textMatches: number) => Ranked | null) | null
  sortChosen?: boolean
}

/** Results the epic list asks the local search index for, at most. */
export const INDEX_LIMIT = 200

/**
 * Whether the list asks the local search index for its typo-tolerant matches
 * besides the text's: for a query of three letters or more that is not an
 * id, when the text matched fewer than 20 epics.
 */
export function asksIndex(query: string, textMatches: number): boolean {
  const q = query.trim()
  return q.length >= 3 && !/^#?\d+$/.test(q) && textMatches < 20
}

/**
 * The epics to show, in order. A query matches words in the name and the
 * description; `ranked` adds what the index found besides (typos). With a
 * query the list is in relevance order unless the user picked a sort: the id,
 * then the name, then the description, then what only the index found (by
 * its score), the latest updated first among equals.
 */
export function applyFilters(epics: readonly CachedEpic[], f: EpicFilters, context: FilterContext): CachedEpic[] {
  const q = f.query.trim().toLowerCase()
  const relevance = q !== '' && !context.sortChosen
  const order = sortedOf(epics).order(relevance ? 'updated' : f.sort, relevance ? 'desc' : f.dir, context.states)
  const kept = keptBy(f)
  if (!q) return order.filter(kept).map((entry) => entry.epic)

  const matches = textMatches(order, f, q, kept)
  const ranked = typeof context.ranked === 'function' ? context.ranked(matches.length) : context.ranked
  if (!ranked) {
    const out: CachedEpic[] = []
    if (!relevance) for (let i = 0; i < matches.length; i++) out.push(order[matches.at[i]].epic)
    // The id's match, then the names', then the descriptions', each in the order.
    else for (let score = 3; score > 0; score--) for (let i = 0; i < matches.length; i++) if (matches.score[i] === score) out.push(order[matches.at[i]].epic)
    return out
  }

  // What only the index found joins the text matches (in the order too) at its place in the order.
  const hits: { epic: CachedEpic; rank: number }[] = []
  let next = 0
  for (let at = 0; at < order.length; at++) {
    const entry = order[at]
    const score = next < matches.length && matches.at[next] === at ? matches.score[next++] : 0
    if (score > 0 || (ranked.has(entry.id) && kept(entry))) hits.push({ epic: entry.epic, rank: score * 1000 + (ranked.get(entry.id) ?? 0) })
  }
  // A stable sort: among equal ranks the order's (the latest updated first) stays.
  if (relevance) hits.sort((a, b) => b.rank - a.rank)
  return hits.map((hit) => hit.epic)
}

/** The epics the query's text matched: their places in the order, in the order, and how each matched. */
interface Matches {
  at: Int32Array
  /** 3 (the id), 2 (the name) or 1 (the description). */
  score: Uint8Array
  length: number
}

const matchesOf = (capacity: number): Matches => ({ at: new Int32Array(capacity), score: new Uint8Array(capacity), length: 0 })
/**
 * Two sets of matches taking turns, so a keystroke makes no object per epic
 * (10,000 of them a keystroke were most of the garbage typing made): one
 * holds the last query's matches while the next query's are written to the other.
 */
const turns = [matchesOf(0), matchesOf(0)]
let turn = 0
function emptyMatches(capacity: number): Matches {
  turn = 1 - turn
  if (turns[turn].at.length < capacity) turns[turn] = matchesOf(capacity)
  turns[turn].length = 0
  return turns[turn]
}

/**
 * The last query's text matches. Typing adds to a query, and a query that
 * adds to another matches fewer epics (each of its words holds one of the
 * other's), so the next keystroke re-checks these alone, not every epic.
 */
let last: { order: readonly Entry[]; filters: string; q: string; matches: Matches } | undefined

/** The epics the filters keep whose text matches `q`, in the order. */
function textMatches(order: readonly Entry[], f: EpicFilters, q: string, kept: (entry: Entry) => boolean): Matches {
  const words = q.split(/\s+/).filter(Boolean)
  // "#12" and "12" find epic 12 by its id, whatever its text: those walk every epic.
  const idQuery = /^#?\d+$/.test(q) ? q.replace('#', '') : null
  const filters = JSON.stringify([f.archived, f.states, f.owners, f.teams, f.objectives])
  const from = idQuery === null && last !== undefined && last.order === order && last.filters === filters && q.startsWith(last.q) ? last.matches : null
  const matches = emptyMatches(from ? from.length : order.length)
  const add = (at: number, score: number) => {
    matches.at[matches.length] = at
    matches.score[matches.length++] = score
  }
  if (from) {
    for (let i = 0; i < from.length; i++) {
      const at = from.at[i]
      const score = textMatch(order[at], q, words)
      if (score > 0) add(at, score)
    }
  } else {
    for (let at = 0; at < order.length; at++) {
      const entry = order[at]
      if (!kept(entry)) continue
      const score = idQuery !== null && entry.id === idQuery ? 3 : textMatch(entry, q, words)
      if (score > 0) add(at, score)
    }
  }
  last = { order, filters, q, matches }
  return matches
}

/** Whether an epic passes the filters other than the query. */
function keptBy(f: EpicFilters): (entry: Entry) => boolean {
  const states = new Set(f.states)
  const owners = new Set(f.owners)
  const teams = new Set(f.teams)
  const objectives = new Set(f.objectives)
  const hasAny = (values: readonly (string | number)[], wanted: ReadonlySet<string>) => values.some((v) => wanted.has(String(v)))
  return ({ epic: e, archived, stateId }) => {
    if (f.archived === 'active' && archived) return false
    if (f.archived === 'archived' && !archived) return false
    if (states.size && !states.has(stateId)) return false
    if (owners.size && !hasAny(e.owner_ids, owners) && !(owners.has('') && e.owner_ids.length === 0)) return false
    if (teams.size && !hasAny(e.group_ids, teams) && !(teams.has('') && e.group_ids.length === 0)) return false
    if (objectives.size && !hasAny(e.objective_ids, objectives)) return false
    return true
  }
}

/**
 * An epic with what the walk reads of it again and again. Entries all have
 * one shape, where epics read from the cache have many: reading a field of
 * 10,000 epics in a keystroke is several times slower than of 10,000 entries.
 */
interface Entry {
  epic: CachedEpic
  id: string
  archived: boolean
  stateId: string
  /** The name, and the name and description, in lower case: made at the first query. */
  name: string | undefined
  text: string | undefined
}

/** 2 when every word is in the name, 1 when every word is in the name or the description, else 0. */
function textMatch(entry: Entry, q: string, words: readonly string[]): number {
  const name = (entry.name ??= entry.epic.name.toLowerCase())
  if (name.includes(q) || (words.length > 1 && holdsAll(name, words))) return 2
  // No word holds a line break: one is in this text only if it is in the name or in the description.
  const text = (entry.text ??= `${name}\n${entry.epic.description.toLowerCase()}`)
  return holdsAll(text, words) ? 1 : 0
}

function holdsAll(text: string, words: readonly string[]): boolean {
  for (const word of words) if (!text.includes(word)) return false
  return true
}

/** Code-unit order: for ISO timestamps (all written alike) the same as time order and localeCompare, many times faster. */
const names = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true })

/** One list of epics and its orders, each sorted once. */
class Sorted {
  readonly #entries: readonly Entry[]
  readonly #orders = new Map<string, readonly Entry[]>()
  /** The states the 'state' orders were made with. */
  #states: ReadonlyMap<string, CachedEpicState> | undefined

  constructor(epics: readonly CachedEpic[]) {
    this.#entries = epics.map((epic) => ({
      epic,
      id: String(epic.id),
      archived: epic.archived,
      stateId: String(epic.epic_state_id),
      name: undefined,
      text: undefined,
    }))
  }

  order(sort: SortKey, dir: SortDir, states: ReadonlyMap<string, CachedEpicState>): readonly Entry[] {
    if (sort === 'state' && states !== this.#states) {
      this.#orders.delete('state asc')
      this.#orders.delete('state desc')
      this.#states = states
    }
    const key = `${sort} ${dir}`
    let order = this.#orders.get(key)
    if (!order) this.#orders.set(key, (order = sortEntries(this.#entries, sort, dir, states)))
    return order
  }
}

const sorted = new WeakMap<readonly CachedEpic[], Sorted>()
function sortedOf(epics: readonly CachedEpic[]): Sorted {
  let s = sorted.get(epics)
  if (!s) sorted.set(epics, (s = new Sorted(epics)))
  return s
}

/** The epics by one sort key, then by last update, in one direction; a stable sort, so equals keep the list's order. */
function sortEntries(entries: readonly Entry[], sort: SortKey, dir: SortDir, states: ReadonlyMap<string, CachedEpicState>): Entry[] {
  const sign = dir === 'asc' ? 1 : -1
  const by = (compare: (a: CachedEpic, b: CachedEpic) => number) =>
    [...entries].sort((a, b) => sign * compare(a.epic, b.epic) || sign * compareText(a.epic.updated_at, b.epic.updated_at))
  switch (sort) {
    case 'updated':
      return by(() => 0)
    case 'created':
      return by((a, b) => compareText(a.created_at, b.created_at))
    case 'name':
      return by((a, b) => names.compare(a.name, b.name))
    // Epics without a deadline go last whichever the direction.
    case 'deadline':
      return by((a, b) => (a.deadline ? (b.deadline ? compareText(a.deadline, b.deadline) : -sign) : b.deadline ? sign : 0))
    case 'state':
      // Each epic's state looked up once, not twice per comparison.
      return entries
        .map((entry) => ({ entry, rank: states.get(String(entry.epic.epic_state_id))?.position ?? Number.MAX_SAFE_INTEGER }))
        .sort((a, b) => sign * (a.rank - b.rank) || sign * compareText(a.entry.epic.updated_at, b.entry.epic.updated_at))
        .map(({ entry }) => entry)
    case 'position':
      return by((a, b) => a.position - b.position)
  }
}
