// A screen that shows one entity (an epic, a doc) paints the cached copy at
// once and, when online, asks the sync engine for a fresh one. This says how
// that went: still fetching, the service could not be asked (the cached copy
// stands), or the service no longer has it.
import { messageOf } from '../../lib/errors.ts'

/** The fetch of a fresh copy; resolves null when the service no longer has the entity. */
export type Fetch = () => Promise<unknown>

export class FreshCopy {
  refreshing = $state(false)
  /** Why the service could not be asked; the cached copy is what shows. */
  problem = $state<string | null>(null)
  /** The service answered that the entity is gone. */
  gone = $state(false)

  /**
   * `fetchOf` is read inside an effect: it returns the fetch to run, or
   * undefined when there is nothing to ask (offline, a local id). Whatever it
   * reads (the id, online) asks again when it changes.
   */
  constructor(fetchOf: () => Fetch | undefined) {
    $effect(() => {
      const fetch = fetchOf()
      this.problem = null
      this.gone = false
      if (!fetch) return
      let current = true
      this.refreshing = true
      fetch()
        .then((fresh) => {
          if (current && fresh === null) this.gone = true
        })
        .catch((error: unknown) => {
          if (current) this.problem = messageOf(error)
        })
        .finally(() => {
          if (current) this.refreshing = false
        })
      return () => {
        current = false
        this.refreshing = false
      }
    })
  }
}
