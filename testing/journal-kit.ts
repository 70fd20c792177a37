// The outbox journal as the data layer reaches it, for tests and the soak: the
// main side's journal file (src-main/journal/) called directly, as the bridge
// would call it, with a switch to lose its confirmations (a crash right after
// a change was confirmed in the cache).
import { AccountJournal } from '../src-main/journal/journal.ts'
import type { OutboxJournal } from '../src-renderer/src/data/outbox/journal.ts'

export interface FileJournal extends OutboxJournal {
  readonly file: AccountJournal
  /** While true, confirmations are lost on their way (nothing is written). */
  loseConfirmations: boolean
  close(): Promise<void>
}

export function fileJournal(path: string, clock: () => number = Date.now): FileJournal {
  const file = new AccountJournal(path)
  const journal: FileJournal = {
    file,
    loseConfirmations: false,
    append: (records) => file.append(structuredClone(records), clock()),
    sent: (ids) => file.sent(ids),
    unsent: (ids) => file.unsent(ids),
    kept: (ids) => file.kept(ids),
    confirm: async (ids, map) => {
      if (journal.loseConfirmations) throw new Error('The app was killed.')
      await file.confirm(ids, map)
    },
    read: () => file.read(),
    close: () => file.close(),
  }
  return journal
}
