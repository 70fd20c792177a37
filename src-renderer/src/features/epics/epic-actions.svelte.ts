// Single-key actions on an epic, as Linear has them: on the open epic, or on
// the row selected in the list (which opens it, then acts). The same actions
// are commands of the palette and are listed under `?`. A key does nothing
// while the person types in a field.
import { isTyping } from '../../lib/keys.ts'

export type EpicAction = 'state' | 'owners' | 'labels' | 'health' | 'description' | 'archive'

export interface EpicActionKey {
  action: EpicAction
  /** As the palette and `?` show it (shortcutKeys' notation). */
  key: string
  title: string
}

export const EPIC_ACTION_KEYS: readonly EpicActionKey[] = [
  { action: 'state', key: 's', title: 'Change the epic’s state' },
  { action: 'owners', key: 'a', title: 'Assign owners' },
  { action: 'labels', key: 'l', title: 'Change labels' },
  { action: 'health', key: 'h', title: 'Update health' },
  { action: 'description', key: 'e', title: 'Edit the description' },
  { action: 'archive', key: 'Shift+A', title: 'Archive or unarchive the epic' },
]

/** The palette asks the open epic for an action with this window event (detail: the EpicAction). */
export const EPIC_ACTION_EVENT = 'outpost:epic-action'

/** The action a key press asks for, if any (not while typing, not with Ctrl, Cmd or Alt). */
export function epicActionOf(event: KeyboardEvent): EpicAction | undefined {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || isTyping(event)) return undefined
  if (event.shiftKey) return event.key === 'A' ? 'archive' : undefined
  return EPIC_ACTION_KEYS.find((k) => k.key === event.key)?.action
}

/** An action asked on the list's selected row, for the epic it opens to run once it is shown. */
export const requestedAction = $state<{ value: EpicAction | null }>({ value: null })
