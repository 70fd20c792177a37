// Small, locale-aware wording for times and sizes the shell shows.

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })
// One formatter per wording, made when first needed and shared by the shell and the screens
// (features/ui/format.ts): toLocaleDateString and toLocaleString build a new one at every call.
let withYear: Intl.DateTimeFormat | undefined
let dateAndTime: Intl.DateTimeFormat | undefined
let names: Intl.ListFormat | undefined

/** "just now", "2 minutes ago", "yesterday": `at` and `now` in epoch ms. */
export function timeAgo(at: number, now: number = Date.now()): string {
  const seconds = Math.round((at - now) / 1000)
  const abs = Math.abs(seconds)
  if (abs < 45) return 'just now'
  if (abs < 45 * 60) return rtf.format(Math.round(seconds / 60), 'minute')
  if (abs < 22 * 3600) return rtf.format(Math.round(seconds / 3600), 'hour')
  if (abs < 26 * 86400) return rtf.format(Math.round(seconds / 86400), 'day')
  return dateWithYear(at)
}

/** "12 Mar 2023", in the user's locale's words and order. */
export function dateWithYear(at: number | Date): string {
  return (withYear ??= new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' })).format(at)
}

/** A full date and time for tooltips. */
export function fullTime(at: number | Date): string {
  return (dateAndTime ??= new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })).format(at)
}

/** "1 change", "3 changes". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? one : many}`
}

/** The host of a base URL ("api.example.com", "127.0.0.1:4100"); the text itself when it is no URL. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/** True for addresses that never leave this computer. */
export function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname
    return host === 'localhost' || host === '[::1]' || /^127\./.test(host)
  } catch {
    return false
  }
}

/** "Desktop and Web", "Desktop, Mobile and Web": names as a sentence says them, in the user's locale. */
export function listOf(items: readonly string[]): string {
  return (names ??= new Intl.ListFormat(undefined, { style: 'long', type: 'conjunction' })).format(items)
}
