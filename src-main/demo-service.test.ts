// Starting the local demo service on demand: once and reused, again after a
// failure or a crash, and (as a development build of the Electron app does)
// as the service's own CLI run with Node.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { request } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'
import { demoLauncher, runningDemo, startDemoProcess, type StartedDemo } from './demo-service.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-demo-service-'))
  dirs.push(dir)
  return dir
}

describe('demoLauncher', () => {
  it('starts once for any number of callers, tries again after a failure, and restarts a demo that died', async () => {
    const log: string[] = []
    let alive = true
    let failNext = true
    const launcher = demoLauncher(async (): Promise<StartedDemo> => {
      log.push('start')
      if (failNext) {
        failNext = false
        throw new Error('port taken')
      }
      alive = true
      return { demo: { baseUrl: `http://127.0.0.1:${log.length}`, token: 't' }, alive: () => alive, close: async () => void log.push('close') }
    })
    await expect(launcher.start()).rejects.toThrow('port taken')
    const [a, b] = await Promise.all([launcher.start(), launcher.start()])
    expect(a).toEqual(b)
    expect(log).toEqual(['start', 'start'])
    alive = false
    expect((await launcher.start()).baseUrl).not.toBe(a.baseUrl)
    expect(log).toEqual(['start', 'start', 'start'])
    await launcher.close()
    await launcher.close()
    expect(log).toEqual(['start', 'start', 'start', 'close'])
  })

  it('hands over the demo `npm start` runs, and leaves it running', async () => {
    const launcher = runningDemo({ baseUrl: 'http://127.0.0.1:5999', token: 'svc_x' })
    expect(await launcher.start()).toEqual({ baseUrl: 'http://127.0.0.1:5999', token: 'svc_x' })
    await launcher.close()
  })
})

describe('startDemoProcess', () => {
  it('runs the service CLI with the demo workspace in the data folder, and stops it', async () => {
    const dataDir = tempDir()
    const started = await startDemoProcess({ node: process.execPath, cwd: process.cwd(), dataDir })
    try {
      expect(started.demo.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const whoami = await request(`${started.demo.baseUrl}/api/v4/whoami`, { headers: { authorization: `Bearer ${started.demo.token}` } })
      expect(whoami.statusCode).toBe(200)
      expect(((await whoami.body.json()) as { entity: { workspace: { slug: string } } }).entity.workspace.slug).toBe('demo')
      expect(started.alive?.()).toBe(true)
    } finally {
      await started.close()
    }
    expect(started.alive?.()).toBe(false)
    await expect(request(`${started.demo.baseUrl}/api/v4/whoami`)).rejects.toThrow()
  })

  it('says why when the service cannot start', async () => {
    await expect(startDemoProcess({ node: process.execPath, cwd: tempDir(), dataDir: tempDir() })).rejects.toThrow(
      /The local demo service did not start: it stopped with exit code 1/,
    )
    await expect(startDemoProcess({ node: join(tempDir(), 'no-node-here'), cwd: process.cwd(), dataDir: tempDir() })).rejects.toThrow(/could not be run/)
  })
})

describe('the demo process and a crashed app', () => {
  it('stops when the app that started it dies without a word (SIGKILL)', async () => {
    // A stand-in for the Electron main process: starts the demo as the app does, says where it is, then waits to be killed.
    const parentScript = join(tempDir(), 'parent.mjs')
    writeFileSync(
      parentScript,
      `import { startDemoProcess } from ${JSON.stringify(join(process.cwd(), 'src-main/demo-service.ts'))}
const started = await startDemoProcess({ node: process.execPath, cwd: process.cwd(), dataDir: ${JSON.stringify(tempDir())} })
console.log(started.demo.baseUrl)
setInterval(() => {}, 1000)
`,
    )
    const app = spawn(process.execPath, ['--import', 'tsx', parentScript], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] })
    const [baseUrl] = (await once(createInterface({ input: app.stdout }), 'line')) as [string]
    const answers = () =>
      request(`${baseUrl}/api/v4/whoami`).then(
        (r) => r.body.dump().then(() => true),
        () => false,
      )
    expect(await answers()).toBe(true)
    app.kill('SIGKILL')
    await expect.poll(answers, { timeout: 20_000, interval: 200 }).toBe(false)
  }, 60_000)
})
