// The browser host against the real local service: who may connect, and the
// handler table answering over the socket through the renderer's own bridge.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { BridgeError, hostBridge, type Bridge } from '../src-renderer/src/lib/bridge.ts'
import {
  HOST_BRIDGE_PATH,
  HOST_BRIDGE_PROTOCOL,
  HOST_FILE_NAME_HEADER,
  HOST_SECRET_HEADER,
  HOST_SECRET_PROTOCOL_PREFIX,
  HOST_STAGE_PATH,
  tooLargeToUpload,
  type EventChannel,
} from '../src-shared/ipc.ts'
import { MemorySecretStore } from './memory-secrets.ts'
import { startWebApp, type WebApp } from './web-app.ts'

const base = mkdtempSync(join(tmpdir(), 'outpost-host-'))
const rendererDir = join(base, 'renderer')
const dataDir = join(base, 'data')
mkdirSync(join(rendererDir, 'assets'), { recursive: true })
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Outpost</title><script type="module" src="/assets/app.js"></script>')
writeFileSync(join(rendererDir, 'assets', 'app.js'), 'export {}')
writeFileSync(join(rendererDir, 'assets', 'app-D1_c-Y9z.js'), 'export {}')
writeFileSync(join(base, 'private.txt'), 'private')

let app: WebApp
const bridges: Array<Bridge & { close(): void }> = []

/** A WebSocket as a page of `origin` opens it (Node's ws lets us set the Origin a browser would). */
function socketFrom(origin: string) {
  return class extends WebSocket {
    constructor(url: string, protocols: string[]) {
      super(url, protocols, { origin })
    }
  } as unknown as new (url: string, protocols: string[]) => globalThis.WebSocket
}

/** A fetch as a page of `origin` makes it (a browser says its origin on every POST). */
function fetchFrom(origin: string): typeof fetch {
  return (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), origin } })
}

const stageUrl = () => `${app.host.origin}${HOST_STAGE_PATH}`

function pageBridge(secret = app.host.secret, origin = app.host.origin) {
  const b = hostBridge({
    url: `ws://127.0.0.1:${app.host.port}${HOST_BRIDGE_PATH}`,
    stageUrl: stageUrl(),
    fetch: fetchFrom(origin),
    secret,
    WebSocket: socketFrom(origin),
    reconnectMs: 60_000,
  })
  bridges.push(b)
  return b
}

/** The handshake's outcome: 'open', or the HTTP status the host refused it with. */
function handshake(protocols: string[], origin?: string): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${app.host.port}${HOST_BRIDGE_PATH}`, protocols, origin ? { origin } : {})
    ws.on('open', () => {
      ws.close()
      resolve('open')
    })
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('error', (error) => reject(error))
  })
}

function collect<E extends EventChannel>(b: Bridge, event: E) {
  const seen: unknown[] = []
  b.on(event, (payload) => seen.push(payload))
  return seen
}

/** Lists longer than this come to the page in parts (HOST_PART_ITEMS is 1,000; the demo has a few dozen epics). */
const PART_ITEMS = 10
/** The largest file the host stages in these tests. */
const MAX_FILE = 64 * 1024

beforeAll(async () => {
  app = await startWebApp({ rendererDir, dataDir, secrets: new MemorySecretStore(), partItems: PART_ITEMS, maxFileBytes: MAX_FILE })
})

afterAll(async () => {
  for (const b of bridges) b.close()
  await app?.close()
  rmSync(base, { recursive: true, force: true })
})

describe('the browser host', () => {
  it('serves the built renderer on 127.0.0.1 with the CSP, and nothing outside it', async () => {
    expect(app.host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#outpost-secret=[0-9a-f]{48}$/)
    const page = await request(`${app.host.origin}/`)
    expect(page.statusCode).toBe(200)
    expect(await page.body.text()).toContain('<title>Outpost</title>')
    expect(String(page.headers['content-security-policy'])).toContain(`connect-src 'self' ws://127.0.0.1:${app.host.port}`)
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'")
    expect(page.headers['cache-control']).toBe('no-cache')
    // The build's chunks are named by their content's hash: the browser keeps them (and their compiled code) for good.
    const chunk = await request(`${app.host.origin}/assets/app-D1_c-Y9z.js`)
    expect(chunk.statusCode).toBe(200)
    expect(chunk.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(await chunk.body.text()).toBe('export {}')
    const traversal = await request(`${app.host.origin}/%2e%2e/private.txt`)
    expect(traversal.statusCode).toBe(404)
    expect(await traversal.body.text()).not.toContain('private')
  })

  it('refuses a WebSocket with a wrong secret, no secret, or a foreign Origin, and accepts its own page', async () => {
    const secret = `${HOST_SECRET_PROTOCOL_PREFIX}${app.host.secret}`
    expect(await handshake([HOST_BRIDGE_PROTOCOL, `${HOST_SECRET_PROTOCOL_PREFIX}${'0'.repeat(48)}`], app.host.origin)).toBe(403)
    expect(await handshake([HOST_BRIDGE_PROTOCOL, `${HOST_SECRET_PROTOCOL_PREFIX}short`], app.host.origin)).toBe(403)
    expect(await handshake([HOST_BRIDGE_PROTOCOL], app.host.origin)).toBe(403)
    expect(await handshake([HOST_BRIDGE_PROTOCOL, secret], 'https://evil.example')).toBe(403)
    expect(await handshake([HOST_BRIDGE_PROTOCOL, secret], `http://localhost:${app.host.port}`)).toBe(403)
    expect(await handshake([HOST_BRIDGE_PROTOCOL, secret])).toBe(403)
    expect(await handshake([HOST_BRIDGE_PROTOCOL, secret], app.host.origin)).toBe('open')
  })

  it('makes a refused bridge fail with a clear error instead of hanging', async () => {
    const refused = pageBridge('f'.repeat(48))
    await expect(refused.call('outpost:app.info')).rejects.toBeInstanceOf(BridgeError)
  })
})

