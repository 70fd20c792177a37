// The light probe used while offline: one HEAD request to the root of the
// service. Any HTTP answer, even a 404 or a 503, means the network reaches the
// service; only a network error or a timeout means it does not.
import { request, type Dispatcher } from 'undici'

export interface ProbeOptions {
  /** The current account's base URL; without one there is nothing to reach. */
  baseUrl: () => string | undefined
  timeoutMs?: number
  dispatcher?: Dispatcher
}

export function httpProbe(options: ProbeOptions): () => Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? 5_000
  return async () => {
    const baseUrl = options.baseUrl()
    if (!baseUrl) return true
    try {
      const answer = await request(new URL('/', baseUrl), {
        method: 'HEAD',
        dispatcher: options.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      })
      await answer.body.dump()
      return true
    } catch {
      return false
    }
  }
}
