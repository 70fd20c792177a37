// `npm start` on a machine without Electron's binary: it tries Electron's own
// installer, and when the network does not allow it, opens the same app in the
// default browser through the browser host, saying so in one line. With a
// binary, it starts the demo service and launches the app signed in to it.
// Both run the real script; the browser and the "Electron" are small stand-ins
// that record what they were given.
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { plan } from './start-plan.mjs'

const root = join(import.meta.dirname, '..')
const base = mkdtempSync(join(tmpdir(), 'outpost-start-'))
const children: ChildProcess[] = []
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM')
  await sleep(300)
  rmSync(base, { recursive: true, force: true })
})

/** An executable shell script at `path`. */
function script(path: string, body: string): string {
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
  return path
}

async function waitFor<T>(what: string, read: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

/** Runs `npm start` (the built app: --no-build) with `env`, its output collected. */
function start(dir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['scripts/start.mjs', '--no-build', '--data-dir', dir], {
    cwd: root,
    env: { ...process.env, ...env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  const out = { text: '' }
  child.stdout!.on('data', (chunk) => (out.text += chunk))
  child.stderr!.on('data', (chunk) => (out.text += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, out, exited }
}

describe('what npm start runs', () => {
  it('the binary when it is there; else the installer, then the binary it fetched; else the browser, with why', async () => {
    const said: string[] = []
    const say = (line: string) => said.push(line)
    const never = () => Promise.reject(new Error('the installer must not run'))
    expect(await plan({ binary: () => '/opt/electron', install: never, say })).toEqual({ kind: 'electron', path: '/opt/electron' })
    expect(said).toEqual([])

    let installed = false
    const fetched = await plan({ binary: () => (installed ? '/fetched/electron' : undefined), install: async () => void (installed = true), say })
    expect(fetched).toEqual({ kind: 'electron', path: '/fetched/electron' })
    expect(said).toEqual(['The Electron binary is not installed; fetching it with Electron’s installer…'])

    expect(await plan({ binary: () => undefined, install: async () => 'getaddrinfo ENOTFOUND github.com', say })).toEqual({
      kind: 'browser',
      why: 'getaddrinfo ENOTFOUND github.com',
    })
    expect(await plan({ binary: () => undefined, install: async () => undefined, say })).toEqual({
      kind: 'browser',
      why: 'the installer ran but left no binary',
    })
  })
})

describe('npm start', () => {
  it('with no binary and no network, opens the app in the browser and says so in one line', async () => {
    const dir = join(base, 'browser')
    const opened = join(base, 'opened.txt')
    // The stand-in browser writes down its whole command line: what any local user could read with ps.
    const browser = script(join(base, 'browser.sh'), `echo "$@" > '${opened}'`)
    const { out, exited, child } = start(dir, {
      // No binary: an empty place for it. No network: Electron's download points at a port nothing listens on.
      ELECTRON_OVERRIDE_DIST_PATH: join(base, 'no-electron'),
      ELECTRON_MIRROR: 'http://127.0.0.1:9/',
      electron_config_cache: join(base, 'electron-cache'),
      BROWSER: browser,
    })
    const url = await waitFor('the browser to be opened', () => (existsSync(opened) ? readFileSync(opened, 'utf8').trim() || undefined : undefined))
    // A one-time address, never the launch secret (which the host prints to this terminal only).
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#outpost-code=[0-9a-f]{48}$/)
    const secret = await waitFor('the address with the key', () => /#outpost-secret=([0-9a-f]{48})/.exec(out.text)?.[1])
    expect(url).not.toContain(secret)
    const page = await fetch(url.split('#')[0])
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<title>')
    // What the page does with it: trades the code for the secret, once.
    const origin = new URL(url).origin
    const trade = () => fetch(`${origin}/key`, { method: 'POST', headers: { origin }, body: url.split('#outpost-code=')[1] })
    const traded = await trade()
    expect(traded.status).toBe(200)
    expect(await traded.json()).toEqual({ secret })
    expect((await trade()).status).toBe(403)
    const lines = out.text.split('\n').filter((l) => l.startsWith('Outpost opens in your browser'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^Outpost opens in your browser instead: the Electron binary could not be fetched \(.+\)\.$/)
    // The demo workspace is there, signed in: the host started its service.
    expect(out.text).toMatch(/Local service with the demo workspace at http:\/\/127\.0\.0\.1:\d+/)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('with a binary, starts the demo service and launches the app signed in to it, and stops the service with it', async () => {
    const dir = join(base, 'electron')
    const dist = join(base, 'dist')
    const seen = join(base, 'electron-saw.txt')
    rmSync(dist, { recursive: true, force: true })
    await import('node:fs').then((fs) => fs.mkdirSync(dist, { recursive: true }))
    // The stand-in "Electron": records the app folder and the demo it was given, waits a moment, exits.
    script(join(dist, 'electron'), `echo "$1 $OUTPOST_DEMO_BASE_URL $OUTPOST_DEMO_TOKEN" > '${seen}'; sleep 2`)
    const { out, exited } = start(dir, { ELECTRON_OVERRIDE_DIST_PATH: dist })
    const [app, baseUrl, token] = (
      await waitFor('the app to be launched', () => (existsSync(seen) ? readFileSync(seen, 'utf8').trim() || undefined : undefined))
    ).split(' ')
    expect(app).toBe('.')
    const me = await fetch(`${baseUrl}/api/v3/member`, { headers: { 'Shortcut-Token': token } })
    expect(me.status).toBe(200)
    expect(out.text).not.toContain('fetching it')
    expect(await exited).toBe(0)
    // The service went with the app.
    await expect(fetch(`${baseUrl}/api/v3/member`, { headers: { 'Shortcut-Token': token } })).rejects.toThrow()
  })
})
