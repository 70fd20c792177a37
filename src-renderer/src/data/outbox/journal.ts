// The outbox's copy outside IndexedDB: every change queued here is appended to
// the main side's journal of the account (src-main/journal/) inside the very
// transaction that queues it, so it is on disk before the UI shows it saved.
// Records carry the ids of the journal entries they hold; replay marks them
// sent before they go and confirms them once done (as do a discard and a
// cancelled create). The cache notes which journal it follows and the last
// entry it applied (`meta`), so that at start a lost or older cache gets the
// open changes back (restore.ts).
import Dexie, { type Table } from 'dexie'
import type { JournalMapping, JournalRecord, JournalState } from '../../../../src-shared/ipc.ts'
import type { Bridge } from '../../lib/bridge.ts'
import type { OutpostDb } from '../db.ts'
import type { OutboxRecord } from '../types.ts'
import type { NewRecord } from './queue.ts'

/** The main side's journal of this workspace's account. */
export interface OutboxJournal {
  /** Appends changes; answers their ids once they are on disk. */
  append(records: JournalRecord[]): Promise<{ epoch: string; ids: number[] }>
  /** They may reach the service from now on: after a loss they are looked for there before they go again. */
  sent(ids: number[]): Promise<void>
  /** They did not after all (the request never left): merged with later changes again, as never sent. */
  unsent(ids: number[]): Promise<void>
  /** The cache could not take them (storage full): kept in the journal only, queued again once there is room (restore.ts). */
  kept(ids: number[]): Promise<void>
  /** Done with (confirmed, cancelled, discarded); what confirmed creates' local ids became. */
  confirm(ids: number[], map?: Record<string, JournalMapping>): Promise<void>
  read(): Promise<JournalState>
}

export function bridgeJournal(bridge: Pick<Bridge, 'call'>, accountId: string): OutboxJournal {
  return {
    append: (records) => bridge.call('outpost:journal.append', { accountId, records }),
    sent: (ids) => bridge.call('outpost:journal.sent', { accountId, ids }),
    unsent: (ids) => bridge.call('outpost:journal.unsent', { accountId, ids }),
    kept: (ids) => bridge.call('outpost:journal.kept', { accountId, ids }),
    confirm: (ids, map) => bridge.call('outpost:journal.confirm', { accountId, ids, ...(map && { map }) }),
    read: () => bridge.call('outpost:journal.read', { accountId }),
  }
}

/** `meta` row: which journal the cache follows, and the last of its entries the cache applied. */
export const JOURNAL_KEY = 'outbox:journal'
/** `meta` row: changes brought back from the journal at the last start, until the user has read it. */
export const RESTORED_KEY = 'outbox:restored'

export interface JournalMark {
  epoch: string
  upTo: number
  /** Entries kept in the journal only (storage was full) that a restore has queued since: the cache holds them too. */
  taken?: number[]
}

export interface Restored {
  count: number
  at: number
}

/** What the journal keeps of a change: what replay needs, as the window queued it. */
export function journalRecordOf(r: NewRecord | OutboxRecord): JournalRecord {
  return {
    kind: r.kind,
    entityId: r.entityId,
    op: r.op as JournalRecord['op'],
    payload: r.payload,
    ...(r.base && Object.keys(r.base).length > 0 && { base: r.base }),
    ...(r.params && { params: r.params as JournalRecord['params'] }),
    ...(r.externalId && { externalId: r.externalId }),
    ...(r.baseUpdatedAt && { baseUpdatedAt: r.baseUpdatedAt }),
    ...(r.staged && { staged: r.staged }),
  }
}

/** The journal entries records hold. */
export function journalIdsOf(records: readonly Pick<OutboxRecord, 'journal'>[]): number[] {
  return records.flatMap((r) => (Array.isArray(r.journal) ? (r.journal as number[]) : []))
}

/**
 * Inside a transaction over `meta`: the cache has applied the journal's entries up to these. Only a cache that
 * follows this journal already (restore.ts made them agree) moves its mark: a new cache's first write must not
 * pass for having applied what came before it (a write made before the start's restore ran).
 */
export async function noteApplied(db: OutpostDb, epoch: string, ids: number[], options: { follow?: boolean; taken?: number[] } = {}): Promise<void> {
  const mark = (await db.meta.get(JOURNAL_KEY))?.value as JournalMark | undefined
  const same = mark?.epoch === epoch
  if (!same && !options.follow) return
  const upTo = Math.max(...ids, same ? mark.upTo : 0)
  const taken = options.taken ?? (same ? mark.taken : undefined)
  await db.meta.put({ key: JOURNAL_KEY, value: { epoch, upTo, ...(taken && taken.length > 0 && { taken }) } satisfies JournalMark })
}

/**
 * Inside a write's transaction: the changes appended to the journal (the transaction kept open while the main
 * side writes them to disk) and noted as applied; answers their ids.
 */
export async function journalInside(db: OutpostDb, journal: OutboxJournal, records: JournalRecord[]): Promise<number[]> {
  let appended: { epoch: string; ids: number[] }
  try {
    appended = await Dexie.waitFor(journal.append(records))
  } catch (error) {
    throw unavailable('Outpost could not keep the change in its journal of queued changes, so it was not made', error)
  }
  appendedIn.get(Dexie.currentTransaction as object)?.push(...appended.ids)
  await noteApplied(db, appended.epoch, appended.ids)
  return appended.ids
}