describe('the handler table over the socket', () => {
  it('is signed in to the demo workspace with no account set up', async () => {
    const page = pageBridge()
    expect(app.service).toBeDefined()
    const current = await page.call('outpost:accounts.current')
    expect(current).toMatchObject({ baseUrl: app.service!.baseUrl, workspaceSlug: 'demo', tokenKind: 'v4' })
    expect(await page.call('outpost:accounts.list')).toHaveLength(1)
    expect(await page.call('outpost:app.info')).toMatchObject({ name: 'Outpost', shell: 'browser' })
    expect(await page.call('outpost:secret-store.describe')).toMatchObject({ backend: 'memory' })
    expect(await page.call('outpost:connectivity.get')).toMatchObject({ online: true })
  })

  it('signs in to the running demo again from the demo card, without a second service', async () => {
    const page = pageBridge()
    const before = app.service
    const account = await page.call('outpost:demo.sign-in')
    expect(account).toMatchObject({ baseUrl: before!.baseUrl, workspaceSlug: 'demo' })
    expect(app.service).toBe(before)
    expect(await page.call('outpost:accounts.list')).toHaveLength(1)
    expect(await page.call('outpost:app.info')).toMatchObject({ demoAvailable: true })
  })

  it('runs named operations of the API contract through the gateway', async () => {
    const page = pageBridge()
    const epics = (await page.call('outpost:api.call', { operation: 'epics.list', query: { limit: 5 }, lane: 'sync' })) as any
    expect(Array.isArray(epics.entities)).toBe(true)
    expect(epics.entities.length).toBeGreaterThan(0)
    const created = (await page.call('outpost:api.call', { operation: 'epics.create', body: { name: 'Made over the host socket' } })) as any
    const read = (await page.call('outpost:api.call', { operation: 'epics.get', params: { id: created.id } })) as any
    expect(read.name).toBe('Made over the host socket')
  })

  it('gives a long list back whole, though it crosses the socket in parts', async () => {
    const frames: string[] = []
    const Socket = socketFrom(app.host.origin) as unknown as typeof WebSocket
    const Counting = class extends Socket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols)
        this.on('message', (data) => frames.push(String(data)))
      }
    }
    const page = hostBridge({
      url: `ws://127.0.0.1:${app.host.port}${HOST_BRIDGE_PATH}`,
      stageUrl: stageUrl(),
      secret: app.host.secret,
      WebSocket: Counting as unknown as new (url: string, protocols: string[]) => globalThis.WebSocket,
    })
    bridges.push(page)
    const list = (await page.call('outpost:api.call', { operation: 'epics.v3List' })) as { id: number }[]
    const direct = await request(`${app.service!.baseUrl}/api/v3/epics`, { headers: { 'Shortcut-Token': app.service!.tokens.admin } })
    const expected = (await direct.body.json()) as { id: number }[]
    expect(expected.length).toBeGreaterThan(2 * PART_ITEMS)
    expect(list.map((e) => e.id)).toEqual(expected.map((e) => e.id))
    // What crossed: ceil(n / PART_ITEMS) parts of at most PART_ITEMS, then the answer with an empty list.
    const messages = frames
      .map((f) => JSON.parse(f) as { type: string; items?: unknown[]; parts?: number; result?: { value: unknown } })
      .filter((m) => m.type !== 'event')
    const parts = messages.filter((m) => m.type === 'part')
    expect(parts).toHaveLength(Math.ceil(expected.length / PART_ITEMS))
    expect(parts.every((p) => p.items!.length <= PART_ITEMS)).toBe(true)
    expect(messages.at(-1)).toMatchObject({ type: 'result', parts: parts.length, result: { value: [] } })
  })

  it('answers failures as typed errors: unknown operation, bad request, the service’s 404', async () => {
    const page = pageBridge()
    const failure = async (promise: Promise<unknown>) => {
      try {
        await promise
      } catch (error) {
        expect(error).toBeInstanceOf(BridgeError)
        return (error as BridgeError).error
      }
      throw new Error('expected a failure')
    }
    expect(await failure(page.call('outpost:api.call', { operation: 'epics.drop' as never }))).toMatchObject({ source: 'ipc', kind: 'invalid-request' })
    expect(await failure(page.call('outpost:accounts.switch', { id: 42 as never }))).toMatchObject({ source: 'ipc', kind: 'invalid-request' })
    expect(await failure(page.call('outpost:accounts.switch', { id: 'nobody' }))).toMatchObject({ source: 'account', kind: 'unknown-account' })
    expect(await failure(page.call('outpost:api.call', { operation: 'epics.get', params: { id: 99_999_999 } }))).toMatchObject({
      source: 'gateway',
      kind: 'http',
      status: 404,
    })
    expect(await failure(page.call('outpost:accounts.add', { baseUrl: app.service!.baseUrl, token: 'svc_rw_not-a-real-token' }))).toMatchObject({
      source: 'account',
      kind: 'bad-token',
    })
  })

  it('uploads a file the page was given, with progress events, and downloads it back', async () => {
    const page = pageBridge()
    const progress = collect(page, 'outpost:upload-progress')
    const content = 'Notes for the offsite.\n'.repeat(200)
    const path = await page.pathForFile(new File([content], 'offsite notes.txt', { type: 'text/plain' }))
    const uploaded = (await page.call('outpost:files.upload', { uploadId: 'up-1', paths: [path] })) as any[]
    expect(uploaded).toHaveLength(1)
    expect(uploaded[0].name).toBe('offsite notes.txt')
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.at(-1)).toEqual({ uploadId: 'up-1', bytesSent: content.length, bytesTotal: content.length })

    const downloads = collect(page, 'outpost:download-progress')
    const saved = await page.call('outpost:files.download', { downloadId: 'down-1', fileId: uploaded[0].id })
    expect(saved.bytes).toBe(content.length)
    expect(readFileSync(saved.path, 'utf8')).toBe(content)
    expect(saved.path.startsWith(dataDir)).toBe(true)
    expect(downloads.at(-1)).toMatchObject({ downloadId: 'down-1', bytesReceived: content.length })
  })

  it('reads a file’s exact bytes over the socket, and stages (by a POST) and discards the page’s files', async () => {
    const page = pageBridge()
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 31 + 7) % 256)
    const path = await page.pathForFile(new File([bytes], 'pixels.png', { type: 'image/png' }))
    expect(path.startsWith(app.side.folders.staging)).toBe(true)
    // The page's file is a staged copy from the start: files.stage hands it back as it is.
    expect(await page.call('outpost:files.stage', { path })).toEqual({ path, size: 1000 })
    const uploaded = (await page.call('outpost:files.upload', { uploadId: 'up-3', paths: [path] })) as any[]

    // Base64 on the wire, a Uint8Array again in the page.
    const read = await page.call('outpost:files.read', { fileId: uploaded[0].id })
    expect(read.bytes).toBeInstanceOf(Uint8Array)
    expect(Array.from(read.bytes)).toEqual(Array.from(bytes))
    expect(read).toMatchObject({ size: 1000, truncated: false, contentType: 'image/png' })

    await page.call('outpost:files.discard', { path })
    expect(existsSync(path)).toBe(false)
    await expect(page.call('outpost:files.discard', { path: join(dataDir, 'accounts.json') })).rejects.toMatchObject({
      error: { source: 'ipc', kind: 'invalid-request' },
    })
    expect(existsSync(join(dataDir, 'accounts.json'))).toBe(true)
    // A browser has no OS app to open it with: a typed answer, for the page to preview it instead.
    await expect(page.call('outpost:files.open', { fileId: uploaded[0].id })).rejects.toMatchObject({ error: { source: 'ipc', kind: 'unsupported' } })
  })

  it('stages a file the page POSTs as it comes, and refuses a stranger, a nameless file and one over the limit, keeping nothing of it', async () => {
    const staged = () => readdirSync(app.side.folders.staging, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
    const before = staged()
    const post = (headers: Record<string, string>, body: BodyInit) => fetch(stageUrl(), { method: 'POST', headers, body, duplex: 'half' } as RequestInit)
    const named = { [HOST_SECRET_HEADER]: app.host.secret, [HOST_FILE_NAME_HEADER]: encodeURIComponent('ré sumé.pdf') }

    // The page's own: streamed in parts (no length said), written whole under its name.
    const parts = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(1000).fill(i))
        controller.close()
      },
    })
    const ok = await post({ ...named, origin: app.host.origin }, parts)
    expect(ok.status).toBe(200)
    const { path } = (await ok.json()) as { path: string }
    expect(path.startsWith(app.side.folders.staging)).toBe(true)
    expect(path.endsWith('-ré sumé.pdf')).toBe(true)
    expect(readFileSync(path)).toEqual(Buffer.concat([0, 1, 2, 3].map((i) => Buffer.alloc(1000, i))))

    // Another origin, no secret, a wrong one: 403.
    for (const headers of [
      { ...named, origin: 'https://example.com' },
      { [HOST_FILE_NAME_HEADER]: 'a.txt' },
      { ...named, [HOST_SECRET_HEADER]: 'f'.repeat(48) },
    ]) {
      const refused = await post(headers, 'x')
      expect(refused.status).toBe(403)
    }
    // No name, or one that is not URI-encoded text: 400, saying what is missing.
    for (const name of [undefined, '%E0%A4%A']) {
      const refused = await post({ [HOST_SECRET_HEADER]: app.host.secret, ...(name ? { [HOST_FILE_NAME_HEADER]: name } : {}) }, 'x')
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as { error: string }).error).toContain(HOST_FILE_NAME_HEADER)
    }
    // Over the limit: said by its length, refused before it is read; streamed without one, refused when the limit is passed.
    const big = await post(named, new Uint8Array(MAX_FILE + 1))
    expect(big.status).toBe(413)
    expect(((await big.json()) as { error: string }).error).toBe(tooLargeToUpload('ré sumé.pdf', MAX_FILE))
    const flowing = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(16 * 1024))
      },
    })
    const endless = await post(named, flowing)
    expect(endless.status).toBe(413)
    // Only the one staged file is left: nothing of the refused ones, not even a part.
    expect(staged()).toBe(before + 1)

    // Through the page's bridge: the service's words for a file over the host's limit.
    const page = pageBridge()
    await expect(page.pathForFile(new File([new Uint8Array(MAX_FILE + 10)], 'big.bin'))).rejects.toMatchObject({
      error: { kind: 'invalid-request', message: tooLargeToUpload('big.bin', MAX_FILE) },
    })
  })

  it('uploads no path the user did not give', async () => {
    const page = pageBridge()
    const secretFile = join(base, 'private.txt')
    await expect(page.call('outpost:files.upload', { uploadId: 'up-2', paths: [secretFile] })).rejects.toMatchObject({
      error: { source: 'ipc', kind: 'invalid-request' },
    })
  })

  it('tells every page to replay and sync when the workspace changes', async () => {
    const page = pageBridge()
    const replays = collect(page, 'outpost:replay-now')
    const syncs = collect(page, 'outpost:sync-now')
    const changes = collect(page, 'outpost:accounts-changed')
    await page.call('outpost:app.info') // the socket is open: events can flow
    const current = await page.call('outpost:accounts.current')
    await page.call('outpost:accounts.switch', { id: current!.id })
    await expect.poll(() => syncs.length).toBe(1)
    expect(replays).toEqual([{ reason: 'account' }])
    expect(syncs).toEqual([{ reason: 'account' }])
    expect(changes).toEqual([{ current }])
  })

  it('a page that took a deep link and closed before it said it opened it gives it back at once, and the other pages are told', async () => {
    const link = 'outpost://demo/epic/12'
    const going = pageBridge()
    const staying = pageBridge()
    const told = collect(staying, 'outpost:link')
    // Both sockets open: events reach them.
    await Promise.all([going.call('outpost:app.info'), staying.call('outpost:app.info')])
    app.side.links.push(link)
    expect(await going.call('outpost:links.take')).toEqual([link])
    await expect.poll(() => told.length).toBe(1)
    going.close()
    await expect.poll(() => told.length).toBe(2)
    expect(await staying.call('outpost:links.take')).toEqual([link])
    await staying.call('outpost:links.opened', { links: [link] })
  })
})

describe('a second launch on the same data', () => {
  it('signs in to the demo again, its tokens in memory having gone with the first run', async () => {
    const first = app.service!.baseUrl
    await app.close()
    app = await startWebApp({ rendererDir, dataDir, secrets: new MemorySecretStore() })
    const page = pageBridge()
    const current = await page.call('outpost:accounts.current')
    expect(current?.baseUrl).toBe(app.service!.baseUrl)
    // Same port when it is free, so the account's address stays the same.
    expect(app.service!.baseUrl).toBe(first)
    expect(await page.call('outpost:accounts.list')).toHaveLength(1)
    const epics = (await page.call('outpost:api.call', { operation: 'epics.list' })) as any
    expect(epics.entities.length).toBeGreaterThan(0)
  })
})
