import { describe, expect, it } from 'vitest'
import { epicDraft } from '../../data/epic-fields.ts'
import type { CachedEpic } from '../../data/types.ts'
import { epicChanges, mentions } from './changes.ts'

const names = {
  state: (id: number | null) => ({ 1: 'In Progress', 2: 'Done' })[id ?? 0] ?? 'No state',
  member: (id: string) => ({ a: 'Ada Admin', b: 'Alan Kay' })[id] ?? 'Someone',
}
const epic = (fields: Partial<CachedEpic> = {}): CachedEpic => ({ ...epicDraft(), id: 12, name: 'Search', epic_state_id: 1, owner_ids: ['a'], ...fields })

describe('an epic’s changes, as a notification says them', () => {
  it('names what a person sees change, each on a line', () => {
    const after = epic({
      name: 'Search that understands typos',
      epic_state_id: 2,
      deadline: '2026-12-03T12:00:00Z',
      description: 'New',
      owner_ids: ['a', 'b'],
      archived: true,
    })
    expect(epicChanges(epic(), after, names)).toEqual([
      'Renamed from “Search”',
      'State: In Progress → Done',
      'Archived',
      expect.stringMatching(/^Deadline: .*2026/),
      'Description changed',
      'Owners: +Alan Kay',
    ])
  })

  it('says nothing when only what is not shown moved (times, position, followers)', () => {
    expect(epicChanges(epic(), epic({ updated_at: '2026-11-26T10:00:00Z', position: 3, follower_ids: ['b'] }), names)).toEqual([])
  })
})

describe('a mention', () => {
  it('is @ and the mention name, alone', () => {
    expect(mentions({ text: 'Can @ada look at this?' }, 'ada')).toBe(true)
    expect(mentions({ text: '@Ada: yes' }, 'ada')).toBe(true)
    expect(mentions({ text: 'cc @ada-lovelace' }, 'ada')).toBe(false)
    expect(mentions({ text: 'mail ada@example.com' }, 'ada')).toBe(false)
    expect(mentions({ text: 'Ada will look' }, 'ada')).toBe(false)
    expect(mentions({ text: 'anything' }, '')).toBe(false)
  })
})
