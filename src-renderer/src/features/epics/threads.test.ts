import { describe, expect, it } from 'vitest'
import type { CachedComment } from '../../data/types.ts'
import { threadsOf } from './threads.ts'

const comment = (id: CachedComment['id'], fields: Partial<CachedComment> = {}): CachedComment => ({
  id,
  epic_id: 1,
  parent_id: null,
  author_id: 'member-1',
  text: `Comment ${String(id)}`,
  deleted: false,
  external_id: null,
  created_at: `2024-01-01T00:00:${String(typeof id === 'number' ? id : 59).padStart(2, '0')}Z`,
  updated_at: '2024-01-01T00:00:00Z',
  slim: false,
  ...fields,
})

/** What the epic lists leave of a comment until the epic is opened online. */
const slim = (id: number): CachedComment => comment(id, { author_id: null, created_at: '', updated_at: '', slim: true })

const ids = (list: CachedComment[]) => list.map((c) => c.id)

describe('threadsOf', () => {
  it('puts replies under their parent, oldest first', () => {
    const t = threadsOf([comment(3, { parent_id: 1 }), comment(1), comment(2), comment(4, { parent_id: 1 })])
    expect(ids(t.roots)).toEqual([1, 2])
    expect(ids(t.replies.get('1') ?? [])).toEqual([3, 4])
    expect(t.unloaded).toBe(0)
  })

  it('shows a reply whose parent is missing at the top level', () => {
    expect(ids(threadsOf([comment(5, { parent_id: 99 })]).roots)).toEqual([5])
  })

  it('keeps slim comments (no time yet) in the order the service numbered them, and counts them', () => {
    // A comment that arrived with a later sync is slim next to loaded ones: it still goes last.
    const t = threadsOf([slim(12), comment(10), slim(11), comment(9)])
    expect(ids(t.roots)).toEqual([9, 10, 11, 12])
    expect(t.unloaded).toBe(2)
  })

  it('puts comments written here, not yet sent, after the service’s, by when they were written', () => {
    const later = comment('local:00000000-0000-4000-8000-000000000002', { created_at: '2024-01-02T00:00:00Z' })
    const sooner = comment('local:00000000-0000-4000-8000-000000000001', { created_at: '2024-01-01T12:00:00Z' })
    expect(ids(threadsOf([later, comment(7), sooner, slim(8)]).roots)).toEqual([7, 8, sooner.id, later.id])
  })
})
