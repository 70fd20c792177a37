// Answers asked for before anyone asks. A first sync's longest wait is the v3
// list of every epic: the service builds it whole before sending a byte, and
// it is most of a sign-in's bytes. Asked only once the workspace is open, it
// leaves after the token check and the window's setup (two round trips and
// more on a far link); asked while the token is checked (the v3 lists need
// only the token), it is on its way that much sooner. The sync's own call
// then takes the answer asked early, once; an answer nobody takes is let go.
import type { OperationName, OperationRequest } from '../../src-shared/api/operations.ts'

/** The lists a workspace's first sync asks for first (src-renderer/src/data/sync/sync.ts: bootstrapEpics, bootstrapDocs). */
export const EARLY_LISTS = ['epics.v3List', 'documents.v3List'] as const satisfies readonly OperationName[]

/** How long an answer asked early waits to be taken: a first sync asks within seconds of the sign-in. */
export const EARLY_KEEP_MS = 60_000

/** Which call an answer answers: the operation, its path and its query (not the fields kept of it, nor its lane). */
export const earlyKey = (name: OperationName, request: Pick<OperationRequest, 'params' | 'query'> = {}): string =>
  JSON.stringify([name, request.params ?? {}, request.query ?? {}])

/** Answers asked for early, each taken once, or let go after `keepMs`. */
export class EarlyAnswers {
  private readonly answers = new Map<string, { answer: Promise<unknown>; expiry: ReturnType<typeof setTimeout> }>()
  /**
   * Every request the sign-in made for the account (these lists and its token check), settled or not:
   * they count in the account's rate-limit window, which its gateway's pacer keeps (pacer.ts `track`).
   */
  readonly requests: Promise<unknown>[] = []

  constructor(private readonly keepMs = EARLY_KEEP_MS) {}

  /** A request of the sign-in that answers no call (the token check). */
  spent(request: Promise<unknown>): void {
    request.catch(() => undefined)
    this.requests.push(request)
  }

  add(key: string, answer: Promise<unknown>): void {
    this.requests.push(answer)
    // A failure is the taker's to see; one nobody takes is nobody's.
    answer.catch(() => undefined)
    const expiry = setTimeout(() => this.answers.delete(key), this.keepMs)
    expiry.unref?.()
    this.answers.set(key, { answer, expiry })
  }

  /** The answer asked early for this call, once; undefined when there is none. */
  take(key: string): Promise<unknown> | undefined {
    const early = this.answers.get(key)
    if (!early) return undefined
    this.answers.delete(key)
    clearTimeout(early.expiry)
    return early.answer
  }

  clear(): void {
    for (const { expiry } of this.answers.values()) clearTimeout(expiry)
    this.answers.clear()
  }
}
