// For tests of a full storage: a Dexie middleware on a database that makes its
// writes fail as a browser's do once the origin's quota is used up (a
// DOMException named QuotaExceededError), for as long as `full` says so.
// Deletes still go, as they do in a browser (they free room). The error
// rejects the write inside its transaction, which then commits nothing; or,
// with `at: 'commit'`, as Chromium does it: every write of the transaction
// goes through and the commit is refused (the transaction aborts with
// QuotaExceededError, nothing written). Never used by product code.
import type { Dexie } from 'dexie'

export interface QuotaFault {
  /** Writes are refused while true. */
  full: boolean
  /** Only writes to these tables are refused (every table when absent). */
  tables?: string[]
  /** Writes refused so far. */
  refused: number
  /** Where the refusal comes: at the write (the default), or at the commit of its transaction (fake-indexeddb only). */
  at?: 'write' | 'commit'
}

export const quotaError = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError')

/**
 * Installs `fault` on `db` (before its first use: Dexie builds its middleware stack when it opens). One fault
 * may serve several database objects (the lives of a soak): they share its `full`.
 */
export function quotaFault(db: Dexie, fault: QuotaFault = { full: false, refused: 0 }): QuotaFault {
  db.use({
    stack: 'dbcore',
    name: 'quota-fault',
    create: (down) => ({
      ...down,
      table(name) {
        const table = down.table(name)
        return {
          ...table,
          mutate(request) {
            const refused = fault.full && (request.type === 'add' || request.type === 'put') && (!fault.tables || fault.tables.includes(name))
            if (!refused) return table.mutate(request)
            fault.refused++
            if (fault.at !== 'commit') return Promise.reject(quotaError())
            refuseCommit(request.trans)
            return table.mutate(request)
          },
        }
      },
    }),
  })
  return fault
}

/** fake-indexeddb's transaction, as far as refusing its commit goes (its own steps: abort, and mark finished). */
interface FakeTransaction {
  _abort(errorName: string | null): void
  _markFinished(): void
}

const refusing = new WeakSet<object>()

/**
 * The transaction's commit is refused as a browser refuses it for want of quota: at the point fake-indexeddb
 * would commit (mark the transaction finished with no error), it aborts with QuotaExceededError instead, which
 * rolls back every write and fires `abort`.
 */
function refuseCommit(trans: object): void {
  if (refusing.has(trans)) return
  const t = trans as FakeTransaction
  if (typeof t._abort !== 'function' || typeof t._markFinished !== 'function') throw new Error('quotaFault at commit needs fake-indexeddb')
  refusing.add(trans)
  const abort = t._abort.bind(t)
  const finish = t._markFinished.bind(t)
  let aborting = false
  t._abort = (name) => {
    aborting = true
    abort(name)
  }
  t._markFinished = () => (aborting ? finish() : t._abort('QuotaExceededError'))
}
