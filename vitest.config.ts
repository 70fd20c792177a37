import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src-*/**/*.test.ts', 'e2e/host/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The service tests start real HTTP servers; two workers suit a 2-core machine.
    maxWorkers: 2,
    reporters: ['default', './scripts/summary-reporter.ts'],
  },
})
