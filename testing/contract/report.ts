// Prints what recorded traffic does that the published description does not allow, one line per kind of
// difference, the most frequent first: `npx tsx testing/contract/report.ts [journal folders...]`
// (default: the test suites' folders, after `npm test` or a part of it).
import { existsSync } from 'node:fs'
import { ContractChecker } from './check.ts'
import { SUITES, journalFolder } from './journals.ts'

const folders = process.argv.length > 2 ? process.argv.slice(2) : SUITES.map(journalFolder).filter(existsSync)
const checker = new ContractChecker()
for (const dir of folders) checker.checkFolder(dir)
console.log(
  `checked ${checker.checked.requests} requests Outpost sent and ${checker.checked.answers} answers (${checker.checked.longAnswers} too long to keep) in ${folders.join(', ')}`,
)
for (const f of checker.report()) console.log(`${f.side}\t${f.count}\t${f.operation}\t${f.at}\t${f.problem}\t${f.example}`)
