// Where the test suites' services write their request journals (src-server/journal.ts):
// one folder per suite, emptied when that suite starts, read by the contract check after both.
import { mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-results', 'journal')

export type Suite = 'vitest' | 'e2e'
export const SUITES: readonly Suite[] = ['vitest', 'e2e']

export const journalFolder = (suite: Suite) => join(ROOT, suite)

/** A suite's folder, unless OUTPOST_SERVICE_JOURNAL names another (a run kept apart from the suites'). */
export const journalOf = (suite: Suite) => process.env.OUTPOST_SERVICE_JOURNAL ?? journalFolder(suite)

/** Empties a suite's folder before its run. */
export function emptyJournal(suite: Suite): void {
  rmSync(journalOf(suite), { recursive: true, force: true })
  mkdirSync(journalOf(suite), { recursive: true })
}
