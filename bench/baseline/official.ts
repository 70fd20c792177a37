// The baseline's client: the official @shortcut/client package, set up as a
// careful developer would for a long job against a 200-a-minute limit.
//
// - One API token for the account, used by both generations (v3
//   ShortcutClient, v4 ShortcutV4Client): the limit is per token, so the
//   baseline gets the same budget as Outpost, not two.
// - The package has no rate limiting and no retry of its own. A 429 is not
//   processed (spec part 2 §8), so the careful thing is to wait the
//   Retry-After the service sends and send the same request again, and to hold
//   every other request meanwhile (they would only meet 429s too). v3 (axios)
//   gets that as a pair of interceptors, v4 through the client's `fetch` option.
// - Work that is one request per item goes through a small pool of 6 at a
//   time, as many as Outpost's gateway keeps in flight.
import { ShortcutClient } from '@shortcut/client'
import { ShortcutV4Client, type ShortcutV4Page } from '@shortcut/client/v4'
import type { AxiosError, InternalAxiosRequestConfig } from 'axios'
import { setTimeout as sleep } from 'node:timers/promises'

/** Requests the baseline keeps in flight for per-item work (the gateway's default concurrency). */
export const CONCURRENCY = 6

/** Everyone waits while the service has said "too many requests". */
class RateLimitPause {
  private until = 0

  async wait(): Promise<void> {
    for (let ms = this.until - Date.now(); ms > 0; ms = this.until - Date.now()) await sleep(ms)
  }

  /** A 429 came with this Retry-After (seconds; 1 when absent). */
  hold(retryAfter: string | null | undefined): void {
    const seconds = Number(retryAfter)
    this.until = Math.max(this.until, Date.now() + (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000)
  }
}

export interface Official {
  v3: ShortcutClient
  v4: ShortcutV4Client
  /** The v4 operations bound to the workspace. */
  ws: ReturnType<ShortcutV4Client['workspace']>
}

export function officialClient(baseUrl: string, token: string, workspace: string): Official {
  const pause = new RateLimitPause()

  const v3 = new ShortcutClient(token, { baseURL: baseUrl })
  v3.instance.interceptors.request.use(async (config: InternalAxiosRequestConfig) => {
    await pause.wait()
    return config
  })
  v3.instance.interceptors.response.use(undefined, async (error: AxiosError) => {
    if (error.response?.status !== 429 || !error.config) throw error
    pause.hold(error.response.headers['retry-after'] as string | undefined)
    // Through the instance again: the request interceptor waits out the pause.
    return v3.instance.request(error.config)
  })

  const politeFetch: typeof fetch = async (input, init) => {
    for (;;) {
      await pause.wait()
      const response = await fetch(input, init)
      if (response.status !== 429) return response
      pause.hold(response.headers.get('retry-after'))
      await response.body?.cancel()
    }
  }
  // The client's 30 s default deadline covers the retries too; at the real limit a pause can be a minute.
  const v4 = new ShortcutV4Client({ token, baseUrl, fetch: politeFetch, timeoutMs: 5 * 60_000 })
  return { v3, v4, ws: v4.workspace(workspace) }
}

/** Runs `work` on every item, `CONCURRENCY` at a time; results in the items' order. */
export async function eachAtMost<T, R>(items: readonly T[], work: (item: T) => Promise<R>, concurrency = CONCURRENCY): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await work(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}

/**
 * The items of a v4 list, page after page (`paginate` follows next_page_url):
 * all of them, or up to the first one `wanted` refuses (no page after it is fetched).
 */
export async function itemsOf<T>(official: Official, first: Promise<ShortcutV4Page<T>>, wanted: (item: T) => boolean = () => true): Promise<T[]> {
  const out: T[] = []
  for await (const item of official.v4.paginate(first)) {
    if (!wanted(item)) break
    out.push(item)
  }
  return out
}
