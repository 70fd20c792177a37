// Notifications of what a sync brought: a change someone else made to an epic
// the user owns or follows, and a comment that mentions them. Each goes in the
// window's list of recent ones; together (what one sync brought, within a
// moment) they make one notification of the OS, whose click opens the item.
//
// What changed is what the sync found: each epic it wrote over a different
// version of it, noted with the write (EpicNotice, data/sync/cache.ts). Every
// window of the workspace lists it; the one that marks it told first shows the
// system's notification. Only a sync after the bootstrap notes them. Never for
// the user's own changes: an epic the user queued, sent or dropped a change of
// in the last two minutes, from any window of the workspace, is not told
// (own-writes.ts).
import { itemLink } from '../../../../src-shared/links.ts'
import type { OutpostDb } from '../../data/db.ts'
import type { CachedComment, EpicNotice, NoticedEpic } from '../../data/types.ts'
import { watchTables } from '../../data/watch.ts'
import { readStored, readStoredJson, workspaceKey, writeStored } from '../../lib/stored.ts'
import { isBootstrapped } from '../../data/sync/checkpoints.ts'
import { epicChanges, mentions } from './changes.ts'
import { changedEpics, claimNotices, namesIn } from './notices.ts'
import { OwnWrites } from './own-writes.ts'

export interface RecentNotice {
  id: string
  at: number
  title: string
  body: string
  link: string
  read: boolean
}

export interface SystemNoticeOut {
  title: string
  body: string
  link: string
}

interface Options {
  db: OutpostDb
  /** The signed-in member. */
  me: string
  /** The workspace's slug, for the links. */
  workspace: string
  /** Shows a notification of the OS (or the browser's). */
  show: (notice: SystemNoticeOut) => void
  /** What arrives within this long is one notification (ms). */
  batchMs?: number
}

const KEEP = 50
/** How long after the window's own change of an epic a change of it is taken for that one (ms). */
const OWN_MS = 120_000

export class Notifier {
  recent = $state<RecentNotice[]>([])
  /** Whether notifications of the OS are shown (the list is kept either way). */
  enabled = $state(true)
  readonly unread = $derived(this.recent.filter((n) => !n.read).length)

  private commentsSince: string | undefined
  /** The last notice this window took in (undefined until it first looked: then it takes those not told yet). */
  private lastNotice: number | undefined
  /** The epics the user changed lately, from any window. */
  private readonly own: OwnWrites
  private batch: RecentNotice[] = []
  private timer: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> = Promise.resolve()
  private readonly listKey: string
  private readonly enabledKey: string

  constructor(private readonly options: Options) {
    this.own = new OwnWrites(options.db)
    this.listKey = workspaceKey('notifications', options.db.name)
    this.enabledKey = workspaceKey('notifications-on', options.db.name)
    const kept = readStoredJson(this.listKey)
    if (Array.isArray(kept)) this.recent = (kept as RecentNotice[]).filter((n) => n && typeof n.title === 'string' && typeof n.link === 'string').slice(0, KEEP)
    this.enabled = readStored(this.enabledKey) !== 'off'
  }

  setEnabled(on: boolean): void {
    this.enabled = on
    writeStored(this.enabledKey, on ? 'on' : 'off')
  }

  markAllRead(): void {
    this.recent = this.recent.map((n) => (n.read ? n : { ...n, read: true }))
    this.keep()
  }

  markRead(id: string): void {
    this.recent = this.recent.map((n) => (n.id === id ? { ...n, read: true } : n))
    this.keep()
  }

  /** The item was looked at: its notifications are read. */
  markItemRead(kind: 'epic' | 'doc', id: string | number): void {
    const link = itemLink(this.options.workspace, kind, id)
    if (!this.recent.some((n) => !n.read && n.link === link)) return
    this.recent = this.recent.map((n) => (n.link === link && !n.read ? { ...n, read: true } : n))
    this.keep()
  }

  /** Follows the cache until the returned function is called. */
  start(): () => void {
    const { db } = this.options
    const stopOwn = this.own.start()
    const newNotices = () => (this.lastNotice === undefined ? db.epicNotices.toArray() : db.epicNotices.where(':id').above(this.lastNotice).toArray())
    const stopNotices = watchTables(db, [{ table: 'epicNotices' }], newNotices, {
      next: (notices) => {
        // The first look counts even when it finds none: what comes after it is new to this window.
        if (notices.length > 0 || this.lastNotice === undefined) this.queue(() => this.readNotices(notices))
      },
      error: () => undefined,
    })
    const stopComments = watchTables(db, [{ table: 'epicComments' }], () => this.newComments(), {
      next: (comments) => this.queue(() => this.readComments(comments)),
      error: () => undefined,
    })
    return () => {
      stopOwn()
      stopNotices()
      stopComments()
      clearTimeout(this.timer)
    }
  }

