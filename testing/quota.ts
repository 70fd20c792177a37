// For tests of a full storage: a Dexie middleware on a database that makes its
// writes fail as a browser's do once the origin's quota is used up (a
// DOMException named QuotaExceededError), for as long as `full` says so.
// Deletes still go, as they do in a browser (they free room). The error
// rejects the write inside its transaction, which then commits nothing: what
// a browser does when the commit is refused. Never used by product code.
import type { Dexie } from 'dexie'

export interface QuotaFault {
  /** Writes are refused while true. */
  full: boolean
  /** Only writes to these tables are refused (every table when absent). */
  tables?: string[]
  /** Writes refused so far. */
  refused: number
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
            return Promise.reject(quotaError())
          },
        }
      },
    }),
  })
  return fault
}
