// Backoff bounds and the two forms of Retry-After.
import { describe, expect, it } from 'vitest'
import { backoffMs, retryAfterMs, DEFAULT_RETRY } from './retry.ts'

describe('backoffMs', () => {
  it('doubles from the base, stays between half and all of it, and is capped', () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 }
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(policy, n, () => 0))).toEqual([50, 100, 200, 400, 500])
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(policy, n, () => 1))).toEqual([100, 200, 400, 800, 1000])
  })
})

describe('retryAfterMs', () => {
  const now = Date.parse('2026-03-01T12:00:00Z')
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('3', now)).toBe(3000)
    expect(retryAfterMs(['0'], now)).toBe(0)
    expect(retryAfterMs('Sun, 01 Mar 2026 12:00:07 GMT', now)).toBe(7000)
    expect(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0)
    expect(retryAfterMs(undefined, now)).toBeUndefined()
    expect(retryAfterMs('soon', now)).toBeUndefined()
    expect(retryAfterMs('-5', now)).toBeUndefined()
  })
})
