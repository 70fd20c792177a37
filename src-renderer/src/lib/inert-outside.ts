// While a menu is open, the rest of the window is out of reach (the `inert`
// attribute): the keyboard stays in the menu, a click beside it only closes it
// (the click passes through what is inert), and what the menu half covers is no
// longer a target a pointer could half hit. The menu's own siblings (its button)
// stay live, and so do live regions, which must still be heard. A Svelte action.

export function inertOutside(node: HTMLElement): { destroy(): void } {
  const made: HTMLElement[] = []
  for (let at = node.parentElement; at && at !== document.body; at = at.parentElement) {
    for (const sibling of Array.from(at.parentElement?.children ?? [])) {
      if (sibling === at || !(sibling instanceof HTMLElement) || sibling.inert || sibling.matches('[aria-live], script, style')) continue
      sibling.inert = true
      made.push(sibling)
    }
  }
  return {
    destroy() {
      for (const element of made) element.inert = false
    },
  }
}
