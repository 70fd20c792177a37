// The app's routes live in the URL fragment (`#/epics/12`), so a reload, the
// back button and a link in a doc all land where they should, and nothing
// ever navigates the window (Electron refuses navigation). One small router,
// exported once; screens read `router.route` and call `router.go(...)`.

import { DEFAULT_HASH, hashOf, parseHash, type BrowseKind, type Route, type Section } from './routes.ts'

export { DEFAULT_HASH, hashOf, parseHash, type BrowseKind, type Route, type Section } from './routes.ts'

export class Router {
  route = $state<Route>(parseHash(typeof window === 'undefined' ? '' : window.location.hash) ?? { section: 'epics' })
  /** The raw fragment, for screens that keep their own state in it (`?q=`). */
  hash = $state(typeof window === 'undefined' ? DEFAULT_HASH : window.location.hash || DEFAULT_HASH)

  private started = false
  /** A link in the address (`#/open/<link>`) waiting for whoever opens links (the shell: app/links.ts). */
  private link: string | undefined
  private linkOpener: ((url: string) => void) | undefined

  /** Who opens `#/open/<link>` addresses; one that came before is handed over at once. */
  openLinksWith = (open: (url: string) => void): (() => void) => {
    this.linkOpener = open
    const waiting = this.link
    this.link = undefined
    if (waiting) open(waiting)
    return () => {
      if (this.linkOpener === open) this.linkOpener = undefined
    }
  }

  /** Follows the address bar (back/forward, links); returns the function that stops. */
  start = (): (() => void) => {
    if (this.started) return () => undefined
    this.started = true
    const read = () => {
      // `#/open/<link>` (the browser host's form of a deep link): the link is opened, the address is not kept.
      const opened = /^#\/open\/(.+)$/.exec(window.location.hash)
      if (opened) {
        let url = opened[1]
        try {
          url = decodeURIComponent(url)
        } catch {
          // As it came.
        }
        // Back to the screen it was on (the default one at a start), without a history entry.
        const stay = this.hash.startsWith('#/open/') ? DEFAULT_HASH : this.hash
        window.history.replaceState(window.history.state, '', stay)
        this.hash = stay
        this.route = parseHash(stay) ?? { section: 'epics' }
        if (this.linkOpener) this.linkOpener(url)
        else this.link = url
        return
      }
      const route = parseHash(window.location.hash)
      if (!route) {
        // An unknown or empty fragment: the default screen, without a history entry.
        window.history.replaceState(window.history.state, '', DEFAULT_HASH)
        this.route = { section: 'epics' }
        this.hash = DEFAULT_HASH
        return
      }
      this.route = route
      this.hash = window.location.hash
    }
    read()
    window.addEventListener('hashchange', read)
    return () => {
      this.started = false
      window.removeEventListener('hashchange', read)
    }
  }

  /** Goes to a route (a hash string or a Route). */
  go = (to: string | Route): void => {
    const hash = typeof to === 'string' ? (to.startsWith('#') ? to : `#${to}`) : hashOf(to)
    if (window.location.hash === hash) return
    window.location.hash = hash
  }

  /** True when the current route is in this section (for the sidebar). */
  isIn = (section: Section, kind?: BrowseKind): boolean =>
    this.route.section === section && (kind === undefined || (this.route.section === 'browse' && this.route.kind === kind))
}

export const router = new Router()
