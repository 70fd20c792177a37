// npm run web -- [--port N] [--data-dir DIR] [--no-demo] [--memory-secrets] [--open]
// Runs Outpost in a browser: builds nothing (the npm script builds first),
// serves out/renderer on 127.0.0.1 and prints the address to open; --open
// (what `npm start` asks for) also opens it in the default browser, through a
// one-time address (open-browser.ts).
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { SecretStore } from '../src-main/secrets/secret-store.ts'
import { MemorySecretStore } from './memory-secrets.ts'
import { openInBrowser } from './open-browser.ts'
import { hostSecretStore, startWebApp } from './web-app.ts'

const USAGE = 'Usage: npm run web -- [--port N] [--data-dir DIR] [--no-demo] [--memory-secrets] [--open]'

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'no-demo': { type: 'boolean' },
      'memory-secrets': { type: 'boolean' },
      open: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })
  if (values.help) {
    console.log(USAGE)
    return
  }
  const port = values.port === undefined ? 0 : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`outpost-web: --port takes a number from 0 to 65535\n${USAGE}`)
    process.exit(2)
  }
  const rendererDir = resolve('out/renderer')
  if (!existsSync(join(rendererDir, 'index.html'))) {
    console.error('outpost-web: out/renderer is not built yet; run `npm run build` first (`npm run web` does).')
    process.exit(1)
  }
  const dataDir = resolve(values['data-dir'] ?? '.outpost-data/web')
  mkdirSync(dataDir, { recursive: true })

  let secrets: SecretStore
  if (values['memory-secrets']) {
    secrets = new MemorySecretStore()
  } else {
    const found = await hostSecretStore()
    secrets = found.store
    if (found.problem) console.warn(`outpost-web: the OS keychain is not available (${found.problem}); tokens are kept in memory for this run.`)
  }

  const app = await startWebApp({ rendererDir, dataDir, port, secrets, demo: !values['no-demo'] })
  if (app.service) console.log(`Local service with the demo workspace at ${app.service.baseUrl}`)
  console.log(`Outpost is running in your browser at:\n  ${app.host.url}\n(the part after # is this run's key: keep it to yourself)`)
  if (values.open) openInBrowser(app.host, (line) => console.log(line))
  const stop = () => {
    void app.close().then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  console.error(`outpost-web: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
