import { describe, expect, it } from 'vitest'
import { TimeLeft, timeLeftWords } from './time-left.ts'

describe('the time a download has left', () => {
  it('is the rest at the rate seen since its first progress, once there is a rate', () => {
    const left = new TimeLeft()
    expect(left.next('epics', 0, 1_000, 10_000)).toBeNull()
    // Too soon to tell.
    expect(left.next('epics', 1_000, 1_500, 10_000)).toBeNull()
    // 2,000 epics in 4 s: 500 a second, 7,000 to go.
    expect(left.next('epics', 4_000, 3_000, 10_000)).toBe(14_000)
    expect(left.next('epics', 10_000, 10_000, 10_000)).toBe(0)
  })

  it('keeps each kind at its own pace, and starts again with a download begun again', () => {
    const left = new TimeLeft()
    left.next('epics', 0, 0, 10_000)
    left.next('docs', 0, 0, 2_000)
    expect(left.next('docs', 4_000, 1_000, 2_000)).toBe(4_000)
    expect(left.next('epics', 4_000, 400, 10_000)).toBe(96_000)
    // The epics began again (a cursor the service forgot): no rate until it is seen anew.
    expect(left.next('epics', 5_000, 100, 10_000)).toBeNull()
    expect(left.next('epics', 9_000, 2_100, 10_000)).toBe(15_800)
    left.reset()
    expect(left.next('docs', 10_000, 1_500, 2_000)).toBeNull()
  })

  it('says nothing while nothing came yet', () => {
    const left = new TimeLeft()
    left.next('files', 0, 0, 1_000)
    expect(left.next('files', 5_000, 0, 1_000)).toBeNull()
  })

  it('is said in words a person would use', () => {
    expect(timeLeftWords(4_000)).toBe('a few seconds left')
    expect(timeLeftWords(37_000)).toBe('about 35 s left')
    expect(timeLeftWords(14_000)).toBe('about 15 s left')
    expect(timeLeftWords(150_000)).toBe('about 3 min left')
    expect(timeLeftWords(2.5 * 3_600_000)).toBe('about 2.5 h left')
  })
})
