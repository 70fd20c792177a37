// The end-to-end suite: Outpost's built renderer in Debian's Chromium, through
// the browser host (src-web), against the local service. Every test starts
// its own service and host (e2e/fixtures/outpost.ts), so tests share nothing
// and run in any order, two at a time on a 2-core machine.
//
//   npm run test:e2e                    (after `npm run build`)
//   npm run test:e2e -- -g offline      (one flow)
//
// Screenshots of the main screens, light and dark, land in
// test-results/e2e/screens/ (gitignored); traces of failed tests next to them.
import { defineConfig } from '@playwright/test'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { journalOf } from '../testing/contract/journals.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// Every service the specs start (and the hosts they spawn) journals its traffic; `npm run test:contract` reads it.
process.env.OUTPOST_SERVICE_JOURNAL = journalOf('e2e')

export default defineConfig({
  testDir: './specs',
  outputDir: join(root, 'test-results', 'e2e'),
  globalSetup: './fixtures/global-setup.ts',
  fullyParallel: true,
  workers: process.env.E2E_WORKERS ? Number(process.env.E2E_WORKERS) : 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // A flow goes offline and back online with real timers; none takes more than a few seconds when the app is right.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['./fixtures/summary-reporter.ts']],
  use: {
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
    actionTimeout: 15_000,
    navigationTimeout: 15_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's Chromium; never `npx playwright install`.
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [{ name: 'chromium' }],
})
