// Keyboard wording and matching that depend on the platform: ⌘ on macOS,
// Ctrl elsewhere, and whether a key press lands in a text field (where plain
// letters are typing, not shortcuts).

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)

/** The primary modifier's label: ⌘ or Ctrl. */
export const MOD = isMac ? '⌘' : 'Ctrl'

/** Cmd on macOS, Ctrl elsewhere. */
export function hasMod(event: KeyboardEvent): boolean {
  return isMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey
}

/** True when the key press is typing into a field, an editor or a select. */
export function isTyping(event: KeyboardEvent): boolean {
  const target = event.target
  if (typeof HTMLElement === 'undefined' || !(target instanceof HTMLElement)) return false
  if (target.isContentEditable) return true
  const tag = target.tagName
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true
  if (tag === 'INPUT') {
    const type = (target as HTMLInputElement).type
    return !['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'].includes(type)
  }
  return false
}

/** Splits a shortcut like "Mod+K" or "g e" into labels for <kbd>. */
export function shortcutKeys(shortcut: string): string[] {
  if (shortcut.includes(' ')) return shortcut.split(' ').map((k) => k.toUpperCase())
  return shortcut
    .split('+')
    .map((k) => (k === 'Mod' ? MOD : k === 'Shift' ? (isMac ? '⇧' : 'Shift') : k === 'Alt' ? (isMac ? '⌥' : 'Alt') : k.length === 1 ? k.toUpperCase() : k))
}
