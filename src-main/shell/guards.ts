// What the window and its session refuse: navigation away from the app, new
// windows, permission requests (camera, notifications, geolocation...),
// downloads started by the page, and <webview>. Links to http(s) open in the
// OS browser instead. The functions take the parts of Electron's Session and
// WebContents they use, so a test hands them recording fakes.
import type { Session, WebContents } from 'electron'

export type SessionLike = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'setDevicePermissionHandler'> & {
  on(event: 'will-download', listener: (event: { preventDefault(): void }) => void): unknown
}

export type ContentsLike = Pick<WebContents, 'setWindowOpenHandler'> & {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: { preventDefault(): void }, url: string) => void): unknown
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown
}

/** Only web pages leave the app, and only to the OS browser: never file:, javascript:, or a custom scheme. */
export function isExternalWebLink(url: string): boolean {
  try {
    const { protocol } = new URL(url)
    return protocol === 'https:' || protocol === 'http:'
  } catch {
    return false
  }
}

export function installSessionGuards(session: SessionLike): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.setPermissionCheckHandler(() => false)
  session.setDevicePermissionHandler(() => false)
  session.on('will-download', (event) => event.preventDefault())
}

export interface ContentsGuardOptions {
  /** `shell.openExternal`. */
  openExternal: (url: string) => unknown
}

export function installContentsGuards(contents: ContentsLike, options: ContentsGuardOptions): void {
  const openIfWeb = (url: string) => {
    if (isExternalWebLink(url)) void Promise.resolve(options.openExternal(url)).catch(() => undefined)
  }
  // The app never navigates its window: routes change in-page. A clicked link
  // to the web opens in the OS browser; anything else is dropped.
  contents.on('will-navigate', (event, url) => {
    event.preventDefault()
    openIfWeb(url)
  })
  contents.on('will-redirect', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    openIfWeb(url)
    return { action: 'deny' }
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
}
