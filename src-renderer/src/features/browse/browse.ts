// Objectives, categories and teams as context for epics: what each groups,
// and how far along its epics are. Pure functions over the cached lists.
import type { CachedEpic, CachedEpicState } from '../../data/types.ts'

export interface EpicProgress {
  total: number
  done: number
  started: number
}

/** How many of the epics are done or started (by their state's type), archived ones left out. */
export function progressOf(epics: readonly CachedEpic[], states: ReadonlyMap<string, CachedEpicState>): EpicProgress {
  let done = 0
  let started = 0
  let total = 0
  for (const e of epics) {
    if (e.archived) continue
    total++
    const type = states.get(String(e.epic_state_id))?.type
    if (type === 'done' || e.completed) done++
    else if (type === 'started' || e.started) started++
  }
  return { total, done, started }
}

/** Epics by objective id and by team id (as strings), in one pass over the epics. */
export function epicsByGroup(epics: readonly CachedEpic[]): { byObjective: ReadonlyMap<string, CachedEpic[]>; byTeam: ReadonlyMap<string, CachedEpic[]> } {
  const byObjective = new Map<string, CachedEpic[]>()
  const byTeam = new Map<string, CachedEpic[]>()
  const add = (map: Map<string, CachedEpic[]>, key: string, epic: CachedEpic) => {
    const list = map.get(key)
    if (list) list.push(epic)
    else map.set(key, [epic])
  }
  for (const e of epics) {
    for (const id of e.objective_ids) add(byObjective, String(id), e)
    for (const id of e.group_ids) add(byTeam, String(id), e)
  }
  return { byObjective, byTeam }
}

export function percent(p: EpicProgress): number {
  return p.total === 0 ? 0 : Math.round((p.done / p.total) * 100)
}
