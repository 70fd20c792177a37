// The browser host: the built renderer served on 127.0.0.1, and the main
// side's handler table over a WebSocket instead of Electron IPC. The e2e
// tests run the app this way in Chromium; people without an Electron binary
// can too (`npm run web`).
//
// Who may connect: a page of this host's own origin (the Origin header; a web
// page elsewhere cannot fake it) that knows this launch's secret (a local
// program can fake an Origin, but cannot know the secret). The secret reaches
// the page in the URL fragment, which the browser never sends to a server;
// where the address passes through a command line (which other local users
// can read), the fragment holds a one-time code instead, which the page
// exchanges for the secret once.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import {
  HOST_BRIDGE_PATH,
  HOST_BRIDGE_PROTOCOL,
  HOST_BYTES_KEY,
  HOST_CODE_FRAGMENT,
  HOST_CODE_LIFETIME_MS,
  HOST_FILE_NAME_HEADER,
  HOST_KEY_PATH,
  HOST_PART_ITEMS,
  HOST_SECRET_FRAGMENT,
  HOST_SECRET_HEADER,
  HOST_SECRET_PROTOCOL_PREFIX,
  HOST_STAGE_PATH,
  UPLOAD_LIMIT_BYTES,
  type EventChannel,
  type EventOf,
  type HostClientMessage,
  type HostMessage,
} from '../src-shared/ipc.ts'
import { accountStagingFolder, stageStream, TooLargeError } from '../src-main/files/staging.ts'
import { diskFullForStaging, isDiskFull } from '../src-main/files/disk-full.ts'
import { dispatch } from '../src-main/ipc/dispatch.ts'
import type { MainSide } from '../src-main/main-side.ts'
import { contentSecurityPolicy } from '../src-main/shell/content-security-policy.ts'
import { cacheControlOf, contentTypeOf, resolveRendererFile } from '../src-main/shell/app-protocol.ts'

export interface HostOptions {
  /** The built renderer (out/renderer). */
  rendererDir: string
  /** 0 (default): any free port. */
  port?: number
  /** Largest staged file, in bytes (UPLOAD_LIMIT_BYTES: the service takes 50 MiB). */
  maxFileBytes?: number
  /** Items of a long answer per message (HOST_PART_ITEMS; tests make it small). */
  partItems?: number
  /** Told of each call a page made once its answer is sent (bench/profile-bootstrap.ts prints them). */
  onCall?: (call: HostCall) => void
  /** The clock of one-time codes (tests move it). */
  now?: () => number
}

/** A page's call as the host served it; times are `performance.now()` of the host's process. */
export interface HostCall {
  channel: string
  request: unknown
  /** When it came in. */
  at: number
  /** Until the main side answered. */
  answerMs: number
  /** Until the answer was on the socket (made JSON and sent). */
  sendMs: number
}

export interface Host {
  /** The page to open, secret included (in the fragment). */
  url: string
  /**
   * The page to open with a new one-time code in place of the secret: for handing to another program
   * (a browser started by `npm start`), whose command line other local users can read. The code is
   * exchanged for the secret once, within HOST_CODE_LIFETIME_MS.
   */
  oneTimeUrl(): string
  origin: string
  port: number
  secret: string
  /** Sends an event to every connected page (the main side's `emit`). */
  emit: <E extends EventChannel>(event: E, payload: EventOf<E>) => void
  /**
   * Connects the main side once it is open (the host starts first so `emit`
   * exists). Files the page hands over are staged in the main side's staging
   * folder, where files.stage finds them already staged.
   */
  attach(side: HostedSide): void
  /** The pages' and their workers' sockets open now (a closed page's go a moment after it). */
  connections(): number
  close(): Promise<void>
}

type HostedSide = Pick<MainSide, 'table' | 'pickedFiles' | 'folders' | 'accounts' | 'links'>

