import { describe, expect, it } from 'vitest'
import { Lru } from './lru.ts'

describe('the least recently used go first', () => {
  it('keeps as many entries as it may, and a read makes an entry the most recent', () => {
    const lru = new Lru<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    expect(lru.get('a')).toBe(1)
    lru.set('c', 3)
    expect(lru.get('b')).toBeUndefined()
    expect(lru.get('a')).toBe(1)
    expect(lru.get('c')).toBe(3)
  })

  it('weighs entries as told, keeps the one just set however heavy, and starts again when cleared', () => {
    const lru = new Lru<string, number[]>(5, (value) => value.length)
    lru.set('a', [1, 2])
    lru.set('b', [1, 2, 3])
    lru.set('b', [1])
    expect(lru.get('a')).toEqual([1, 2])
    lru.set('heavy', [1, 2, 3, 4, 5, 6, 7])
    expect(lru.get('a')).toBeUndefined()
    expect(lru.get('b')).toBeUndefined()
    expect(lru.get('heavy')).toHaveLength(7)
    lru.clear()
    expect(lru.get('heavy')).toBeUndefined()
    lru.set('x', [1, 2, 3, 4, 5])
    expect(lru.get('x')).toHaveLength(5)
  })
})
