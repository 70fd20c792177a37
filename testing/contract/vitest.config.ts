// `npm run test:contract`: the traffic the unit, integration and e2e suites recorded, held against the
// published API description. Runs after both suites (`npm test` runs it last).
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  root: join(dirname(fileURLToPath(import.meta.url)), '..', '..'),
  test: {
    include: ['testing/contract/*.contract.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ['default', ['./scripts/summary-reporter.ts', { label: 'contract' }]],
  },
})
