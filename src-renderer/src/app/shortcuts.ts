// The keyboard: Ctrl/Cmd+K for the palette, Ctrl/Cmd+1..4 for the sections,
// two-key "g e" / "g d" / "g f" moves, `c` for a new epic, `/` to search, `?`
// for the list, Esc to close what is open. Plain letters never fire while the
// user types in a field, and the screens' own keys go first (a handler that
// called preventDefault wins).
import { hasMod, isTyping } from '../lib/keys.ts'

export interface ShortcutActions {
  run(commandId: string): void
  /** Closes the top-most overlay; false when nothing was open. */
  escape(): boolean
}

/** The second key of a "g _" sequence, by command. */
const GO: Record<string, string> = {
  e: 'go-epics',
  d: 'go-docs',
  f: 'go-files',
  o: 'go-objectives',
  c: 'go-categories',
  t: 'go-teams',
  s: 'go-settings',
  p: 'toggle-pending',
}

const SECTIONS = ['go-epics', 'go-docs', 'go-files', 'go-objectives']

/** How long the "g" of a sequence waits for its second key (ms). */
const SEQUENCE_MS = 1_200

export function keyboardShortcuts(actions: ShortcutActions): (event: KeyboardEvent) => void {
  let pendingG = 0

  return (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.isComposing) return
    const key = event.key

    if (key === 'Escape') {
      if (actions.escape()) event.preventDefault()
      return
    }

    if (hasMod(event) && !event.altKey) {
      const lower = key.toLowerCase()
      if (lower === 'k' && !event.shiftKey) {
        event.preventDefault()
        actions.run('palette')
        return
      }
      if (/^[1-4]$/.test(key) && !event.shiftKey) {
        event.preventDefault()
        actions.run(SECTIONS[Number(key) - 1])
        return
      }
      return
    }

    if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event)) return

    if (pendingG && Date.now() - pendingG < SEQUENCE_MS) {
      pendingG = 0
      const command = GO[key.toLowerCase()]
      if (command) {
        event.preventDefault()
        actions.run(command)
      }
      return
    }
    pendingG = 0

    switch (key) {
      case 'g':
        pendingG = Date.now()
        return
      case 'c':
        event.preventDefault()
        actions.run('new-epic')
        return
      case 'C':
        event.preventDefault()
        actions.run('new-doc')
        return
      case '/':
        event.preventDefault()
        actions.run('find')
        return
      case '?':
        event.preventDefault()
        actions.run('shortcuts')
        return
    }
  }
}
