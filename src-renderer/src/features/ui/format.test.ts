import { describe, expect, it } from 'vitest'
import { dueLabel, fullDateTime, relativeTime, shortDate } from './format.ts'

const NOW = Date.parse('2024-06-15T12:00:00Z')

describe('dates as the screens word them', () => {
  it('words a date as the browser does for the user’s locale, with the year only when it is not this one', () => {
    const march = Date.parse('2024-03-12T12:00:00Z')
    const lastYear = Date.parse('2023-03-12T12:00:00Z')
    expect(shortDate(march, NOW)).toBe(new Date(march).toLocaleDateString(undefined, { day: 'numeric', month: 'short' }))
    expect(shortDate('2023-03-12T12:00:00Z', NOW)).toBe(new Date(lastYear).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }))
    expect(fullDateTime('2024-03-12T09:30:00Z')).toBe(new Date('2024-03-12T09:30:00Z').toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }))
    expect(shortDate('not a date')).toBe('')
    expect(fullDateTime(null)).toBe('')
  })

  it('says how long ago, then the date', () => {
    expect(relativeTime(NOW - 10_000, NOW)).toBe('just now')
    expect(relativeTime(NOW - 5 * 60_000, NOW)).toBe('5 min ago')
    expect(relativeTime(NOW - 3 * 3_600_000, NOW)).toBe('3 h ago')
    expect(relativeTime(NOW - 30 * 3_600_000, NOW)).toBe('yesterday')
    expect(relativeTime(NOW - 4 * 86_400_000, NOW)).toBe('4 days ago')
    expect(relativeTime(NOW - 40 * 86_400_000, NOW)).toBe(shortDate(NOW - 40 * 86_400_000, NOW))
  })

  it('words a deadline by days from today', () => {
    expect(dueLabel(new Date(NOW).toISOString(), NOW)).toEqual({ text: 'Due today', overdue: false })
    expect(dueLabel(new Date(NOW + 86_400_000).toISOString(), NOW)).toEqual({ text: 'Due tomorrow', overdue: false })
    expect(dueLabel(new Date(NOW - 2 * 86_400_000).toISOString(), NOW)).toEqual({ text: 'Overdue by 2 days', overdue: true })
    expect(dueLabel(new Date(NOW + 30 * 86_400_000).toISOString(), NOW)?.text).toBe(`Due ${shortDate(NOW + 30 * 86_400_000, NOW)}`)
  })
})
