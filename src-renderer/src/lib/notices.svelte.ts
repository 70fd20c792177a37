// Short messages the shell shows at the bottom right and reads out to screen
// readers: "Epic created", "Sync failed: ...". Errors stay until dismissed;
// the rest go by themselves.

export type NoticeKind = 'info' | 'success' | 'error'

export interface Notice {
  id: number
  message: string
  kind: NoticeKind
  action?: { label: string; run: () => void }
  /** What it is about, for `dismissAbout` (uploads just queued, say). */
  topic?: string
}

export class Notices {
  items = $state<Notice[]>([])
  private nextId = 1

  show = (message: string, kind: NoticeKind = 'info', action?: Notice['action'], topic?: string): number => {
    const id = this.nextId++
    // The same message twice in a row is one notice.
    const last = this.items.at(-1)
    if (last && last.message === message && last.kind === kind) return last.id
    this.items = [...this.items.slice(-3), { id, message, kind, action, topic }]
    if (kind !== 'error') setTimeout(() => this.dismiss(id), 4_500)
    return id
  }

  dismiss = (id: number): void => {
    this.items = this.items.filter((n) => n.id !== id)
  }

  /** Takes away the notices about `topic` (what they said no longer holds). */
  dismissAbout = (topic: string): void => {
    if (this.items.some((n) => n.topic === topic)) this.items = this.items.filter((n) => n.topic !== topic)
  }
}

export const notices = new Notices()
