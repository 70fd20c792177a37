// The window's uncaught errors go to the main side's recent log (log.report),
// so a problem report holds them. At most a few a minute: an error in a loop
// must not flood the bridge.
import type { Bridge } from '../lib/bridge.ts'

const PER_MINUTE = 10

export function reportUncaughtErrors(bridge: Bridge, target: Window = window, now: () => number = Date.now): () => void {
  let windowStart = 0
  let sent = 0
  const send = (message: string) => {
    const t = now()
    if (t - windowStart > 60_000) {
      windowStart = t
      sent = 0
    }
    if (++sent > PER_MINUTE) return
    void bridge.call('outpost:log.report', { level: 'error', message: message.slice(0, 8000) || 'An error without a message' }).catch(() => undefined)
  }
  const onError = (event: ErrorEvent) =>
    send(event.error instanceof Error ? (event.error.stack ?? event.error.message) : `${event.message} (${event.filename}:${event.lineno})`)
  const onRejection = (event: PromiseRejectionEvent) =>
    send(`Unhandled rejection: ${event.reason instanceof Error ? (event.reason.stack ?? event.reason.message) : String(event.reason)}`)
  target.addEventListener('error', onError)
  target.addEventListener('unhandledrejection', onRejection)
  return () => {
    target.removeEventListener('error', onError)
    target.removeEventListener('unhandledrejection', onRejection)
  }
}