  private queue(run: () => Promise<void> | void): void {
    this.running = this.running.then(run).catch(() => undefined)
  }

  private mine(epic: NoticedEpic): boolean {
    return epic.owner_ids.includes(this.options.me) || epic.follower_ids.includes(this.options.me)
  }

  /**
   * The changes the sync noted that this window has not taken in: at its first look those no window told
   * yet, then each new one. Every window lists them; the system's notification is shown by the window that
   * marks them told. An epic changed twice is told once, from the first version to the last.
   */
  private async readNotices(read: EpicNotice[]): Promise<void> {
    const { db } = this.options
    const fresh = this.lastNotice === undefined ? read.filter((n) => !n.told) : read.filter((n) => n.seq! > this.lastNotice!)
    this.lastNotice = read.reduce((last, n) => Math.max(last, n.seq!), this.lastNotice ?? 0)
    if (fresh.length === 0) return
    const now = Date.now()
    const claimed = await claimNotices(db, fresh, now)
    const names = await namesIn(db)
    for (const [id, { was, now: is, seqs }] of changedEpics(fresh, now)) {
      if (!this.mine(is) || this.own.changedWithin(id, OWN_MS)) continue
      const changes = epicChanges(was, is, names)
      if (changes.length === 0) continue
      const notice = { title: `“${is.name}” changed`, body: changes.join('\n'), link: itemLink(this.options.workspace, 'epic', is.id) }
      this.add(
        notice,
        seqs.some((seq) => claimed.has(seq)),
      )
    }
  }

  private async newComments(): Promise<CachedComment[]> {
    const table = this.options.db.epicComments
    if (this.commentsSince === undefined) {
      const last = await table.orderBy('updated_at').last()
      this.commentsSince = last?.updated_at ?? ''
      return []
    }
    return table.where('updated_at').above(this.commentsSince).toArray()
  }

  private async readComments(comments: CachedComment[]): Promise<void> {
    for (const c of comments) if (c.updated_at > (this.commentsSince ?? '')) this.commentsSince = c.updated_at
    const { db } = this.options
    if (comments.length === 0 || !(await isBootstrapped(db))) return
    const me = await db.members.get(this.options.me)
    if (!me) return
    for (const c of comments) {
      if (c.slim || c.deleted || c.author_id === this.options.me || c.created_at !== c.updated_at || !mentions(c, me.mention_name)) continue
      const epic = await db.epics.get(c.epic_id)
      const author = (c.author_id && (await db.members.get(c.author_id))?.name) || 'Someone'
      const text = c.text.length > 160 ? `${c.text.slice(0, 159)}…` : c.text
      this.add({ title: `${author} mentioned you${epic ? ` on “${epic.name}”` : ''}`, body: text, link: itemLink(this.options.workspace, 'epic', c.epic_id) })
    }
  }

  /** Lists the notice, and with `shown` (the default) it goes in the next system notification. */
  private add(notice: Omit<RecentNotice, 'id' | 'at' | 'read'>, shown = true): void {
    const item: RecentNotice = { ...notice, id: `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, at: Date.now(), read: false }
    this.recent = [item, ...this.recent].slice(0, KEEP)
    this.keep()
    if (!shown) return
    this.batch.push(item)
    this.timer ??= setTimeout(() => this.flush(), this.options.batchMs ?? 1_500)
  }

  private flush(): void {
    this.timer = undefined
    const batch = this.batch
    this.batch = []
    if (batch.length === 0 || !this.enabled) return
    if (batch.length === 1) {
      this.options.show({ title: batch[0].title, body: batch[0].body, link: batch[0].link })
      return
    }
    const titles = batch.map((n) => n.title)
    const shown = titles.slice(0, 3).join('\n') + (titles.length > 3 ? `\nand ${titles.length - 3} more` : '')
    this.options.show({ title: `${batch.length} updates on epics you own or follow`, body: shown, link: batch[0].link })
  }

  private keep(): void {
    writeStored(this.listKey, JSON.stringify(this.recent))
  }
}