/** What each journaled transaction appended (journaledTransaction). */
const appendedIn = new WeakMap<object, number[]>()

/**
 * A transaction over the cache that may append to the journal: what it appended is withdrawn when it does not
 * commit (a write refused), or a later start would take it for a change the cache lost; unless `keep` says the
 * failure is one to keep it through (storage full): then it stays, marked kept (restore.ts queues it once there is
 * room), and KeptInJournal is thrown. `scope` gets the list of what it appended so far, and a list to fill with
 * entries the transaction makes pointless without completing them (a change rewritten, discarded, cancelled): those
 * are confirmed once it has committed. Refused, the records that hold them are still there, and so must they be, or a
 * loss of the cache before the next start would lose the change.
 *
 * A crash between the commit and that confirmation leaves them open with nothing holding them. The next start trims
 * them when the cache survived (it applied the transaction); a lost cache cannot tell, and would bring back a change
 * replaced or discarded. So the transaction also appends, before it commits, a mark that voids them (op 'void',
 * confirmed with them; withdrawn with the rest if the transaction is refused): a restore into a lost cache queues
 * neither the mark nor what it voids.
 *
 * `tables`: the transaction's tables, every table by default. A write that knows it touches a few (an update: its
 * entity's table, the overlay, the outbox and `meta`) names them, so that it waits only for what else uses those: a
 * read of the docs in another window, or the sync's write of a page of them, does not hold back an epic's rename.
 */
export async function journaledTransaction<T>(
  db: OutpostDb,
  journal: OutboxJournal | undefined,
  scope: (appended: number[], done: number[]) => Promise<T>,
  options: { keep?: (error: unknown) => boolean; tables?: Table[] } = {},
): Promise<T> {
  const appended: number[] = []
  const done: number[] = []
  let result: T
  try {
    // Dexie keeps the transaction open across awaits only inside an async scope function.
    result = await db.transaction('rw', options.tables ?? db.tables, async (tx) => {
      appendedIn.set(tx, appended)
      const out = await scope(appended, done)
      if (journal && done.length > 0) done.push(...(await journalInside(db, journal, [voidRecord(done)])))
      return out
    })
  } catch (error) {
    if (journal && appended.length > 0 && options.keep?.(error)) {
      const kept = await journal.kept(appended).then(
        () => true,
        () => false,
      )
      if (kept) throw new KeptInJournal(error, appended)
    }
    await withdraw(journal, appended)
    throw error
  }
  if (journal && done.length > 0) await journal.confirm(done).catch(() => undefined)
  return result
}

/** The journal's mark that the entries `ids` are done with, whatever a restore finds of them (journaledTransaction). */
export function voidRecord(ids: number[]): JournalRecord {
  return { kind: 'outbox', entityId: 'void', op: 'void', payload: {}, voids: [...ids] }
}

/** Whether a journal entry is such a mark rather than a change. */
export const isVoidMark = (record: JournalRecord): boolean => record.op === 'void'

/** A write the cache refused, kept in the journal (journaledTransaction's `keep`): it is made once there is room. */
export class KeptInJournal extends Error {
  override readonly name = 'KeptInJournal'
  constructor(
    cause: unknown,
    readonly ids: number[],
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause })
  }
}

const unavailable = (what: string, error: unknown) => new JournalUnavailable(`${what}: ${error instanceof Error ? error.message : String(error)}`)

/**
 * Inside a transaction: a record whose change is no longer what its entries say (the user fixed a refused
 * write, or chose per field in a conflict) is journaled again as it is now. Answers the entries it held
 * (to confirm once the transaction committed).
 */
export async function journalAgain(db: OutpostDb, journal: OutboxJournal | undefined, r: OutboxRecord): Promise<number[]> {
  if (!journal) return []
  const before = journalIdsOf([r])
  // It keeps its place among the others: restored after a later change of the same field, it would undo it.
  const order = Math.min(...before.map((id) => id), ...(typeof r.journalOrder === 'number' ? [r.journalOrder] : []))
  r.journal = await journalInside(db, journal, [{ ...journalRecordOf(r), ...(Number.isFinite(order) && { order }) }])
  if (Number.isFinite(order)) r.journalOrder = order
  // Sent already (its answer not heard yet): after a loss it is looked for before it goes again, as it was.
  if (r.state === 'in-flight') await Dexie.waitFor(journal.sent(r.journal))
  return before
}

/**
 * Inside the transaction that makes entries pointless (sent and answered, cancelled, discarded): they are
 * confirmed before it commits. Should it not commit, the record is still there (and journaled again at the
 * next start, restore.ts), and what was answered is on the service already; the other way round, a loss of
 * the cache between the two would send an answered change again.
 */
export async function confirmInside(journal: OutboxJournal | undefined, ids: number[], map?: Record<string, JournalMapping>): Promise<void> {
  if (!journal || (ids.length === 0 && !map)) return
  try {
    await Dexie.waitFor(journal.confirm(ids, map))
  } catch (error) {
    throw unavailable('The journal of queued changes could not be told a change was done', error)
  }
}

/** The journal could not be told: the change it was about stays as it was (in flight, if it was sent), for the next pass. */
export class JournalUnavailable extends Error {
  override readonly name = 'JournalUnavailable'
}

/** Withdraws entries of a write that was not queued after all (its transaction failed). */
export async function withdraw(journal: OutboxJournal | undefined, ids: number[]): Promise<void> {
  if (!journal || ids.length === 0) return
  await journal.confirm(ids).catch(() => undefined)
}
