// Keeps Tab inside a dialog while it is open, and gives focus back to what had
// it when the dialog closes: a Svelte action (`use:focusTrap`).

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"]), [contenteditable="true"]'

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.offsetParent !== null || el === document.activeElement)
}

export function focusTrap(node: HTMLElement, options: { initial?: string } = {}): { destroy(): void } {
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null
  queueMicrotask(() => {
    const first = (options.initial && node.querySelector<HTMLElement>(options.initial)) || focusables(node)[0] || node
    first.focus()
  })
  const onKey = (event: KeyboardEvent) => {
    if (event.key !== 'Tab') return
    const items = focusables(node)
    if (items.length === 0) {
      event.preventDefault()
      return
    }
    const first = items[0]
    const last = items[items.length - 1]
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault()
      first.focus()
    }
  }
  node.addEventListener('keydown', onKey)
  return {
    destroy() {
      node.removeEventListener('keydown', onKey)
      if (previous && document.contains(previous)) previous.focus()
    },
  }
}
