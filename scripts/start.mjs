// npm start: build the app, start the local service with the demo workspace,
// and launch Electron signed in to it (when no other workspace is set up:
// src-main/demo.ts decides). Without an Electron binary, say how to get one.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const require = createRequire(import.meta.url)

function electronBinary() {
  try {
    // The electron package exports the binary's path, and throws when it was never downloaded.
    const path = require('electron')
    return typeof path === 'string' && existsSync(path) ? path : undefined
  } catch {
    return undefined
  }
}

const build = spawnSync(process.execPath, [join(process.cwd(), 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { stdio: 'inherit' })
if (build.status !== 0) process.exit(build.status ?? 1)

const electron = electronBinary()
if (!electron) {
  console.error(`
Outpost is built, but the Electron binary is not installed, so the desktop window cannot open.
  - To get it, on a machine that can reach GitHub's releases: node node_modules/electron/install.js
    (or reinstall with: npm install --foreground-scripts electron)
  - Meanwhile the same app runs in your browser with: npm run web
    (and the local service with the demo workspace alone with: npm run server -- --seed demo)
`)
  process.exit(1)
}

const dataDir = join(process.cwd(), '.outpost-data')
mkdirSync(dataDir, { recursive: true })
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