/**
 * Answers are JSON on the socket, and JSON has no bytes: a Uint8Array (the
 * bytes of files.read) goes as base64 under HOST_BYTES_KEY, and the page's
 * bridge makes it a Uint8Array again.
 */
export function encodeHostMessage(message: HostMessage): string {
  return JSON.stringify(message, (_key, value: unknown) => {
    if (value instanceof Uint8Array) return { [HOST_BYTES_KEY]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') }
    if (value instanceof ArrayBuffer) return { [HOST_BYTES_KEY]: Buffer.from(value).toString('base64') }
    return value
  })
}

/** A result whose value is a list longer than `partItems`: its parts, then itself with an empty list (see HOST_PART_ITEMS). */
export function splitHostMessage(message: HostMessage, partItems = HOST_PART_ITEMS): HostMessage[] {
  if (message.type !== 'result' || !message.result.ok || !Array.isArray(message.result.value) || message.result.value.length <= partItems) return [message]
  const list = message.result.value as unknown[]
  const parts: HostMessage[] = []
  for (let at = 0; at < list.length; at += partItems) parts.push({ type: 'part', id: message.id, items: list.slice(at, at + partItems) })
  return [...parts, { ...message, parts: parts.length, result: { ok: true, value: [] } }]
}

function sameSecret(offered: string, secret: string): boolean {
  const a = Buffer.from(offered)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

function offeredProtocols(req: IncomingMessage): string[] {
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
}

/** Codes not yet used: a page that was never opened leaves one behind, so only the newest few are kept. */
const MAX_PENDING_CODES = 8

/** One-time codes for the secret: each good once, for HOST_CODE_LIFETIME_MS. */
export class OneTimeCodes {
  private pending: { code: string; until: number }[] = []

  constructor(private readonly now: () => number = Date.now) {}

  /** A new code of 192 random bits. */
  make(): string {
    const code = randomBytes(24).toString('hex')
    this.pending = [...this.pending.filter((p) => p.until > this.now()), { code, until: this.now() + HOST_CODE_LIFETIME_MS }].slice(-MAX_PENDING_CODES)
    return code
  }

  /** Whether `offered` is a code made here, unused and not expired; a code taken is void from then on. */
  take(offered: string): boolean {
    const now = this.now()
    // Every pending code is compared in constant time (none is skipped on a match), so the timing tells nothing.
    let found: { code: string; until: number } | undefined
    for (const p of this.pending) if (sameSecret(offered, p.code)) found = p
    this.pending = this.pending.filter((p) => p !== found && p.until > now)
    return found !== undefined && found.until > now
  }
}

export async function startHost(options: HostOptions): Promise<Host> {
  const secret = randomBytes(24).toString('hex')
  const codes = new OneTimeCodes(options.now)
  const maxFileBytes = options.maxFileBytes ?? UPLOAD_LIMIT_BYTES
  let side: HostedSide | undefined
  let origin = ''
  let policy = ''

  /**
   * The path a request asks for, or undefined when its target is none of this host's paths: anything but
   * an origin-relative path (`*`, `http://…`, `//[`, which a URL parser takes for a host and refuses).
   * Any page the user visits can make the browser send such a request here, so it is answered, never thrown.
   */
  const requestPath = (req: IncomingMessage): string | undefined => {
    const target = req.url ?? ''
    if (!target.startsWith('/') || target.startsWith('//')) return undefined
    try {
      return new URL(target, origin).pathname
    } catch {
      return undefined
    }
  }

  const serveFile = async (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    const headers = {
      'content-security-policy': policy,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
      'referrer-policy': 'no-referrer',
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, 'content-type': 'text/plain' }).end('Method not allowed')
      return
    }
    const file = resolveRendererFile(pathname, options.rendererDir)
    const info = file ? await stat(file).catch(() => undefined) : undefined
    if (!file || !info?.isFile()) {
      res.writeHead(404, { ...headers, 'content-type': 'text/plain' }).end('Not found')
      return
    }
    res.writeHead(200, { ...headers, 'cache-control': cacheControlOf(pathname), 'content-type': contentTypeOf(file), 'content-length': info.size })
    if (req.method === 'HEAD') res.end()
    else createReadStream(file).pipe(res)
  }

  const answerRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const pathname = requestPath(req)
    if (pathname === undefined) res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('Bad request')
    else if (pathname === HOST_STAGE_PATH) await stageRequest(req, res)
    else if (pathname === HOST_KEY_PATH) await keyRequest(req, res)
    else await serveFile(req, res, pathname)
  }

  // Whatever a request holds, it is answered: a throw here would end the host (and the app with it).
  const server: Server = createServer((req, res) => {
    answerRequest(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end()
      else res.destroy()
    })
  })
  const sockets = new WebSocketServer({
    noServer: true,
    // Requests (a bulk change of many epics); files come by HOST_STAGE_PATH.
    maxPayload: 64 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(HOST_BRIDGE_PROTOCOL) ? HOST_BRIDGE_PROTOCOL : false),
  })

  const refuse = (socket: Duplex, status: number, text: string) => {
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
  }

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = requestPath(req)
    if (pathname === undefined) return refuse(socket, 400, 'Bad Request')
    if (pathname !== HOST_BRIDGE_PATH) return refuse(socket, 404, 'Not Found')
    // A page of another origin (any web site the user visits) is refused by its Origin header.
    if (req.headers.origin !== origin) return refuse(socket, 403, 'Forbidden')
    const offered = offeredProtocols(req).find((p) => p.startsWith(HOST_SECRET_PROTOCOL_PREFIX))
    if (!offered || !sameSecret(offered.slice(HOST_SECRET_PROTOCOL_PREFIX.length), secret)) return refuse(socket, 403, 'Forbidden')
    if (!offeredProtocols(req).includes(HOST_BRIDGE_PROTOCOL)) return refuse(socket, 400, 'Bad Request')
    sockets.handleUpgrade(req, socket, head, (ws) => sockets.emit('connection', ws, req))
  }

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A peer that resets the connection while it is refused must not leave an unheard 'error'.
    socket.on('error', () => socket.destroy())
    try {
      upgrade(req, socket, head)
    } catch {
      refuse(socket, 400, 'Bad Request')
    }
  })

  const send = (ws: WebSocket, message: HostMessage) => {
    for (const part of splitHostMessage(message, options.partItems)) if (ws.readyState === ws.OPEN) ws.send(encodeHostMessage(part))
  }

  // The page has no paths of its own: its file is POSTed to HOST_STAGE_PATH (the browser streams it from disk) and
  // written into the staging folder as it comes, a staged copy from the start.
  const stageRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, body: { path: string } | { error: string }) => {
      // The body is not read past a refusal: the connection closes with the answer.
      res.writeHead(status, { 'content-type': 'application/json', ...(status >= 400 ? { connection: 'close' } : {}) }).end(JSON.stringify(body))
    }
    if (req.method !== 'POST') return answer(405, { error: 'Files are staged with a POST.' })
    // Only the page that was opened with the key: its own origin (a browser always says it on a POST) and the secret.
    const sentOrigin = req.headers.origin
    const sentSecret = req.headers[HOST_SECRET_HEADER]
    if ((sentOrigin !== undefined && sentOrigin !== origin) || typeof sentSecret !== 'string' || !sameSecret(sentSecret, secret))
      return answer(403, { error: 'Forbidden' })
    const rawName = req.headers[HOST_FILE_NAME_HEADER]
    let name = ''
    try {
      name = typeof rawName === 'string' ? decodeURIComponent(rawName).trim() : ''
    } catch {
      name = ''
    }
    if (!name) return answer(400, { error: `The file's name is required (the ${HOST_FILE_NAME_HEADER} header, URI-encoded).` })
    const declared = Number(req.headers['content-length'] ?? Number.NaN)
    if (declared > maxFileBytes) return answer(413, { error: new TooLargeError(name, maxFileBytes).message })
    if (!side) return answer(503, { error: 'The host is still starting.' })
    const account = side.accounts.current()
    if (!account) return answer(409, { error: 'No workspace is set up yet: add one before dropping files.' })
    try {
      const { path } = await stageStream(accountStagingFolder(side.folders.staging, account.id), name, req, maxFileBytes)
      side.pickedFiles.add(path)
      answer(200, { path })
    } catch (error) {
      if (error instanceof TooLargeError) answer(413, { error: error.message })
      else if (isDiskFull(error)) {
        // The bytes came once and are gone: room is made for the next drop, which the message asks for.
        await side.table['outpost:files.evict-cache']({ keep: [] }).catch(() => undefined)
        answer(507, { error: diskFullForStaging(name) })
      } else throw error
    }
  }

  // A page opened with a one-time code trades it here for the secret: a POST from this host's own origin (a
  // browser says its origin on every POST; a page of another site cannot fake it), the code as the body.
  const keyRequest = async (req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, body: { secret: string } | { error: string }) => {
      res
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...(status >= 400 ? { connection: 'close' } : {}) })
        .end(JSON.stringify(body))
    }
    if (req.method !== 'POST') return answer(405, { error: 'A code is exchanged with a POST.' })
    if (req.headers.origin !== origin) return answer(403, { error: 'Forbidden' })
    let body = ''
    for await (const chunk of req) {
      body += String(chunk)
      if (body.length > 256) return answer(400, { error: 'That is not a code of this host.' })
    }
    if (!codes.take(body.trim()))
      return answer(403, { error: 'This address was good for one use within a minute: it was used already, or it expired. Start Outpost again.' })
    answer(200, { secret })
  }

  let pages = 0
  sockets.on('connection', (ws: WebSocket) => {
    // Each socket is a page (or its sync worker): what the main side lends a page (deep links) goes back when it closes.
    const page = `socket:${++pages}`
    ws.on('close', () => side?.links.release(page))
    // A frame the socket cannot take (too large, malformed) closes it; unheard, the 'error' would end the host.
    ws.on('error', () => ws.terminate())
    ws.on('message', (raw, isBinary) => {
      void (async () => {
        let message: HostClientMessage
        try {
          if (isBinary) throw new Error('binary')
          message = JSON.parse(String(raw)) as HostClientMessage
          // The page sends only invokes, each with its number: anything else is no page of ours.
          if (message?.type !== 'invoke' || !Number.isSafeInteger(message.id)) throw new Error('not an invoke')
        } catch {
          ws.close(1003, 'Outpost host: messages are JSON invokes')
          return
        }
        const at = performance.now()
        const result = side
          ? await dispatch(side.table, message.channel, message.request, page)
          : ({ ok: false, error: { source: 'ipc', kind: 'internal', message: 'The host is still starting.' } } as const)
        const answered = performance.now()
        send(ws, { type: 'result', id: message.id, result })
        options.onCall?.({ channel: message.channel, request: message.request, at, answerMs: answered - at, sendMs: performance.now() - answered })
      })().catch(() => ws.close(1011, 'Outpost host: the message could not be answered'))
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  origin = `http://127.0.0.1:${port}`
  policy = contentSecurityPolicy({ connect: [`ws://127.0.0.1:${port}`] })

  return {
    url: `${origin}/#${HOST_SECRET_FRAGMENT}=${secret}`,
    oneTimeUrl: () => `${origin}/#${HOST_CODE_FRAGMENT}=${codes.make()}`,
    origin,
    port,
    secret,
    emit: (event, payload) => {
      const text = encodeHostMessage({ type: 'event', event, payload })
      for (const ws of sockets.clients) if (ws.readyState === ws.OPEN) ws.send(text)
    },
    attach(mainSide) {
      side = mainSide
    },
    connections: () => sockets.clients.size,
    close: async () => {
      for (const ws of sockets.clients) ws.terminate()
      await new Promise<void>((resolve) => sockets.close(() => resolve()))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
