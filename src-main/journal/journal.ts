// The outbox journal: a copy of every queued change, kept by the main side
// outside the browser's storage, so that a cache the browser lost (IndexedDB
// wiped by an update, a downgrade, a profile reset) does not take the user's
// unsent changes with it. One append-only JSON-lines file per account,
// `<dataDir>/journal/<safe account id>.jsonl`:
//
//   {"epoch":"<uuid>","next":N}                       first line: which journal, ids so far
//   {"id":7,"at":<ms>,"record":{kind,entityId,op,...}} a change, as the window queued it
//   {"sent":[7,8],"after":9}                           they may have reached the service (after entry 9)
//   {"unsent":[7]}                                     they did not (the request never left): as never sent
//   {"kept":[7]}                                       the cache could not take them (storage full): kept here only
//   {"confirmed":[7,8],"map":{"local:…":{kind,id}}}    done (sent, cancelled or discarded); what local ids became
//
// Every line is written and fsync'd before the window is answered. A line a
// crash cut short is dropped when the file is next read. When most lines are
// confirmed the file is rewritten (atomically) with only what is still open.
// A record holds what the user wrote and where it goes, never a token: the
// window never has one.
import { randomUUID } from 'node:crypto'
import { mkdir, open, readFile, rm, truncate, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { JournalEntry, JournalMapping, JournalRecord, JournalState } from '../../src-shared/ipc.ts'
import { safeFileName } from '../files/safe-name.ts'
import { writeFileAtomically } from '../secrets/write-atomically.ts'

/** Mappings of confirmed creates kept beyond those open changes still name (a screen may still hold a local id). */
const RECENT_MAPPINGS = 5000

export const JOURNAL_FOLDER = 'journal'

export function journalPath(dataDir: string, accountId: string): string {
  return join(dataDir, JOURNAL_FOLDER, `${safeFileName(accountId)}.jsonl`)
}

type Line =
  | { epoch: string; next: number }
  | { id: number; at: number; record: JournalRecord }
  | { sent: number[]; after: number }
  | { unsent: number[] }
  | { kept: number[] }
  | { confirmed: number[]; map?: Record<string, JournalMapping> }

interface Loaded {
  epoch: string
  lastId: number
  entries: Map<number, JournalEntry>
  /** Local id → what it became, in the order they were confirmed. */
  map: Map<string, JournalMapping>
  /** Lines in the file (what compaction weighs against what is still open). */
  lines: number
  handle: FileHandle
}

/** One account's journal. Its operations run one at a time, in the order they were asked. */
export class AccountJournal {
  private loaded?: Loaded
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly path: string,
    private readonly options: { newEpoch?: () => string } = {},
  ) {}

  /** Appends changes; answers their ids once they are on disk. */
  append(records: JournalRecord[], now: number): Promise<{ epoch: string; ids: number[] }> {
    return this.run(async (j) => {
      const entries = records.map((record, i) => ({ id: j.lastId + 1 + i, at: now, record }))
      await this.write(
        j,
        entries.map((e) => ({ id: e.id, at: e.at, record: e.record })),
      )
      for (const e of entries) j.entries.set(e.id, e)
      j.lastId += entries.length
      return { epoch: j.epoch, ids: entries.map((e) => e.id) }
    })
  }

  /** Marks changes as about to be sent: after a loss they are looked for on the service before they go again. */
  sent(ids: number[]): Promise<void> {
    return this.run(async (j) => {
      const marked = ids.filter((id) => j.entries.has(id) && j.entries.get(id)!.sentAfter === undefined)
      if (marked.length === 0) return
      await this.write(j, [{ sent: marked, after: j.lastId }])
      for (const id of marked) j.entries.get(id)!.sentAfter = j.lastId
    })
  }

  /** Marks changes as not sent after all (their request never left): they merge with later ones again, as in the window. */
  unsent(ids: number[]): Promise<void> {
    return this.run(async (j) => {
      const marked = ids.filter((id) => j.entries.get(id)?.sentAfter !== undefined)
      if (marked.length === 0) return
      await this.write(j, [{ unsent: marked }])
      for (const id of marked) delete j.entries.get(id)!.sentAfter
    })
  }

  /** Marks changes the cache could not take (storage full): kept here only, they are queued again once there is room. */
  kept(ids: number[]): Promise<void> {
    return this.run(async (j) => {
      const marked = ids.filter((id) => j.entries.has(id) && !j.entries.get(id)!.kept)
      if (marked.length === 0) return
      await this.write(j, [{ kept: marked }])
      for (const id of marked) j.entries.get(id)!.kept = true
    })
  }

  /** Changes done with (confirmed by the service, cancelled, discarded), and what local ids the confirmed creates became. */
  confirm(ids: number[], map: Record<string, JournalMapping> = {}): Promise<void> {
    return this.run(async (j) => {
      const done = ids.filter((id) => j.entries.has(id))
      const mapped = Object.entries(map)
      if (done.length === 0 && mapped.length === 0) return
      await this.write(j, [{ confirmed: done, ...(mapped.length > 0 && { map }) }])
      for (const id of done) j.entries.delete(id)
      for (const [localId, to] of mapped) {
        j.map.delete(localId)
        j.map.set(localId, to)
      }
      if (j.lines > 64 && j.lines > 4 * (j.entries.size + 1)) await this.compact(j)
    })
  }

  /** What is still open: the changes not confirmed (oldest first), the journal's identity and its last id. */
  read(): Promise<JournalState> {
    return this.run(async (j) => ({
      epoch: j.epoch,
      lastId: j.lastId,
      entries: [...j.entries.values()].sort((a, b) => a.id - b.id),
      map: Object.fromEntries(j.map),
    }))
  }

  /** Forgets the journal (its account was removed). */
  remove(): Promise<void> {
    const removed = this.queue.then(async () => {
      await this.loaded?.handle.close()
      this.loaded = undefined
      await rm(this.path, { force: true })
    })
    this.queue = removed.catch(() => undefined)
    return removed
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined)
    await this.loaded?.handle.close().catch(() => undefined)
    this.loaded = undefined
  }

  // ---- the file ----

  private run<T>(step: (j: Loaded) => Promise<T>): Promise<T> {
    const result = this.queue.then(async () => step((this.loaded ??= await this.load())))
    this.queue = result.catch(() => undefined)
    return result
  }

  private async write(j: Loaded, lines: Line[]): Promise<void> {
    await j.handle.appendFile(lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
    await j.handle.datasync()
    j.lines += lines.length
  }

  private async load(): Promise<Loaded> {
    await mkdir(join(this.path, '..'), { recursive: true, mode: 0o700 })
    let text = ''
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    // A crash mid-append leaves a last line without its newline: it never counted (nobody was answered), it goes.
    const end = text.lastIndexOf('\n') + 1
    if (end < text.length) {
      await truncate(this.path, Buffer.byteLength(text.slice(0, end)))
      text = text.slice(0, end)
    }
    let epoch: string | undefined
    let lastId = 0
    const entries = new Map<number, JournalEntry>()
    const map = new Map<string, JournalMapping>()
    let lines = 0
    for (const raw of text.split('\n')) {
      if (!raw) continue
      lines++
      let line: Record<string, unknown>
      try {
        line = JSON.parse(raw) as Record<string, unknown>
      } catch {
        continue
      }
      if (!line || typeof line !== 'object') continue
      if (typeof line.epoch === 'string') {
        epoch ??= line.epoch
        if (typeof line.next === 'number') lastId = Math.max(lastId, line.next)
      } else if (typeof line.id === 'number' && line.record && typeof line.record === 'object') {
        entries.set(line.id, { id: line.id, at: Number(line.at) || 0, record: line.record as JournalRecord })
        lastId = Math.max(lastId, line.id)
      } else if (Array.isArray(line.sent)) {
        for (const id of line.sent) {
          const e = entries.get(id as number)
          if (e && e.sentAfter === undefined) e.sentAfter = typeof line.after === 'number' ? line.after : lastId
        }
      } else if (Array.isArray(line.unsent)) {
        for (const id of line.unsent) if (entries.has(id as number)) delete entries.get(id as number)!.sentAfter
      } else if (Array.isArray(line.kept)) {
        for (const id of line.kept) if (entries.has(id as number)) entries.get(id as number)!.kept = true
      } else if (Array.isArray(line.confirmed)) {
        for (const id of line.confirmed) entries.delete(id as number)
        for (const [localId, to] of Object.entries((line.map as Record<string, JournalMapping> | undefined) ?? {})) {
          map.delete(localId)
          map.set(localId, to)
        }
      }
    }
    const handle = await open(this.path, 'a', 0o600)
    const j: Loaded = { epoch: epoch ?? this.newEpoch(), lastId, entries, map, lines, handle }
    // A new journal (or one whose first line was lost) starts with its identity, written whole.
    if (epoch === undefined) await this.compact(j)
    return j
  }

  /** Rewrites the file with only what is still open, atomically, and appends to the new one. */
  private async compact(j: Loaded): Promise<void> {
    const still = [...j.entries.values()].sort((a, b) => a.id - b.id)
    const text = still.map((e) => JSON.stringify(e.record)).join('\n')
    const mappings = [...j.map]
    const kept = Object.fromEntries(mappings.filter(([localId], i) => i >= mappings.length - RECENT_MAPPINGS || text.includes(localId)))
    j.map = new Map(Object.entries(kept))
    const lines: Line[] = [
      { epoch: j.epoch, next: j.lastId },
      ...still.map((e) => ({ id: e.id, at: e.at, record: e.record })),
      ...still.filter((e) => e.sentAfter !== undefined).map((e) => ({ sent: [e.id], after: e.sentAfter! })),
      ...(still.some((e) => e.kept) ? [{ kept: still.filter((e) => e.kept).map((e) => e.id) }] : []),
      ...(j.map.size > 0 ? [{ confirmed: [], map: kept }] : []),
    ]
    await j.handle.close()
    await writeFileAtomically(this.path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
    j.handle = await open(this.path, 'a', 0o600)
    j.lines = lines.length
  }

  private newEpoch(): string {
    return (this.options.newEpoch ?? randomUUID)()
  }
}

/** The journals of every account in a data folder. */
export class Journals {
  private readonly open = new Map<string, AccountJournal>()

  constructor(private readonly dataDir: string) {}

  of(accountId: string): AccountJournal {
    let journal = this.open.get(accountId)
    if (!journal) {
      journal = new AccountJournal(journalPath(this.dataDir, accountId))
      this.open.set(accountId, journal)
    }
    return journal
  }

  async remove(accountId: string): Promise<void> {
    const journal = this.of(accountId)
    this.open.delete(accountId)
    await journal.remove()
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((j) => j.close()))
    this.open.clear()
  }
}
