// The local demo service, started when the user asks for the demo (the
// sign-in screen's demo card, `demo.sign-in`) or at launch, then reused until
// the app quits. How it starts depends on where Outpost runs:
// - `npm start` runs it next to Electron and hands its address over
//   (`runningDemo`);
// - a development build launched any other way runs the service's CLI with
//   Node (`startDemoProcess`: Node, not Electron, because the service's SQLite
//   module is built for Node's ABI);
// - the browser host starts it in its own process (src-web/web-app.ts).
// A packaged app does not ship the service: it has no launcher, and
// `demo.sign-in` answers `unsupported`.
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { previousDemo, previousPort, type DemoService } from './demo.ts'

export interface StartedDemo {
  demo: DemoService
  /** False once the service has stopped on its own (a crashed child): the next start runs a new one. */
  alive?: () => boolean
  close(): Promise<void>
}

export interface DemoLauncher {
  /** The running demo's address and token, starting it on first use. */
  start(): Promise<DemoService>
  /** Stops the service if this launcher started it. */
  close(): Promise<void>
}

/** Starts the demo once and hands the same one out after; a failed start is tried again next time. */
export function demoLauncher(start: () => Promise<StartedDemo>): DemoLauncher {
  let started: Promise<StartedDemo> | undefined
  return {
    async start() {
      const current = started && (await started.catch(() => undefined))
      if (!current || current.alive?.() === false) {
        const attempt = start()
        started = attempt
        attempt.catch(() => {
          if (started === attempt) started = undefined
        })
        return (await attempt).demo
      }
      return current.demo
    },
    async close() {
      const running = started
      started = undefined
      await (await running?.catch(() => undefined))?.close()
    },
  }
}

/** The demo `npm start` already runs: reused as it is, and left for `npm start` to stop. */
export function runningDemo(demo: DemoService): DemoLauncher {
  return demoLauncher(async () => ({ demo, close: async () => undefined }))
}

export interface DemoProcessOptions {
  /** The Node binary to run the service with. */
  node: string
  /** The project folder (src-server/cli.ts and node_modules/tsx). */
  cwd: string
  /** The app's data folder: the demo's database is `<dataDir>/demo.db`. */
  dataDir: string
  /** How long the service may take to say where it listens (30 s). */
  timeoutMs?: number
}

/** Runs the service's CLI with the demo workspace, on the demo's previous port when it is free. */
export async function startDemoProcess(options: DemoProcessOptions): Promise<StartedDemo> {
  const port = previousPort(await previousDemo(options.dataDir))
  try {
    return await runServiceCli(options, port)
  } catch (error) {
    // Most likely the old port is taken (another Outpost?): any port will do; the demo account moves along.
    if (port === 0) throw error
    return runServiceCli(options, 0)
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? ''
}

function runServiceCli(options: DemoProcessOptions, port: number): Promise<StartedDemo> {
  const args = [
    '--import',
    'tsx',
    'src-server/cli.ts',
    '--seed',
    'demo',
    '--db',
    join(options.dataDir, 'demo.db'),
    '--port',
    String(port),
    '--quiet',
    '--exit-with-stdin',
  ]
  return new Promise<StartedDemo>((resolve, reject) => {
    // stdin is the child's lifeline: nothing is written to it, and it closes
    // when this process ends in any way, a crash included, so no orphan demo is left.
    const child = spawn(options.node, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true })
    let stderr = ''
    // Read for as long as the child runs: a full pipe would stall it.
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000)
    })
    const lines = createInterface({ input: child.stdout })
    let settled = false
    const fail = (message: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      lines.close()
      child.kill()
      reject(new Error(`The local demo service did not start: ${message}`))
    }
    const timer = setTimeout(() => fail(`no answer within ${(options.timeoutMs ?? 30_000) / 1000} s`), options.timeoutMs ?? 30_000)
    child.once('error', (error) => fail(`${options.node} could not be run (${error.message})`))
    child.once('exit', (code) => fail(`it stopped with exit code ${code}${stderr ? `: ${lastLine(stderr)}` : ''}`))
    // The CLI prints one JSON line once it listens: {baseUrl, workspace, tokens}.
    lines.once('line', (line) => {
      let printed: { baseUrl?: unknown; tokens?: { admin?: unknown } }
      try {
        printed = JSON.parse(line) as typeof printed
      } catch {
        return fail(`it printed "${line.slice(0, 200)}" instead of its address`)
      }
      if (typeof printed.baseUrl !== 'string' || typeof printed.tokens?.admin !== 'string') return fail('it did not print its address and tokens')
      settled = true
      clearTimeout(timer)
      resolve({
        demo: { baseUrl: printed.baseUrl, token: printed.tokens.admin },
        alive: () => child.exitCode === null && child.signalCode === null,
        close: () => stop(child),
      })
    })
  })
}

/** Asks the service to stop (it closes its database), and insists after 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
  await exited
  clearTimeout(timer)
}
