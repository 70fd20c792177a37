// What the shell shows over the screens: the pending-changes panel, the
// command palette, the sidebar on narrow windows. One small state class.

export class ShellUi {
  pendingOpen = $state(false)
  paletteOpen = $state(false)
  /** What the palette opens with ('' = everything; '>' = commands only). */
  paletteQuery = $state('')
  /** A conflict opened side by side (its outbox seq). */
  conflictSeq = $state<number | null>(null)

  togglePending = (): void => {
    this.pendingOpen = !this.pendingOpen
  }

  openPalette = (query = ''): void => {
    this.paletteQuery = query
    this.paletteOpen = true
  }

  closePalette = (): void => {
    this.paletteOpen = false
  }
}

export const ui = new ShellUi()
