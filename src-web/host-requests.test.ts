// The browser host against requests no page of its own sends: any web page the
// user visits can make the browser ask 127.0.0.1 for `//[`, and a local
// program can send anything at all. Each is answered (or its connection
// closed) and the host goes on serving its page: over raw sockets, so nothing
// on the way tidies the request up first.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { HOST_BRIDGE_PATH, HOST_BRIDGE_PROTOCOL, HOST_SECRET_PROTOCOL_PREFIX, HOST_STAGE_PATH } from '../src-shared/ipc.ts'
import { startHost, type Host } from './host.ts'

const base = mkdtempSync(join(tmpdir(), 'outpost-host-requests-'))
let host: Host

beforeAll(async () => {
  mkdirSync(join(base, 'assets'))
  writeFileSync(join(base, 'index.html'), '<!doctype html><title>Outpost</title>')
  host = await startHost({ rendererDir: base })
})

afterAll(async () => {
  await host?.close()
  rmSync(base, { recursive: true, force: true })
})

/** Writes `bytes` on a new connection and answers the status line the host sent back ('' when it closed without one). */
function raw(bytes: string | Buffer, { endAfterHeaders = false } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(host.port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no answer in 5 s to ${String(bytes).slice(0, 80)}`))
    }, 5_000)
    const done = () => {
      clearTimeout(timer)
      resolve(Buffer.concat(chunks).toString('latin1').split('\r\n')[0])
    }
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      // A handshake that was accepted keeps its connection: its status line is all that is wanted.
      if (endAfterHeaders && Buffer.concat(chunks).includes('\r\n\r\n')) socket.destroy()
    })
    socket.on('close', done)
    // The host may close mid-write (a request line too long to read): what it answered still counts.
    socket.on('error', () => undefined)
    socket.end(bytes)
  })
}

const statusOf = (line: string): number | undefined => {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(line)
  return match ? Number(match[1]) : undefined
}

/** The page itself, asked for as a browser does: the host is still there and serving. */
async function servesItsPage(): Promise<void> {
  const answer = await fetch(`${host.origin}/`)
  expect(answer.status).toBe(200)
  expect(await answer.text()).toContain('<title>Outpost</title>')
}

const get = (target: string | Buffer, headers = '') =>
  Buffer.concat([
    Buffer.from('GET '),
    Buffer.isBuffer(target) ? target : Buffer.from(target, 'latin1'),
    Buffer.from(` HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}Connection: close\r\n\r\n`),
  ])

const upgradeHeaders = (origin = host.origin, protocols = HOST_BRIDGE_PROTOCOL) =>
  `Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: ${protocols}\r\nOrigin: ${origin}\r\n`

describe('a malformed request', () => {
  // What each is answered: 400 for a target that is no path of the host, 404 for a path it has no file at,
  // and the HTTP parser's own refusals (a NUL byte: 400; a request line of 100 KB: 431).
  const cases: Array<[string, Buffer | string, number]> = [
    ['//[ (a URL parser takes it for a host and throws)', '//[', 400],
    ['a lone %', '/%', 404],
    ['bad percent-encoding', '/%E0%A4%A', 404],
    ['an encoded NUL', '/assets/%00.js', 404],
    ['a NUL byte', Buffer.from('/a\0b'), 400],
    ['an absolute URL of another host', 'http://evil.example/', 400],
    ['*', '*', 400],
    ['a path of 100 KB', `/${'a'.repeat(100 * 1024)}`, 431],
  ]

  it.each(cases)('%s is answered, and the host serves its page after it', async (_what, target, status) => {
    expect(statusOf(await raw(get(target)))).toBe(status)
    await servesItsPage()
  })

  it.each(cases)('%s as a WebSocket upgrade is refused, and the host serves its page after it', async (_what, target, status) => {
    // The parser's own refusals come before the upgrade is looked at; the rest are the host's.
    expect(statusOf(await raw(get(target, upgradeHeaders())))).toBe(status === 404 ? 404 : status)
    await servesItsPage()
  })

  it('on the stage path is refused like any stranger', async () => {
    expect(
      statusOf(
        await raw(`POST ${HOST_STAGE_PATH}?%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${host.origin}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
      ),
    ).toBe(403)
    await servesItsPage()
  })
})

