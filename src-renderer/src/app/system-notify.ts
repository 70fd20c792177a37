// A notification of the system: Electron's, through the main side (a click
// comes back as a deep link, links.take); in a browser, the page's own
// Notification, when the user allowed it, whose click opens the link here.
import type { SystemNotice } from '../../../src-shared/ipc.ts'
import { BridgeError, type Bridge } from '../lib/bridge.ts'

export function systemNotifier(bridge: Bridge | undefined, openLink: (link: string) => void): (notice: SystemNotice) => void {
  return (notice) => {
    if (!bridge) return browserNotice(notice, openLink)
    bridge.call('outpost:notify.show', notice).catch((error: unknown) => {
      if (error instanceof BridgeError && error.error.kind === 'unsupported') browserNotice(notice, openLink)
    })
  }
}

function browserNotice(notice: SystemNotice, openLink: (link: string) => void): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return
  // One tag: a newer batch replaces an older one still on screen, and two windows show it once.
  const shown = new Notification(notice.title, { body: notice.body, tag: 'outpost-sync' })
  shown.onclick = () => {
    window.focus()
    openLink(notice.link)
    shown.close()
  }
}

/** Whether this shell needs the browser's permission to notify, and what it is ('granted', 'denied', 'default'). */
export function browserPermission(): NotificationPermission | undefined {
  return typeof Notification === 'undefined' ? undefined : Notification.permission
}
