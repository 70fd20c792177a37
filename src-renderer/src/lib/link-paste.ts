// A link to an epic or a doc pasted into a search box opens the item instead
// of searching for the link's text. Who opens links (the shell: app/links.ts)
// says so here; the screens' search boxes only pass their pastes on.
import { parseItemLink } from '../../../src-shared/links.ts'

let opener: ((url: string) => void) | undefined

/** The shell's way of opening a link; returns the function that takes it back. */
export function openPastedLinksWith(open: (url: string) => void): () => void {
  opener = open
  return () => {
    if (opener === open) opener = undefined
  }
}

/** For a search box's paste event: a link to an item opens it (and the box keeps its text). */
export function onLinkPaste(event: ClipboardEvent): void {
  const text = event.clipboardData?.getData('text/plain') ?? ''
  if (!opener || !parseItemLink(text)) return
  event.preventDefault()
  opener(text)
}
