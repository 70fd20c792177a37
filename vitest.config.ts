import { defineConfig } from 'vitest/config'
import { journalOf } from './testing/contract/journals.ts'

export default defineConfig({
  test: {
    include: ['src-*/**/*.test.ts', 'scripts/**/*.test.ts', 'testing/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The service tests start real HTTP servers; two workers suit a 2-core machine.
    maxWorkers: 2,
    reporters: ['default', './scripts/summary-reporter.ts'],
    // Every service the tests start writes its request journal here; `npm run test:contract` reads it.
    globalSetup: ['./testing/vitest-setup.ts'],
    env: { OUTPOST_SERVICE_JOURNAL: journalOf('vitest') },
  },
})
