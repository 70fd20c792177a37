// 200 requests a minute per token (part 2 §8): a sliding log, so no 60-second
// window ever holds more than the limit. Refused requests are not counted.

export interface RateLimit {
  max: number
  windowMs: number
}

/** Parses `200/60s`, `200/6s`, `1000/500ms` or `off`. */
export function parseRateLimit(text: string): RateLimit | 'off' {
  if (text === 'off') return 'off'
  const m = /^(\d+)\/(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim())
  if (!m) throw new Error(`--rate-limit takes N/<window> such as 200/60s, 200/6s or off; got "${text}"`)
  const unit = { ms: 1, s: 1000, m: 60_000 }[m[3] as 'ms' | 's' | 'm']
  const max = Number(m[1])
  const windowMs = Number(m[2]) * unit
  if (max < 1 || windowMs <= 0) throw new Error(`--rate-limit must allow at least one request in a positive window; got "${text}"`)
  return { max, windowMs }
}

export class RateLimiter {
  private readonly logs = new Map<string, number[]>()

  constructor(
    public limit: RateLimit | 'off',
    private readonly clock: () => number,
  ) {}

  /** Counts the request and returns 0, or returns the milliseconds until one would be allowed. */
  take(key: string): number {
    if (this.limit === 'off') return 0
    const now = this.clock()
    const { max, windowMs } = this.limit
    const log = this.logs.get(key) ?? []
    while (log.length > 0 && log[0] <= now - windowMs) log.shift()
    if (log.length >= max) {
      this.logs.set(key, log)
      return log[log.length - max] + windowMs - now
    }
    log.push(now)
    this.logs.set(key, log)
    return 0
  }
}