describe('a socket of the page that sends what no page sends', () => {
  const secret = () => `${HOST_SECRET_PROTOCOL_PREFIX}${host.secret}`

  it.each([['null'], ['[]'], ['"invoke"'], ['{"type":"invoke"}'], ['{"type":"invoke","id":"1","channel":"outpost:app.info"}'], ['not json']])(
    'is closed on %s, and the host goes on',
    async (text) => {
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}${HOST_BRIDGE_PATH}`, [HOST_BRIDGE_PROTOCOL, secret()], { origin: host.origin })
      await new Promise((resolve, reject) => {
        ws.once('open', resolve)
        ws.once('error', reject)
      })
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
      ws.send(text)
      expect(await closed).toBe(1003)
      await servesItsPage()
    },
  )

  it('is closed on a frame the protocol forbids (unmasked), and the host goes on', async () => {
    const status = await new Promise<string>((resolve) => {
      const socket = connect(host.port, '127.0.0.1')
      let answer = ''
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1')
        // Accepted: a client's frame must be masked, this one is not.
        if (answer.includes('\r\n\r\n')) socket.write(Buffer.from([0x81, 0x02, 0x68, 0x69]))
      })
      socket.on('error', () => undefined)
      socket.on('close', () => resolve(answer.split('\r\n')[0]))
      socket.write(
        get(HOST_BRIDGE_PATH, upgradeHeaders(host.origin, `${HOST_BRIDGE_PROTOCOL}, ${secret()}`))
          .toString('latin1')
          .replace('Connection: close', 'Connection: Upgrade'),
      )
    })
    expect(statusOf(status)).toBe(101)
    await servesItsPage()
  })
})

describe('fuzzed requests', () => {
  /** Characters that trouble URL parsers, percent-decoding and path joining. */
  const nasty = fc.constantFrom(
    '/',
    '[',
    ']',
    '%',
    '\\',
    '?',
    '#',
    '@',
    ':',
    '.',
    '..',
    '%2e',
    '%2F',
    '%00',
    '%zz',
    '%E0%A4',
    'a',
    'Z',
    '0',
    '~',
    '"',
    "'",
    '<',
    '{',
    '|',
    ' ',
    '\t',
    '\0',
    'é',
    '𝄞',
    '\u202e',
  )
  const target = fc.oneof(
    fc.string({ unit: nasty, maxLength: 40 }).map((s) => `/${s}`),
    fc.string({ unit: nasty, maxLength: 40 }).map((s) => `//${s}`),
    fc.string({ unit: nasty, maxLength: 40 }),
    fc.string({ unit: nasty, maxLength: 20 }).map((s) => `http://${s}`),
    fc.constantFrom(HOST_BRIDGE_PATH, HOST_STAGE_PATH, '/', '/index.html').chain((path) => fc.string({ unit: nasty, maxLength: 20 }).map((s) => `${path}${s}`)),
  )
  const method = fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'OPTIONS', 'DELETE', 'BREW')
  const headerValue = fc.string({ unit: nasty, maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ''))

  it('over HTTP: each is answered below 500 or closed by the parser, and the host serves its page after them', async () => {
    let answered = 0
    await fc.assert(
      fc.asyncProperty(method, target, headerValue, async (verb, path, value) => {
        const line = await raw(
          Buffer.from(`${verb} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Outpost-File-Name: ${value}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, 'utf8'),
        )
        const status = statusOf(line)
        if (status !== undefined) answered++
        expect(status === undefined || status < 500, `${verb} ${JSON.stringify(path)} → ${line}`).toBe(true)
      }),
      { numRuns: 300, seed: 36 },
    )
    expect(answered).toBeGreaterThan(250)
    await servesItsPage()
  })

  it('as WebSocket upgrades: each is refused below 500, and the host serves its page after them', async () => {
    await fc.assert(
      fc.asyncProperty(target, fc.oneof(fc.constant(host.origin), headerValue), headerValue, async (path, origin, protocols) => {
        const line = await raw(get(Buffer.from(path, 'utf8'), upgradeHeaders(origin, `${HOST_BRIDGE_PROTOCOL}, ${protocols}`)), { endAfterHeaders: true })
        const status = statusOf(line)
        // Without this launch's secret nothing is accepted.
        expect(status === undefined || (status >= 400 && status < 500), `${JSON.stringify(path)} from ${JSON.stringify(origin)} → ${line}`).toBe(true)
      }),
      { numRuns: 300, seed: 36 },
    )
    await servesItsPage()
  })
})
