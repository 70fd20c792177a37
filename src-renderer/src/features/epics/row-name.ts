// What a screen reader says of an epic in the list, as a sentence in the order
// a listener wants it: the name first (so voice control finds the row by what
// it shows, and arrowing down a list one hears names), then its state, number
// and what the row shows of it, every team and label named (the row shows the
// first team and "+1"). Plain functions.

export interface RowFacts {
  name: string
  id: string | number
  state?: string
  /** The worst state of its queued changes, if any. */
  write?: 'pending' | 'failed' | 'conflict'
  archived: boolean
  labels: readonly string[]
  teams: readonly string[]
  /** "Due in 3 days", "Overdue by 2 days". */
  due?: string
  progress?: { done: number; started: number; total: number }
  owners: readonly string[]
  /** "2 days ago", "just now". */
  updated: string
}

const WRITE = { pending: 'not yet sent', failed: 'its change failed', conflict: 'its change conflicts' } as const

/** "A and B", "A, B and C". */
export function listOf(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

/** "Search that understands typos, In Review, #50, teams Desktop and Web, 3 of 5 stories done, 0 in progress, owner Alan Kay, updated 2 days ago". */
export function epicRowName(f: RowFacts): string {
  return [
    f.name || 'Untitled epic',
    f.state,
    typeof f.id === 'number' ? `#${f.id}` : 'new',
    f.write && WRITE[f.write],
    f.archived && 'archived',
    f.labels.length > 0 && `${f.labels.length === 1 ? 'label' : 'labels'} ${listOf(f.labels)}`,
    f.teams.length > 0 && `${f.teams.length === 1 ? 'team' : 'teams'} ${listOf(f.teams)}`,
    f.due,
    f.progress && f.progress.total > 0 && `${f.progress.done} of ${f.progress.total} stories done, ${f.progress.started} in progress`,
    f.owners.length > 0 && `${f.owners.length === 1 ? 'owner' : 'owners'} ${listOf(f.owners)}`,
    `updated ${f.updated}`,
  ]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .join(', ')
}
