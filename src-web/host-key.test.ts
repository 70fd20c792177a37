// The one-time address of the browser host: what `npm start` hands the browser
// on a command line (readable by every local user) in place of the launch
// secret. Its code is traded for the secret once, from the host's own origin,
// within a minute; a replayed, expired or wrong code gets nothing, and the
// secret is in no argument of the opener. Against a real host over HTTP, and
// the page's side of the trade with plain objects for its location, history
// and storage (e2e/specs/one-time-address.spec.ts opens it in Chromium).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hostSecretFromPage, oneTimeCodeRefused, takeOneTimeCode } from '../src-renderer/src/lib/host-key.ts'
import { HOST_CODE_LIFETIME_MS, HOST_KEY_PATH } from '../src-shared/ipc.ts'
import { startHost, type Host } from './host.ts'
import { browserCommand } from './open-browser.ts'

const base = mkdtempSync(join(tmpdir(), 'outpost-host-key-'))
let host: Host
let now = Date.parse('2026-11-26T15:20:00Z')

beforeAll(async () => {
  writeFileSync(join(base, 'index.html'), '<!doctype html><title>Outpost</title>')
  host = await startHost({ rendererDir: base, now: () => now })
})

afterAll(async () => {
  await host?.close()
  rmSync(base, { recursive: true, force: true })
})

const codeOf = (url: string) => new URL(url).hash.replace(/^#outpost-code=/, '')

/** The page's trade, as a browser sends it: a POST from the page's origin, the code as the body. */
const trade = (code: string, origin: string | null = host.origin, method = 'POST') =>
  fetch(`${host.origin}${HOST_KEY_PATH}`, { method, headers: origin ? { origin } : {}, ...(method === 'POST' && { body: code }) })

describe('a one-time address', () => {
  it('holds a code of 192 bits in place of the secret, a new one each time', () => {
    const first = host.oneTimeUrl()
    expect(first).toMatch(new RegExp(`^${host.origin}/#outpost-code=[0-9a-f]{48}$`))
    expect(first).not.toContain(host.secret)
    expect(codeOf(host.oneTimeUrl())).not.toBe(codeOf(first))
  })

  it('is traded for the secret once, and refused when replayed', async () => {
    const code = codeOf(host.oneTimeUrl())
    const first = await trade(code)
    expect(first.status).toBe(200)
    expect(first.headers.get('cache-control')).toBe('no-store')
    expect(await first.json()).toEqual({ secret: host.secret })
    const again = await trade(code)
    expect(again.status).toBe(403)
    expect(await again.json()).toEqual({ error: expect.stringContaining('used already, or it expired') })
  })

  it('is refused once it expired', async () => {
    const code = codeOf(host.oneTimeUrl())
    now += HOST_CODE_LIFETIME_MS + 1
    expect((await trade(code)).status).toBe(403)
    // A code a minute old at most is still good.
    const fresh = codeOf(host.oneTimeUrl())
    now += HOST_CODE_LIFETIME_MS - 1
    expect((await trade(fresh)).status).toBe(200)
  })

  it('refuses a wrong code, a page of another origin and anything but a POST, leaving the right code good', async () => {
    const code = codeOf(host.oneTimeUrl())
    const wrong = `${code.slice(0, -1)}${code.endsWith('0') ? '1' : '0'}`
    expect((await trade(wrong)).status).toBe(403)
    expect((await trade('')).status).toBe(403)
    expect((await trade('x'.repeat(10_000))).status).toBe(400)
    expect((await trade(code, 'https://evil.example')).status).toBe(403)
    expect((await trade(code, `http://localhost:${host.port}`)).status).toBe(403)
    expect((await trade(code, null)).status).toBe(403)
    expect((await trade(code, host.origin, 'GET')).status).toBe(405)
    expect(await (await trade(code)).json()).toEqual({ secret: host.secret })
  })
})

describe('the browser opener', () => {
  it('is given a one-time address and never the secret, whichever opener the OS has', () => {
    for (const [platform, env] of [
      ['linux', {}],
      ['linux', { BROWSER: '/usr/bin/firefox' }],
      ['darwin', {}],
      ['win32', {}],
    ] as const) {
      const { command, args } = browserCommand(host, platform, env)
      const argv = [command, ...args].join(' ')
      expect(argv, platform).not.toContain(host.secret)
      expect(args.at(-1), platform).toMatch(/#outpost-code=[0-9a-f]{48}$/)
    }
    expect(browserCommand(host, 'linux', { BROWSER: '/usr/bin/firefox' }).command).toBe('/usr/bin/firefox')
    expect(browserCommand(host, 'linux', {}).command).toBe('xdg-open')
    expect(browserCommand(host, 'darwin', {}).command).toBe('open')
    expect(browserCommand(host, 'win32', {})).toMatchObject({ command: 'cmd', args: ['/c', 'start', '""', expect.any(String)] })
  })
})

describe('the page', () => {
  /** A page's location, history and sessionStorage, opened at `url`. */
  function pageAt(url: string) {
    const location = new URL(url) as unknown as Location
    const stored = new Map<string, string>()
    const history = {
      state: null,
      replaceState: (_state: unknown, _unused: string, to: string) => {
        const next = new URL(to, location.href)
        location.hash = next.hash
      },
    } as unknown as History
    const storage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) } as Storage
    /** The page's fetch: a browser adds the page's origin to a POST. */
    const post: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), origin: host.origin } })
    return { location, history, storage, post }
  }

  it('trades the code in its address for the secret before anything asks for it, and takes the code out of the address bar', async () => {
    const page = pageAt(`${host.oneTimeUrl()}&/epics`)
    await takeOneTimeCode(page.location, page.history, page.storage, page.post)
    expect(page.location.hash).toBe('#%2Fepics=')
    expect(hostSecretFromPage(page.location, page.history, page.storage)).toBe(host.secret)
  })

  it('has no secret after a replayed code, and says why', async () => {
    const url = host.oneTimeUrl()
    await takeOneTimeCode(pageAt(url).location, pageAt(url).history, pageAt(url).storage, pageAt(url).post)
    const replay = pageAt(url)
    await takeOneTimeCode(replay.location, replay.history, replay.storage, replay.post)
    expect(hostSecretFromPage(replay.location, replay.history, replay.storage)).toBeUndefined()
    expect(oneTimeCodeRefused()).toMatch(/used already, or it expired/)
  })
})
