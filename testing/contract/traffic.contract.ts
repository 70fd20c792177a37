// The published API description as referee of everything the test suites did (`npm run test:contract`,
// after the Vitest and Playwright runs that journal their services' traffic, testing/contract/journals.ts):
// - every request Outpost's gateway sent uses only operations, query parameters, body keys and values the
//   published description accepts, with the auth header it documents;
// - every successful answer of the local service has the published shape;
// except where the spec says otherwise (src-server/spec-decisions.ts, listed in docs/service.md). A decision
// that explains nothing recorded is stale and fails too.
import { existsSync, readdirSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { SPEC_DECISIONS } from '../../src-server/spec-decisions.ts'
import { ContractChecker, type Finding } from './check.ts'
import { SUITES, journalFolder } from './journals.ts'

let findings: Finding[]
let checker: ContractChecker

beforeAll(() => {
  checker = new ContractChecker()
  for (const suite of SUITES) if (existsSync(journalFolder(suite))) checker.checkFolder(journalFolder(suite))
  findings = checker.report()
})

const explains = (d: (typeof SPEC_DECISIONS)[number], f: Finding) =>
  d.side === f.side && d.operation.test(f.operation) && d.at.test(f.at) && d.problem.test(f.problem)
const unexplained = (side: Finding['side']) =>
  findings
    .filter((f) => f.side === side && !SPEC_DECISIONS.some((d) => explains(d, f)))
    .map((f) => `${f.operation} ${f.at}: ${f.problem} (${f.count}×, e.g. ${f.example})`)

describe('the traffic of the test suites, against the published API description', () => {
  it.each(SUITES)('%s recorded its traffic', (suite) => {
    const dir = journalFolder(suite)
    expect(existsSync(dir) && readdirSync(dir).some((n) => n.endsWith('.ndjson')), `no journal in ${dir}: run \`npm test\` (or that suite) first`).toBe(true)
  })

  it('Outpost sent only what the published operations accept', () => {
    expect(checker.checked.requests).toBeGreaterThan(1000)
    expect(unexplained('request')).toEqual([])
  })

  it("the local service's answers have the published shapes, the spec's decisions excepted", () => {
    expect(checker.checked.answers).toBeGreaterThan(1000)
    expect(checker.checked.longAnswers).toBe(0)
    expect(unexplained('answer')).toEqual([])
  })

  it('every spec decision explains something the suites recorded', () => {
    const stale = SPEC_DECISIONS.filter((d) => !findings.some((f) => explains(d, f))).map((d) => `${d.side} ${d.operation} ${d.at} ${d.problem}: ${d.why}`)
    expect(stale).toEqual([])
  })
})
