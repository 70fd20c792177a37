// The shell's "find" (`/`, Ctrl/Cmd+F) goes to the current screen's search
// field when it has one; without a taker the shell opens the palette.

/** The current screen's own search field takes this (Ctrl/Cmd+F, `/`); without a taker the palette opens. */
export const FIND_EVENT = 'outpost:find'

/** Takes "find" while the screen is shown; returns the function that lets go (an $effect's cleanup). */
export function takeFind(focus: () => void): () => void {
  const onfind = (event: Event) => {
    event.preventDefault()
    focus()
  }
  window.addEventListener(FIND_EVENT, onfind)
  return () => window.removeEventListener(FIND_EVENT, onfind)
}
