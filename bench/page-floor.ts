// The floor of a search keystroke in the epic list (interface benchmark): what the
// browser alone takes to show other epics in the rows a keystroke rewrites,
// with no app code in the keystroke. The data-layer benchmarks' floor for
// requests is the fewest the API allows; this is the least work a keystroke
// that shows 16 other epics leaves to the browser on the machine it runs on.
//
// Like page-probes.ts, this runs in Chromium and is sent as source text
// (`inPage`): self-contained, no imports, no outer names. Unlike the probes, it
// changes the page: the app's epic list is hidden behind a copy of it.

/** What the floor holds: the rows of its copy of the list, and the rows it draws from. */
export interface Floor {
  rows: number
  seen: number
}

/**
 * Puts a copy of the epic list in the app's list's place (its DOM cloned, so
 * the app's styles and container queries apply; the app's list hidden) whose
 * search field, labelled "Floor search", rewrites every row of the copy at
 * each input event from rows the app rendered before, text by text and
 * attribute by attribute. A row keeps every part in place (EpicList.svelte),
 * so every row has one shape and the copy makes the DOM changes the app makes
 * when a keystroke shows other epics in every row: texts, classes, attributes,
 * parts shown and hidden; no node made or dropped.
 *
 * `leaveOut`: row parts (a selector inside a row) the copy's rows are without,
 * to measure a leaner row. A second call replaces the first floor.
 */
export async function installFloor(leaveOut: string | null): Promise<Floor> {
  const frame = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
  document.getElementById('floor')?.remove()
  const section = document.querySelector<HTMLElement>('section.epics')
  const scroller = section?.querySelector<HTMLElement>('.op-rows')
  if (!section || !scroller) throw new Error('floor: the epic list is not on screen')
  section.style.removeProperty('display')
  await frame()

  // Rows of some 200 epics, as the app rendered them: the list scrolled through, a screen at a time.
  const seen: Element[] = []
  for (let at = 0; at < 12; at++) {
    scroller.scrollTop = at * 1_500
    await frame()
    await frame()
    for (const row of section.querySelectorAll('[role="option"]')) seen.push(row.cloneNode(true) as Element)
  }
  scroller.scrollTop = 0
  await frame()
  await frame()

  const floor = section.cloneNode(true) as HTMLElement
  for (const element of floor.querySelectorAll('[id]')) element.id = `floor-${element.id}`
  floor.id = 'floor'
  const input = floor.querySelector<HTMLInputElement>('input[type="search"]')!
  input.setAttribute('aria-label', 'Floor search')
  input.removeAttribute('aria-controls')
  const rows = [...floor.querySelectorAll('[role="option"]')]
  if (leaveOut) for (const row of [...rows, ...seen]) for (const part of row.querySelectorAll(leaveOut)) part.remove()

  const copy = (to: Node, from: Node): void => {
    if (to instanceof Text) {
      if (to.data !== (from as Text).data) to.data = (from as Text).data
      return
    }
    if (!(to instanceof Element) || !(from instanceof Element)) return
    for (const { name, value } of from.attributes) if (name !== 'id' && to.getAttribute(name) !== value) to.setAttribute(name, value)
    for (const name of to.getAttributeNames()) if (name !== 'id' && !from.hasAttribute(name)) to.removeAttribute(name)
    const into = to.childNodes
    const of = from.childNodes
    for (let i = 0; i < into.length && i < of.length; i++) copy(into[i], of[i])
  }
  let shown = 0
  input.addEventListener('input', () => {
    shown += rows.length
    rows.forEach((row, i) => copy(row, seen[(shown + i) % seen.length]))
  })

  section.style.display = 'none'
  section.after(floor)
  await frame()
  return { rows: rows.length, seen: seen.length }
}
