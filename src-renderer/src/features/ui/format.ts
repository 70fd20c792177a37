// How times, dates and sizes read in the screens.
import { dateWithYear, fullTime } from '../../lib/format.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

// One formatter per wording, made once: toLocaleDateString and toLocaleString
// build a new one at every call, and the epics list formats a few dates a row.
// The ones the shell uses too are lib/format.ts's.
const DAY_MONTH = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' })

/** "just now", "5 min ago", "3 h ago", "yesterday", "12 Mar", "12 Mar 2023". */
export function relativeTime(iso: string | number | null | undefined, now = Date.now()): string {
  if (iso === null || iso === undefined || iso === '') return ''
  const t = typeof iso === 'number' ? iso : Date.parse(iso)
  if (!Number.isFinite(t)) return ''
  const ago = now - t
  if (ago < 45_000 && ago > -45_000) return 'just now'
  if (ago > 0 && ago < HOUR) return `${Math.round(ago / MINUTE)} min ago`
  if (ago > 0 && ago < DAY) return `${Math.round(ago / HOUR)} h ago`
  if (ago > 0 && ago < 2 * DAY) return 'yesterday'
  if (ago > 0 && ago < 7 * DAY) return `${Math.round(ago / DAY)} days ago`
  return shortDate(t, now)
}

export function shortDate(value: string | number | null | undefined, now = Date.now()): string {
  if (value === null || value === undefined || value === '') return ''
  const d = new Date(typeof value === 'number' ? value : Date.parse(value))
  if (Number.isNaN(d.getTime())) return ''
  const sameYear = d.getFullYear() === new Date(now).getFullYear()
  return sameYear ? DAY_MONTH.format(d) : dateWithYear(d)
}

export function fullDateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return ''
  const d = new Date(typeof value === 'number' ? value : Date.parse(value))
  if (Number.isNaN(d.getTime())) return ''
  return fullTime(d)
}

/** A stored timestamp as the value of an <input type="date"> (local calendar day). */
export function toDateInput(value: string | null | undefined): string {
  if (!value) return ''
  const d = new Date(value)
  if (Number.isNaN(d.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
}

/** An <input type="date"> value as the timestamp the service stores (noon UTC keeps the day in every zone). */
export function fromDateInput(value: string): string | null {
  if (!value) return null
  return `${value}T12:00:00Z`
}

export function fileSize(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return ''
  if (bytes < 1024) return `${bytes} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = bytes / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`
}

/** Deadline wording: "Due in 3 days", "Overdue by 2 days", "Due today". */
export function dueLabel(iso: string | null | undefined, now = Date.now()): { text: string; overdue: boolean } | null {
  if (!iso) return null
  const t = Date.parse(iso)
  if (!Number.isFinite(t)) return null
  const startOfDay = (ms: number) => {
    const d = new Date(ms)
    d.setHours(0, 0, 0, 0)
    return d.getTime()
  }
  const days = Math.round((startOfDay(t) - startOfDay(now)) / DAY)
  if (days === 0) return { text: 'Due today', overdue: false }
  if (days === 1) return { text: 'Due tomorrow', overdue: false }
  if (days > 1) return { text: days < 14 ? `Due in ${days} days` : `Due ${shortDate(t, now)}`, overdue: false }
  return { text: days === -1 ? 'Overdue by 1 day' : `Overdue by ${-days} days`, overdue: true }
}
