// When to try again: exponential backoff with jitter, and the service's Retry-After.

export interface RetryPolicy {
  /** Attempts in all (the first one included) for network errors, timeouts and 5xx. */
  attempts: number
  /** Attempts in all when the service answers 429 (those requests were not processed). */
  rateLimitedAttempts: number
  baseDelayMs: number
  maxDelayMs: number
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, rateLimitedAttempts: 8, baseDelayMs: 500, maxDelayMs: 15_000 }

/**
 * The pause before attempt `failures + 1`: base * 2^(failures - 1), capped, then
 * "equal jitter" (between half and all of it) so that clients that failed
 * together do not come back together.
 */
export function backoffMs(policy: RetryPolicy, failures: number, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1))
  return Math.round(ceiling / 2 + random() * (ceiling / 2))
}

/** Retry-After in milliseconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (value === undefined || value.trim() === '') return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // An HTTP date names its day and month; Date.parse alone would take "-5" for a year.
  const date = /^[a-z]{3},/i.test(text) ? Date.parse(text) : Number.NaN
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}
