// About how long a download has left, from how fast it has gone so far (items
// a second since its first progress seen), for the status bar: on a slow link
// "Downloading epics: 3,800 of 10,000" says little without it.

/** Too little seen before this long (ms) for a rate to mean anything. */
const SETTLE_MS = 2_000

/** Each kind's download as first seen: kinds go at once, each at its own pace. */
export class TimeLeft {
  private readonly first = new Map<string, { at: number; done: number; last: number }>()

  /** The time `kind`'s download has left at `at` (ms), at the rate seen so far; null while too little is known. */
  next(kind: string, at: number, done: number, total: number): number | null {
    const first = this.first.get(kind)
    // New, or begun again (fewer done than last time): its rate starts from here.
    if (!first || done < first.last) {
      this.first.set(kind, { at, done, last: done })
      return null
    }
    first.last = done
    if (done >= total) return 0
    const elapsed = at - first.at
    if (elapsed < SETTLE_MS || done === first.done) return null
    return ((total - done) * elapsed) / (done - first.done)
  }

  /** A download is over (or stopped): the next starts afresh. */
  reset(): void {
    this.first.clear()
  }
}

/** "about 40 s left", "about 3 min left"; rounded as a person would say it. */
export function timeLeftWords(ms: number): string {
  const seconds = ms / 1000
  if (seconds < 10) return 'a few seconds left'
  if (seconds < 60) return `about ${Math.round(seconds / 5) * 5} s left`
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `about ${minutes} min left`
  const hours = Math.round(minutes / 6) / 10
  return `about ${hours.toLocaleString()} h left`
}
