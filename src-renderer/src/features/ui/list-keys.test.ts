// The list screens' keys: moves clamped to the list, a page of ten rows, the ends, a grid's rows and
// items, the keys that open, and what a screen adds.
import { describe, expect, it } from 'vitest'
import { onListKey, type ListKeys } from './list-keys.ts'

function press(key: string, modifiers: Partial<Pick<KeyboardEvent, 'altKey' | 'ctrlKey' | 'metaKey'>> = {}) {
  const event = {
    key,
    altKey: false,
    ctrlKey: false,
    metaKey: false,
    ...modifiers,
    defaultPrevented: false,
    preventDefault: () => (event.defaultPrevented = true),
  }
  return event as unknown as KeyboardEvent & { defaultPrevented: boolean }
}

function list(count: number, extra: Partial<ListKeys> = {}) {
  const state = { active: 0, opened: [] as string[] }
  const keys: ListKeys = { count: () => count, active: () => state.active, moveTo: (i) => (state.active = i), open: (key) => state.opened.push(key), ...extra }
  return { state, keys, press: (key: string, modifiers = {}) => onListKey(press(key, modifiers), keys) }
}

describe('the keys of a list', () => {
  it('moves one row, ten, or to an end, within the list', () => {
    const { state, press } = list(25)
    press('j')
    press('ArrowDown')
    expect(state.active).toBe(2)
    press('k')
    expect(state.active).toBe(1)
    press('PageDown')
    expect(state.active).toBe(11)
    press('PageDown')
    press('PageDown')
    expect(state.active).toBe(24)
    press('ArrowDown')
    expect(state.active).toBe(24)
    press('Home')
    expect(state.active).toBe(0)
    press('ArrowUp')
    expect(state.active).toBe(0)
    press('End')
    expect(state.active).toBe(24)
  })

  it('opens with Enter and the keys the screen adds, and leaves every other key and every modified one alone', () => {
    const { state, press } = list(3, { openKeys: ['o'] })
    expect(press('Enter')).toBe(true)
    expect(press('o')).toBe(true)
    expect(press(' ')).toBe(false)
    expect(press('x')).toBe(false)
    expect(press('j', { ctrlKey: true })).toBe(false)
    expect(state.opened).toEqual(['Enter', 'o'])
    expect(state.active).toBe(0)
  })

  it('in a grid, moves a row of the grid up and down and one item sideways; in a list, not sideways', () => {
    let grid = true
    const { state, press } = list(20, { columns: () => (grid ? 4 : 1), sideways: () => grid })
    press('ArrowDown')
    expect(state.active).toBe(4)
    press('l')
    press('ArrowRight')
    expect(state.active).toBe(6)
    press('h')
    expect(state.active).toBe(5)
    grid = false
    expect(press('ArrowRight')).toBe(false)
    press('j')
    expect(state.active).toBe(6)
  })

  it('takes a key on an empty list without moving, and hands a screen what it does not know', () => {
    const seen: string[] = []
    const { state, press } = list(0, { other: (event) => (seen.push(event.key), event.key === 'e') })
    expect(press('j')).toBe(true)
    expect(state.active).toBe(0)
    expect(press('e')).toBe(true)
    expect(press('q')).toBe(false)
    expect(seen).toEqual(['e', 'q'])
  })
})
