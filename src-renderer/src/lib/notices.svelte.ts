// Short messages the shell shows at the bottom right and reads out to screen
// readers: "Epic created", "Sync failed: ...". Errors stay until dismissed;
// the rest go by themselves, but not while the user reads or uses them: while
// the pointer is over the notices or the focus is in them, their time stands
// still (WCAG 2.2.1, timing adjustable).
import { Countdowns } from './countdowns.ts'

export type NoticeKind = 'info' | 'success' | 'error'

export interface Notice {
  id: number
  message: string
  kind: NoticeKind
  action?: { label: string; run: () => void }
  /** What it is about, for `dismissAbout` (uploads just queued, say). */
  topic?: string
}

/** How long a notice that is not an error stays. */
const NOTICE_MS = 4_500
/** The least time a notice has left once the pointer or the focus leaves the notices. */
const AFTER_HOLD_MS = 2_000

export class Notices {
  items = $state<Notice[]>([])
  private nextId = 1
  private readonly countdowns = new Countdowns<number>((id) => this.dismiss(id), AFTER_HOLD_MS)

  show = (message: string, kind: NoticeKind = 'info', action?: Notice['action'], topic?: string): number => {
    const id = this.nextId++
    // The same message twice in a row is one notice.
    const last = this.items.at(-1)
    if (last && last.message === message && last.kind === kind) return last.id
    for (const gone of this.items.slice(0, -3)) this.countdowns.stop(gone.id)
    this.items = [...this.items.slice(-3), { id, message, kind, action, topic }]
    if (kind !== 'error') this.countdowns.start(id, NOTICE_MS)
    return id
  }

  dismiss = (id: number): void => {
    this.countdowns.stop(id)
    this.items = this.items.filter((n) => n.id !== id)
  }

  /** Takes away the notices about `topic` (what they said no longer holds). */
  dismissAbout = (topic: string): void => {
    for (const n of this.items) if (n.topic === topic) this.countdowns.stop(n.id)
    if (this.items.some((n) => n.topic === topic)) this.items = this.items.filter((n) => n.topic !== topic)
  }

  /** The notices' time stands still while the pointer is over them or the focus in them. */
  hold = (why: 'pointer' | 'focus'): void => this.countdowns.hold(why)

  /** Their time goes on once neither holds it, with a moment left to each. */
  release = (why: 'pointer' | 'focus'): void => this.countdowns.release(why)
}

export const notices = new Notices()
