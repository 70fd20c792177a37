// Light or dark, as the OS says. In the desktop app the main side also sends
// the native theme ('theme' event: on load and when it changes), which wins
// over the page's media query; in a browser the media query is all there is.
// The palette itself is CSS (theme.css): this only sets html[data-theme].
import type { Bridge } from '../lib/bridge.ts'

export class Theme {
  dark = $state(false)

  private media: MediaQueryList | undefined

  /** Starts following the OS and main; returns the function that stops. */
  follow = (bridge: Bridge | undefined): (() => void) => {
    this.media = window.matchMedia('(prefers-color-scheme: dark)')
    this.apply(this.media.matches)
    const onMedia = (event: MediaQueryListEvent) => this.apply(event.matches)
    this.media.addEventListener('change', onMedia)
    const stopMain = bridge?.on('outpost:theme', ({ dark }) => this.apply(dark))
    return () => {
      this.media?.removeEventListener('change', onMedia)
      stopMain?.()
    }
  }

  private apply(dark: boolean): void {
    this.dark = dark
    document.documentElement.dataset.theme = dark ? 'dark' : 'light'
  }
}

export const theme = new Theme()
