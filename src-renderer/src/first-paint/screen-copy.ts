// The window's last screen, painted again the moment the next start has its
// HTML and styles: before the app's code is even evaluated, so a person sees
// their epic list in the first frame rather than after the app has been run,
// mounted and laid out (about 250 ms more on a slow machine). It is a copy of
// the epic list as the window last showed it (its HTML, kept in localStorage
// under the workspace's database name, removed with the workspace), inert and
// hidden from assistive technology; the app removes it in the task that
// mounts the live screen, so the two never share a frame.
//
// It is kept only from the plain epic list (no epic, dialog, palette or panel
// open, no search typed, scrolled to the top), as the next start opens; only
// painted when that start opens the epic list of the same account with the
// same build's styles (the class names of another build would not match).
// Like the first screen's data, it holds what the rows showed (names, states,
// dates), never a token.
import { parseHash } from '../lib/routes.ts'
import { LAST_ACCOUNT_KEY, LAST_WORKSPACE_DB_KEY, readStored, readStoredJson, workspaceKey, writeStored } from '../lib/stored.ts'

/** User Timing mark: the last screen is in the document (the interface benchmark reads it). */
export const LAST_SCREEN_MARK = 'outpost:last-screen'

/** Prefix of the ids in the copy: the live app's own ids stay unique. */
export const LAST_SCREEN_ID_PREFIX = 'last-screen-'

/** What is kept: the styles it was shown with, and the app's HTML as `copyOf` cleaned it (format 1). */
interface Kept {
  format: typeof FORMAT
  styles: string
  html: string
}

const FORMAT = 1

/** Elements a copy never carries: nothing in it loads, runs or submits. */
const DROPPED = 'script, style, link, meta, base, iframe, frame, object, embed, img, picture, video, audio, source, track, canvas, template'

const keyOf = (dbName: string) => workspaceKey('last-screen', dbName)

/** The app's build, as its style sheets' addresses (hashed file names): '' when styles are not from files (a dev server). */
function stylesOf(document: Document): string {
  return [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].map((link) => link.getAttribute('href')).join(' ')
}

/**
 * True when a start at `hash` opens the screen a copy is kept of: the epic
 * list, nothing selected, nothing searched (an unknown fragment, such as the
 * browser host's key, opens the default screen: the epic list).
 */
function opensEpicList(hash: string): boolean {
  const route = parseHash(hash)
  return route === undefined || (route.section === 'epics' && route.id === undefined && !hash.includes('?'))
}

/**
 * Puts the last screen of the last workspace into `target`, if there is one
 * for this start (see above); returns it, for the app to remove as it mounts.
 * The copy was cleaned as it was kept (`copyOf`); one that holds anything
 * cleaning removes (it was changed since) is not painted.
 */
export function paintLastScreen(target: HTMLElement): HTMLElement | undefined {
  const document = target.ownerDocument
  if (!opensEpicList(document.location.hash) || readStored(LAST_ACCOUNT_KEY) === null) return undefined
  const dbName = readStored(LAST_WORKSPACE_DB_KEY)
  const kept = dbName === null ? undefined : (readStoredJson(keyOf(dbName)) as Partial<Kept> | undefined)
  const styles = stylesOf(document)
  if (!styles || kept?.format !== FORMAT || kept.styles !== styles || typeof kept.html !== 'string' || kept.html === '' || UNCLEAN.test(kept.html))
    return undefined

  const copy = document.createElement('div')
  copy.className = 'last-screen'
  // Laid out as the app's own children would be; not focusable, clickable or read out.
  copy.style.display = 'contents'
  copy.inert = true
  copy.setAttribute('aria-hidden', 'true')
  // Light or dark as the OS is: with no html[data-theme] yet, theme.css follows it by itself.
  copy.innerHTML = kept.html
  target.replaceChildren(copy)
  performance.mark(LAST_SCREEN_MARK)
  return copy
}

let replacing = false

