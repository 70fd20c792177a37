import { describe, expect, it } from 'vitest'
import { epicRowName, listOf } from './row-name.ts'

describe('what a screen reader says of an epic row', () => {
  it('says the name first, then state and number, every team and owner, progress and when', () => {
    expect(
      epicRowName({
        name: 'Search that understands typos',
        id: 50,
        state: 'In Review',
        archived: false,
        labels: [],
        teams: ['Desktop', 'Web'],
        progress: { done: 3, started: 0, total: 5 },
        owners: ['Alan Kay'],
        updated: '2 days ago',
      }),
    ).toBe('Search that understands typos, In Review, #50, teams Desktop and Web, 3 of 5 stories done, 0 in progress, owner Alan Kay, updated 2 days ago')
  })

  it('says a change not sent, archived, labels and the deadline, and leaves out what the epic has none of', () => {
    expect(
      epicRowName({ name: '', id: 'local-1', write: 'pending', archived: true, labels: ['offline', 'perf', 'ux'], teams: [], due: 'Overdue by 2 days', progress: { done: 0, started: 0, total: 0 }, owners: [], updated: 'just now' }),
    ).toBe('Untitled epic, new, not yet sent, archived, labels offline, perf and ux, Overdue by 2 days, updated just now')
  })

  it('lists names as a sentence does', () => {
    expect([listOf([]), listOf(['A']), listOf(['A', 'B']), listOf(['A', 'B', 'C'])]).toEqual(['', 'A', 'A and B', 'A, B and C'])
  })
})
