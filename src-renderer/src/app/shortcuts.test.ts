import { describe, expect, it } from 'vitest'
import { keyboardShortcuts } from './shortcuts.ts'

/** A key press as the handler sees it (no DOM in these tests: the target is not a field). */
function press(key: string, mods: { ctrl?: boolean; meta?: boolean; shift?: boolean; alt?: boolean } = {}) {
  let prevented = false
  const event = {
    key,
    ctrlKey: !!mods.ctrl,
    metaKey: !!mods.meta,
    shiftKey: !!mods.shift,
    altKey: !!mods.alt,
    isComposing: false,
    target: null,
    get defaultPrevented() {
      return prevented
    },
    preventDefault() {
      prevented = true
    },
  }
  return event as unknown as KeyboardEvent & { defaultPrevented: boolean }
}

function harness(escapes = false) {
  const ran: string[] = []
  const handle = keyboardShortcuts({ run: (id) => ran.push(id), escape: () => escapes })
  return { ran, handle }
}

describe('keyboard shortcuts', () => {
  it('opens the palette with Ctrl+K and jumps to sections with Ctrl+1..4', () => {
    const { ran, handle } = harness()
    handle(press('k', { ctrl: true }))
    handle(press('2', { ctrl: true }))
    handle(press('4', { ctrl: true }))
    expect(ran).toEqual(['palette', 'go-docs', 'go-objectives'])
  })

  it('understands two-key moves and single keys', () => {
    const { ran, handle } = harness()
    for (const key of ['g', 'e', 'g', 'f', 'g', 'p', 'c', '/', '?']) handle(press(key))
    handle(press('C', { shift: true }))
    expect(ran).toEqual(['go-epics', 'go-files', 'toggle-pending', 'new-epic', 'find', 'shortcuts', 'new-doc'])
  })

  it('leaves keys a screen already handled, and unknown second keys, alone', () => {
    const { ran, handle } = harness()
    const handled = press('c')
    handled.preventDefault()
    handle(handled)
    handle(press('g'))
    handle(press('z'))
    handle(press('e'))
    expect(ran).toEqual([])
  })

  it('says whether Escape closed something', () => {
    const closes = harness(true)
    const nothing = harness(false)
    const a = press('Escape')
    const b = press('Escape')
    closes.handle(a)
    nothing.handle(b)
    expect(a.defaultPrevented).toBe(true)
    expect(b.defaultPrevented).toBe(false)
  })
})