/**
 * Mounts the app over the painted copy (start.ts). What mounts in that task
 * (the workspace's shell mounts in its microtasks, from the app's effects)
 * asks `isReplacingLastScreen` to mount whole at once, as the copy showed it,
 * rather than in parts over several tasks: a part left for later would leave
 * a frame with less on screen than the copy had.
 */
export function replaceLastScreen<T>(copy: HTMLElement, mount: () => T): T {
  copy.remove()
  replacing = true
  setTimeout(() => (replacing = false), 0)
  return mount()
}

/** True in the task that mounts the app in place of the last screen's copy (see replaceLastScreen). */
export function isReplacingLastScreen(): boolean {
  return replacing
}

/** Attributes a copy never carries: nothing in it runs, loads, submits or takes the focus. */
const DROPPED_ATTRIBUTES = new Set(['autofocus', 'src', 'srcset', 'action', 'formaction'])

/** What `copyOf` never leaves in a copy: a kept copy holding any was changed since, and is not painted. */
const UNCLEAN = new RegExp(`<(?:${DROPPED.replaceAll(', ', '|')})[\\s/>]|\\s(?:on[a-z]+|${[...DROPPED_ATTRIBUTES].join('|')})\\s*=`, 'i')

/** The HTML of `root`, cleaned to be painted as the last screen: see DROPPED, DROPPED_ATTRIBUTES; ids prefixed. */
export function copyOf(root: HTMLElement): string {
  const copy = root.cloneNode(true) as HTMLElement
  for (const element of copy.querySelectorAll(DROPPED)) element.remove()
  for (const element of copy.querySelectorAll('*')) {
    for (const { name, value } of [...element.attributes]) {
      if (name.startsWith('on') || DROPPED_ATTRIBUTES.has(name)) element.removeAttribute(name)
      else if (name === 'id') element.id = LAST_SCREEN_ID_PREFIX + value
    }
  }
  return copy.innerHTML
}

/** How long the screen stays unchanged before it is kept. */
const KEEP_AFTER_MS = 2_000

/**
 * Keeps the screen in `root` for the next start: once it has been still for a
 * moment, and as the window goes away; only while `showsEpicList()` says the
 * plain epic list is on screen. Returns the function that stops.
 */
export function keepLastScreen(root: HTMLElement, dbName: string, showsEpicList: () => boolean): () => void {
  const document = root.ownerDocument
  const window = document.defaultView!
  let timer: ReturnType<typeof setTimeout> | undefined
  const keep = () => {
    clearTimeout(timer)
    timer = undefined
    const styles = stylesOf(document)
    if (!styles || !opensEpicList(window.location.hash) || !showsEpicList() || !isPlainList(root)) return
    // Not kept (storage full or denied): the next start paints when the app has mounted.
    writeStored(keyOf(dbName), JSON.stringify({ format: FORMAT, styles, html: copyOf(root) } satisfies Kept))
  }
  const changed = new MutationObserver(() => {
    clearTimeout(timer)
    timer = setTimeout(() => keep(), KEEP_AFTER_MS)
  })
  changed.observe(root, { childList: true, subtree: true, characterData: true, attributes: true })
  const onHidden = () => document.visibilityState === 'hidden' && keep()
  window.addEventListener('pagehide', keep)
  document.addEventListener('visibilitychange', onHidden)
  timer = setTimeout(() => keep(), KEEP_AFTER_MS)
  return () => {
    clearTimeout(timer)
    changed.disconnect()
    window.removeEventListener('pagehide', keep)
    document.removeEventListener('visibilitychange', onHidden)
  }
}

/** No dialog open and the list scrolled to its top (the caller knows whether it is searched or filtered): what a start shows. */
function isPlainList(root: HTMLElement): boolean {
  if (root.querySelector('dialog[open], [aria-modal="true"], [role="dialog"], [role="alertdialog"]')) return false
  const list = root.querySelector('[role="listbox"]')
  if (!list) return false
  return [list, ...list.querySelectorAll(':scope > *')].every((element) => element.scrollTop === 0)
}
