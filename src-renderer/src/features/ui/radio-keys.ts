// The keys of a radio group (WAI-ARIA radio group pattern): the arrows move to the previous or next option and
// pick it, Home and End to the first and last; the focus follows. For an element with role="radiogroup" whose
// options are role="radio" buttons, attached with `{@attach radioKeys((i) => pick(i))}`.
import type { Attachment } from 'svelte/attachments'

export function radioKeys(pick: (index: number) => void): Attachment<HTMLElement> {
  return (group) => {
    const onkeydown = (event: KeyboardEvent) => {
      const radios = [...group.querySelectorAll<HTMLElement>('[role="radio"]')]
      const at = radios.indexOf(document.activeElement as HTMLElement)
      if (at < 0 || radios.length === 0) return
      const last = radios.length - 1
      const next =
        event.key === 'ArrowRight' || event.key === 'ArrowDown'
          ? at === last
            ? 0
            : at + 1
          : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
            ? at === 0
              ? last
              : at - 1
            : event.key === 'Home'
              ? 0
              : event.key === 'End'
                ? last
                : -1
      if (next < 0) return
      event.preventDefault()
      pick(next)
      radios[next].focus()
    }
    group.addEventListener('keydown', onkeydown)
    return () => group.removeEventListener('keydown', onkeydown)
  }
}
