// Running a write from a screen: the actions apply it at once (overlay +
// outbox); what can still go wrong here is a refusal (read-only token, an
// entity gone from the cache) or a broken database. Either is told to the
// user through the shell's notices, never swallowed.
import { notices } from '../lib/notices.svelte.ts'
import { messageOf } from '../lib/errors.ts'

/** Runs a write; tells the user when it was refused. Resolves with its result, or undefined when it failed. */
export async function attempt<T>(run: () => Promise<T>, done?: string): Promise<T | undefined> {
  try {
    const result = await run()
    if (done) notices.show(done, 'success')
    return result
  } catch (error) {
    notices.show(messageOf(error), 'error')
    return undefined
  }
}
