// Vitest's global setup: the services the suite starts journal their traffic for the contract check.
import { emptyJournal } from './contract/journals.ts'

export default function setup(): void {
  // A run nested in the suite's (keychain.test.ts re-running itself next to a throwaway keyring) leaves the suite's
  // journal alone: emptied under the suite's own workers' writes, it failed with ENOTEMPTY.
  if (process.env.OUTPOST_KEYCHAIN_SANDBOX) return
  emptyJournal('vitest')
}
