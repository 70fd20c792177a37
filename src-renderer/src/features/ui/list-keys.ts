// The keys of a list screen's rows (a listbox whose active row is
// aria-activedescendant): j and k or the arrows move the active row, Page Up
// and Page Down ten rows, Home and End to the first and the last, Enter (and
// the screen's other opening keys) open it; in a grid of `columns` the arrows
// up and down move a row of the grid, and left and right (h, l) one item.
// Attached to the listbox with `{@attach listKeys(keys)}`; what else a key
// does on a screen, the screen says in `other`. A key a screen takes from
// anywhere in the window passes `isScreenKey` first.
import type { Attachment } from 'svelte/attachments'
import { isTyping } from '../../lib/keys.ts'

export interface ListKeys {
  /** Rows in the list, as shown. */
  count(): number
  /** The active row's index (-1 or past the end when none is). */
  active(): number
  /** Makes row `index` (within the list) the active one, and scrolls it into view. */
  moveTo(index: number): void
  /** Opens the active row; `key` is the key that asked (Enter, or one of `openKeys`). */
  open(key: string): void
  /** Keys that open the active row besides Enter ('o', ' '). */
  openKeys?: readonly string[]
  /** Items in a row of a grid (default 1): the arrows up and down move that many. */
  columns?(): number
  /** Whether left and right (h, l) move one item: in a grid, not in a list. */
  sideways?(): boolean
  /** What else a key does on this list: true when it took the key. */
  other?(event: KeyboardEvent): boolean
}

/** Rows Page Up and Page Down move. */
const PAGE_ROWS = 10

/** The move a key asks for, in rows from the active one (or to an end), if it is a moving key here. */
function stepOf(key: string, keys: ListKeys): number | 'first' | 'last' | undefined {
  const columns = keys.columns?.() ?? 1
  switch (key) {
    case 'ArrowDown':
    case 'j':
      return columns
    case 'ArrowUp':
    case 'k':
      return -columns
    case 'ArrowRight':
    case 'l':
      return keys.sideways?.() ? 1 : undefined
    case 'ArrowLeft':
    case 'h':
      return keys.sideways?.() ? -1 : undefined
    case 'PageDown':
      return PAGE_ROWS * columns
    case 'PageUp':
      return -PAGE_ROWS * columns
    case 'Home':
      return 'first'
    case 'End':
      return 'last'
    default:
      return undefined
  }
}

/** Does what `event` asks of the list; true when it took the key (its default is then prevented). */
export function onListKey(event: KeyboardEvent, keys: ListKeys): boolean {
  if (event.altKey || event.ctrlKey || event.metaKey) return false
  const step = stepOf(event.key, keys)
  if (step !== undefined) {
    event.preventDefault()
    const count = keys.count()
    if (count === 0) return true
    const to = step === 'first' ? 0 : step === 'last' ? count - 1 : keys.active() + step
    keys.moveTo(Math.max(0, Math.min(count - 1, to)))
    return true
  }
  if (event.key === 'Enter' || keys.openKeys?.includes(event.key)) {
    event.preventDefault()
    keys.open(event.key)
    return true
  }
  return keys.other?.(event) ?? false
}

/** The list's keys on its listbox. */
export function listKeys(keys: ListKeys): Attachment<HTMLElement> {
  return (listbox) => {
    const onkeydown = (event: KeyboardEvent) => void onListKey(event, keys)
    listbox.addEventListener('keydown', onkeydown)
    return () => listbox.removeEventListener('keydown', onkeydown)
  }
}

/** A key pressed anywhere in the window that a screen may take: not typed into a field, no modifier, no dialog open. */
export function isScreenKey(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || isTyping(event)) return false
  return document.querySelector('[role="dialog"]') === null
}

/** What a list's search field needs of its list: the listbox, its keys, and the field's text. */
export interface SearchFieldKeys {
  listbox(): HTMLElement | undefined
  keys: ListKeys
  /** The text typed, and how to clear it. */
  text(): string
  clear(): void
}

/**
 * The keys of a list's search field: Down goes into the list, at its first row; Enter opens the active row;
 * Escape clears the text, or, when there is none, leaves the field.
 */
export function searchFieldKeys(field: SearchFieldKeys): Attachment<HTMLInputElement> {
  return (input) => {
    const onkeydown = (event: KeyboardEvent) => {
      if (event.key === 'ArrowDown') {
        event.preventDefault()
        field.listbox()?.focus()
        if (field.keys.count() > 0) field.keys.moveTo(0)
      } else if (event.key === 'Enter') {
        event.preventDefault()
        field.keys.open('Enter')
      } else if (event.key === 'Escape') {
        event.preventDefault()
        event.stopPropagation()
        if (field.text()) field.clear()
        else input.blur()
      }
    }
    input.addEventListener('keydown', onkeydown)
    return () => input.removeEventListener('keydown', onkeydown)
  }
}
