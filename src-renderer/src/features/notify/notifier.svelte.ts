// Notifications of what a sync brought: a change someone else made to an epic
// the user owns or follows, and a comment that mentions them. Each goes in the
// window's list of recent ones; together (what one sync brought, within a
// moment) they make one notification of the OS, whose click opens the item.
//
// Never for the user's own changes: an epic the user queued, sent or dropped
// a change of in the last two minutes, from any window of the workspace, is
// not told (own-writes.ts). Otherwise a change is told when the service's copy
// moved (its updated_at in the cache) and what the user sees moved with it,
// both read in one transaction.
// Never during a bootstrap: the first complete read after it is the baseline.
import { untrack } from 'svelte'
import { itemLink } from '../../../../src-shared/links.ts'
import type { OutpostDb } from '../../data/db.ts'
import type { CachedComment, CachedEpic } from '../../data/types.ts'
import { epicsAsSeen } from '../../data/overlay.ts'
import { watchTables } from '../../data/watch.ts'
import { readStored, readStoredJson, workspaceKey, writeStored } from '../../lib/stored.ts'
import type { WorkspaceData } from '../live.svelte.ts'
import { epicChanges, mentions } from './changes.ts'
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
  data: WorkspaceData
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

  private snapshot: Record<string, { epic: CachedEpic; service: string | undefined }> | undefined
  private commentsSince: string | undefined
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
    const { data, db } = this.options
    const stopEffects = $effect.root(() => {
      $effect(() => {
        const epics = data.epics.value
        const complete = data.epics.complete
        const bootstrapped = data.status.value?.bootstrapped === true
        untrack(() => this.queue(() => this.readEpics(epics, complete, bootstrapped)))
      })
    })
    const stopOwn = this.own.start()
    const stopComments = watchTables(db, [{ table: 'epicComments' }], () => this.newComments(), {
      next: (comments) => this.queue(() => this.readComments(comments)),
      error: () => undefined,
    })
    return () => {
      stopOwn()
      stopEffects()
      stopComments()
      clearTimeout(this.timer)
    }
  }

  private queue(run: () => Promise<void> | void): void {
    this.running = this.running.then(run).catch(() => undefined)
  }

  private mine(epic: CachedEpic): boolean {
    return epic.owner_ids.includes(this.options.me) || epic.follower_ids.includes(this.options.me)
  }

  private async readEpics(epics: CachedEpic[] | undefined, complete: boolean, bootstrapped: boolean): Promise<void> {
    if (!bootstrapped) {
      this.snapshot = undefined
      return
    }
    if (!epics || !complete) return
    const ids = epics.filter((e) => this.mine(e) && typeof e.id === 'number').map((e) => String(e.id))
    // The service's copy and what the user sees of each, read together: read apart, a sync committing between
    // the two reads would pair the new service time with the old view, and its change would never be told.
    // Read by the hundreds (the user's own epics can be thousands), not each on its own at once.
    const read = await epicsAsSeen(this.options.db, ids)
    const next: Record<string, { epic: CachedEpic; service: string | undefined }> = {}
    read.forEach(({ epic, service }, i) => {
      if (epic) next[ids[i]] = { epic, service }
    })
    const before = this.snapshot
    this.snapshot = next
    if (!before) return
    const { data } = this.options
    const names = {
      state: (id: number | null) => (id === null ? 'No state' : (data.stateById.get(String(id))?.name ?? 'Unknown state')),
      member: (id: string) => data.memberById.get(id)?.name ?? 'Someone',
    }
    for (const [id, now] of Object.entries(next)) {
      const was = before[id]
      if (!was || was.service === now.service || now.service === undefined) continue
      if (this.own.changedWithin(id, OWN_MS)) continue
      const changes = epicChanges(was.epic, now.epic, names)
      if (changes.length === 0) continue
      this.add({ title: `“${now.epic.name}” changed`, body: changes.join('\n'), link: itemLink(this.options.workspace, 'epic', now.epic.id) })
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
    if (this.options.data.status.value?.bootstrapped !== true) return
    const me = this.options.data.memberById.get(this.options.me)
    if (!me) return
    for (const c of comments) {
      if (c.slim || c.deleted || c.author_id === this.options.me || c.created_at !== c.updated_at || !mentions(c, me.mention_name)) continue
      const epic = await this.options.db.epics.get(c.epic_id)
      const author = (c.author_id && this.options.data.memberById.get(c.author_id)?.name) || 'Someone'
      const text = c.text.length > 160 ? `${c.text.slice(0, 159)}…` : c.text
      this.add({ title: `${author} mentioned you${epic ? ` on “${epic.name}”` : ''}`, body: text, link: itemLink(this.options.workspace, 'epic', c.epic_id) })
    }
  }

  private add(notice: Omit<RecentNotice, 'id' | 'at' | 'read'>): void {
    const item: RecentNotice = { ...notice, id: `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, at: Date.now(), read: false }
    this.recent = [item, ...this.recent].slice(0, KEEP)
    this.keep()
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
