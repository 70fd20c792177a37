// Vitest's global setup: the services the suite starts journal their traffic for the contract check.
import { emptyJournal } from './contract/journals.ts'

export default function setup(): void {
  emptyJournal('vitest')
}
