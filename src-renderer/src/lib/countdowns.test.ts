import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Countdowns } from './countdowns.ts'

describe('countdowns that can be held (the notices’ time)', () => {
  let out: string[]
  let countdowns: Countdowns<string>
  beforeEach(() => {
    vi.useFakeTimers()
    out = []
    countdowns = new Countdowns<string>((key) => out.push(key), 2_000)
  })
  afterEach(() => vi.useRealTimers())

  it('runs each out after its time', () => {
    countdowns.start('a', 4_500)
    vi.advanceTimersByTime(1_000)
    countdowns.start('b', 4_500)
    vi.advanceTimersByTime(3_499)
    expect(out).toEqual([])
    vi.advanceTimersByTime(1)
    expect(out).toEqual(['a'])
    vi.advanceTimersByTime(1_000)
    expect(out).toEqual(['a', 'b'])
  })

  it('stands still while held, for as long as any reason holds it, then goes on with what was left', () => {
    countdowns.start('a', 4_500)
    vi.advanceTimersByTime(1_500)
    countdowns.hold('pointer')
    countdowns.hold('focus')
    vi.advanceTimersByTime(60_000)
    countdowns.release('pointer')
    vi.advanceTimersByTime(60_000)
    expect(out).toEqual([])
    countdowns.release('focus')
    vi.advanceTimersByTime(2_999)
    expect(out).toEqual([])
    vi.advanceTimersByTime(1)
    expect(out).toEqual(['a'])
  })

  it('leaves at least a moment to one that had almost run out, and holds one started while held', () => {
    countdowns.start('a', 4_500)
    vi.advanceTimersByTime(4_400)
    countdowns.hold('pointer')
    countdowns.start('b', 4_500)
    vi.advanceTimersByTime(10_000)
    countdowns.release('pointer')
    vi.advanceTimersByTime(1_999)
    expect(out).toEqual([])
    vi.advanceTimersByTime(1)
    expect(out).toEqual(['a'])
    vi.advanceTimersByTime(2_500)
    expect(out).toEqual(['a', 'b'])
  })

  it('forgets a stopped one, and a release without a hold changes nothing', () => {
    countdowns.start('a', 1_000)
    countdowns.stop('a')
    countdowns.release('pointer')
    vi.advanceTimersByTime(5_000)
    expect(out).toEqual([])
  })
})
