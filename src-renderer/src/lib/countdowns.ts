// Timers that can be held: each runs out after its time, but not while
// something holds them all (the pointer over the notices, the focus in them).
// Once nothing holds them, each has what it had left, and at least `least`.

export class Countdowns<K> {
  private readonly running = new Map<K, { left: number; since: number; timer: ReturnType<typeof setTimeout> | undefined }>()
  private readonly holds = new Set<string>()

  constructor(
    private readonly out: (key: K) => void,
    private readonly least: number,
  ) {}

  /** Starts `key`'s countdown of `ms` (held at once while something holds). */
  start(key: K, ms: number): void {
    this.stop(key)
    const countdown = { left: ms, since: Date.now(), timer: undefined }
    this.running.set(key, countdown)
    if (this.holds.size === 0) this.run(key)
  }

  /** Forgets `key`'s countdown. */
  stop(key: K): void {
    clearTimeout(this.running.get(key)?.timer)
    this.running.delete(key)
  }

  /** Holds every countdown, for `why` (one of several reasons). */
  hold(why: string): void {
    if (this.holds.has(why)) return
    this.holds.add(why)
    if (this.holds.size > 1) return
    const now = Date.now()
    for (const countdown of this.running.values()) {
      clearTimeout(countdown.timer)
      countdown.timer = undefined
      countdown.left = Math.max(0, countdown.left - (now - countdown.since))
    }
  }

  /** Lets the countdowns go on once no reason holds them. */
  release(why: string): void {
    if (!this.holds.delete(why) || this.holds.size > 0) return
    for (const [key, countdown] of this.running) {
      countdown.left = Math.max(countdown.left, this.least)
      this.run(key)
    }
  }

  private run(key: K): void {
    const countdown = this.running.get(key)!
    countdown.since = Date.now()
    countdown.timer = setTimeout(() => {
      this.running.delete(key)
      this.out(key)
    }, countdown.left)
  }
}
