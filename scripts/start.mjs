// npm start [-- --no-build] [--data-dir DIR]: build the app, then run it on
// the demo workspace. With Electron's binary (fetched by Electron's own
// installer when it is missing and the network allows): start the local
// service with the demo workspace and launch the desktop app signed in to it
// (when no other workspace is set up: src-main/demo.ts decides). Without one:
// the same app through the browser host, opened in the default browser.
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { plan } from './start-plan.mjs'

const { values: options } = parseArgs({ options: { 'no-build': { type: 'boolean' }, 'data-dir': { type: 'string' } } })

if (!options['no-build']) {
  const build = spawnSync(process.execPath, [join(process.cwd(), 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const dataDir = resolve(options['data-dir'] ?? '.outpost-data')
mkdirSync(dataDir, { recursive: true })

const how = await plan()
if (how.kind === 'browser') await inBrowser(how.why)
else await inElectron(how.path)

/**
 * The browser host (as `npm run web`), which opens its page in the default browser itself (--open): through a
 * one-time address, as the browser's command line is readable by every local user (src-web/open-browser.ts).
 */
async function inBrowser(why) {
  console.log(`Outpost opens in your browser instead: the Electron binary could not be fetched (${why}).`)
  const web = spawn(process.execPath, ['--import', 'tsx', 'src-web/cli.ts', '--data-dir', join(dataDir, 'web'), '--open'], { stdio: ['ignore', 'inherit', 'inherit'] })
  const stop = () => web.kill('SIGTERM')
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  web.on('exit', (code) => process.exit(code ?? 0))
}

async function inElectron(electron) {
  // The demo keeps its port from one start to the next, so the app's demo account keeps working.
  const demoFile = join(dataDir, 'demo-service.json')
  function previousPort() {
    try {
      const port = Number(new URL(JSON.parse(readFileSync(demoFile, 'utf8')).baseUrl).port)
      return Number.isInteger(port) && port > 0 ? port : 0
    } catch {
      return 0
    }
  }

  async function startDemo(port) {
    const args = ['--import', 'tsx', 'src-server/cli.ts', '--seed', 'demo', '--db', join(dataDir, 'demo.db'), '--port', String(port), '--quiet', '--exit-with-stdin']
    // stdin is the service's lifeline: if this script dies, the service stops too.
    const service = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] })
    const first = await createInterface({ input: service.stdout })[Symbol.asyncIterator]().next()
    if (first.done) return undefined
    return { service, demo: JSON.parse(first.value) }
  }

  // The old port may be taken; then any port will do.
  const started = (await startDemo(previousPort())) ?? (await startDemo(0))
  if (!started) {
    console.error('The local demo service did not start (see above).')
    process.exit(1)
  }
  const { service, demo } = started
  writeFileSync(demoFile, JSON.stringify({ baseUrl: demo.baseUrl }))
  console.log(`Local service with the demo workspace at ${demo.baseUrl}`)
  const app = spawn(electron, ['.'], {
    stdio: 'inherit',
    env: { ...process.env, OUTPOST_DEMO_BASE_URL: demo.baseUrl, OUTPOST_DEMO_TOKEN: demo.tokens.admin },
  })
  app.on('exit', (code) => {
    service.kill('SIGTERM')
    process.exit(code ?? 0)
  })
}
