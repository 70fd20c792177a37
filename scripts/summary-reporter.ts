// Ends the test output with one plain summary line ("N passed, N failed, N skipped")
// that any CI reads, after Vitest's own summary.
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  /** The line's first word: which run it sums up. */
  private readonly label: string

  constructor(options: { label?: string } = {}) {
    this.label = options.label ?? 'vitest'
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped++
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++
    }
    process.stdout.write(`\n${this.label}: ${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
