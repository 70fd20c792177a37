// The browser host in a process of its own, for specs that must see what the
// process does: its tokens in the real OS keychain (start it under
// scripts/with-keychain.sh, which gives it a private D-Bus session and an
// unlocked throwaway keyring), and everything it writes to stdout and stderr.
// e2e/fixtures/child-host.ts starts and drives it.
//
//   bash scripts/with-keychain.sh npx tsx src-web/child.ts --renderer out/renderer --data-dir DIR [--report-dir DIR]
//
// Prints one JSON line once it answers: {"url", "bus"} (the page to open, and
// the D-Bus address its keychain is reached at), then takes one command a line
// on stdin, answering each with one JSON line:
//   network-changed   the OS says the network is back (as Electron's poll would)
//   close             closes the app (main side and host), as quitting does, and
//                     writes the Node diagnostic report a crash would leave in --report-dir
//   exit              ends the process (the keychain's session ends with it)
// The end of stdin closes and exits too, so the host never outlives its test.
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { KeychainStore, loadKeytar } from '../src-main/secrets/keychain.ts'
import { reasonOf } from '../src-main/secrets/secret-store.ts'
import { startWebApp } from './web-app.ts'

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { renderer: { type: 'string' }, 'data-dir': { type: 'string' }, 'report-dir': { type: 'string' } } })
  if (!values.renderer || !values['data-dir']) throw new Error('usage: child.ts --renderer DIR --data-dir DIR [--report-dir DIR]')

  // The real keychain or nothing: a silent fallback to memory would make a keychain test pass for the wrong reason.
  const secrets = new KeychainStore(await loadKeytar())
  await secrets.probe()

  const app = await startWebApp({ rendererDir: resolve(values.renderer), dataDir: resolve(values['data-dir']), secrets, demo: false })
  const say = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`)
  say({ url: app.host.url, bus: process.env.DBUS_SESSION_BUS_ADDRESS ?? null })

  let closed: Promise<void> | undefined
  const close = () =>
    (closed ??= app.close().then(() => {
      const dir = values['report-dir']
      if (dir) process.report.writeReport(join(resolve(dir), `host-report-${process.pid}.json`))
    }))

  const commands = createInterface({ input: process.stdin })
  commands.on('line', (line) => {
    const command = line.trim()
    if (command === 'network-changed') {
      app.side.connectivity.checkOs(true)
      say({ done: command })
    } else if (command === 'close') {
      void close().then(() => say({ done: command }))
    } else if (command === 'exit') {
      void close().then(() => process.exit(0))
    } else {
      say({ error: `unknown command: ${command}` })
    }
  })
  commands.on('close', () => void close().then(() => process.exit(0)))
}

main().catch((error: unknown) => {
  console.error(`outpost child host: ${reasonOf(error)}`)
  process.exit(1)
})
