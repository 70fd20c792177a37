// The renderer's one way to the main side. In the desktop app that is the
// preload's `window.outpost`; in a browser (the browser host of `npm run web`
// and the e2e tests) it is a WebSocket to the host, which runs the same
// handler table. Both are wrapped in the same `Bridge`: answers come back
// unwrapped, failures as a `BridgeError` carrying the typed IpcError.
import {
  BRIDGE_GLOBAL,
  HOST_BRIDGE_PATH,
  HOST_BRIDGE_PROTOCOL,
  HOST_BYTES_KEY,
  HOST_FILE_NAME_HEADER,
  HOST_SECRET_HEADER,
  HOST_SECRET_PROTOCOL_PREFIX,
  HOST_STAGE_PATH,
  tooLargeToUpload,
  UPLOAD_LIMIT_BYTES,
  isEventChannel,
  type EventChannel,
  type EventOf,
  type HostClientMessage,
  type HostMessage,
  type IpcError,
  type IpcResult,
  type OutpostBridge,
  type RequestChannel,
  type RequestOf,
  type ResponseOf,
} from '../../../src-shared/ipc.ts'
import { hostSecretFromPage, oneTimeCodeRefused } from './host-key.ts'

export class BridgeError extends Error {
  override readonly name = 'BridgeError'
  constructor(readonly error: IpcError) {
    super(error.message)
  }
}

/** A channel's request, left out when the channel takes none. */
type RequestArgs<C extends RequestChannel> = RequestOf<C> extends void ? [] : [request: RequestOf<C>]

export interface Bridge {
  readonly shell: 'electron' | 'browser'
  call<C extends RequestChannel>(channel: C, ...request: RequestArgs<C>): Promise<ResponseOf<C>>
  on<E extends EventChannel>(event: E, listener: (payload: EventOf<E>) => void): () => void
  /** A path the main side can read the file from (dropped, picked, or staged by the browser host). */
  pathForFile(file: File): Promise<string>
}

function unwrap<T>(result: IpcResult<T>): T {
  if (result.ok) return result.value
  throw new BridgeError(result.error)
}

/** The desktop app: the preload's bridge. */
export function electronBridge(outpost: OutpostBridge): Bridge {
  return {
    shell: 'electron',
    call: async (channel, ...request) => unwrap(await outpost.invoke(channel, request[0] as never)),
    on: (event, listener) => outpost.on(event, listener),
    pathForFile: async (file) => outpost.getPathForFile(file),
  }
}

/** What the host bridge needs from the browser; tests hand in Node's equivalents. */
export interface HostBridgeOptions {
  /** `ws://127.0.0.1:PORT/bridge`. */
  url: string
  secret: string
  WebSocket: new (url: string, protocols: string[]) => WebSocket
  /** `http://127.0.0.1:PORT/stage` (HOST_STAGE_PATH): where a dropped file's bytes are POSTed. */
  stageUrl: string
  fetch?: typeof fetch
  /** Delay before reconnecting after the host went away (ms). */
  reconnectMs?: number
}

const lost = (message: string): IpcError => ({ source: 'ipc', kind: 'internal', message })

function fromBase64(text: string): Uint8Array {
  const binary = atob(text)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

/** A host message, with the bytes the host sent as base64 (files.read) made a Uint8Array again. */
export function decodeHostMessage(text: string): HostMessage {
  // A reviver costs a call per value: on a 17 MB epic list that is a 134 ms task
  // against 22 ms without. Only answers that carry bytes need it.
  if (!text.includes(HOST_BYTES_KEY)) return JSON.parse(text) as HostMessage
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const encoded = (value as Record<string, unknown>)[HOST_BYTES_KEY]
      if (typeof encoded === 'string' && Object.keys(value).length === 1) return fromBase64(encoded)
    }
    return value
  }) as HostMessage
}

/** The browser: the host's WebSocket, reconnected when it drops. */
export function hostBridge(options: HostBridgeOptions): Bridge & { close(): void } {
  let socket: WebSocket | undefined
  let opened: Promise<WebSocket> | undefined
  let closed = false
  let nextId = 1
  const pending = new Map<number, { resolve: (message: HostMessage) => void; reject: (error: BridgeError) => void }>()
  /** The parts of long answers still coming, by request id. */
  const parts = new Map<number, { items: unknown[]; count: number }>()
  const listeners = new Map<EventChannel, Set<(payload: never) => void>>()

  const connect = (): Promise<WebSocket> => {
    if (opened) return opened
    opened = new Promise<WebSocket>((resolve, reject) => {
      const ws = new options.WebSocket(options.url, [HOST_BRIDGE_PROTOCOL, `${HOST_SECRET_PROTOCOL_PREFIX}${options.secret}`])
      socket = ws
      ws.addEventListener('open', () => resolve(ws))
      // A refused or failed connection is followed by 'close', which says it all.
      ws.addEventListener('error', () => undefined)
      ws.addEventListener('message', (event: MessageEvent) => {
        let message: HostMessage
        try {
          message = decodeHostMessage(String(event.data))
        } catch {
          return
        }
        if (message.type === 'event') {
          if (!isEventChannel(message.event)) return
          for (const listener of listeners.get(message.event) ?? []) listener(message.payload as never)
          return
        }
        // A long answer's list comes first, in parts, each decoded in its own task (HOST_PART_ITEMS).
        if (message.type === 'part') {
          const got = parts.get(message.id) ?? { items: [], count: 0 }
          for (const item of message.items) got.items.push(item)
          got.count++
          parts.set(message.id, got)
          return
        }
        const waiting = pending.get(message.id)
        pending.delete(message.id)
        if (message.type === 'result' && message.parts !== undefined) {
          const got = parts.get(message.id)
          parts.delete(message.id)
          if (got?.count !== message.parts || !message.result.ok) {
            waiting?.reject(new BridgeError(lost('The Outpost host’s answer came in part only; try again.')))
            return
          }
          message = { ...message, result: { ok: true, value: got.items } }
        }
        waiting?.resolve(message)
      })
      ws.addEventListener('close', () => {
        opened = undefined
        socket = undefined
        for (const waiting of pending.values()) waiting.reject(new BridgeError(lost('The connection to the Outpost host was lost; try again.')))
        pending.clear()
        parts.clear()
        reject(new BridgeError(lost('Could not connect to the Outpost host (is `npm run web` still running, and was the page opened with its key?).')))
        // Keep listening for events once the host is back.
        if (!closed && listeners.size > 0) setTimeout(() => void connect().catch(() => undefined), options.reconnectMs ?? 1_000)
      })
    })
    return opened
  }

  const send = async (message: HostClientMessage): Promise<HostMessage> => {
    const ws = await connect()
    return new Promise<HostMessage>((resolve, reject) => {
      pending.set(message.id, { resolve, reject })
      ws.send(JSON.stringify(message))
    })
  }

  return {
    shell: 'browser',
    async call(channel, ...request) {
      const answer = await send({ type: 'invoke', id: nextId++, channel, request: request[0] })
      if (answer.type !== 'result') throw new BridgeError(lost('The Outpost host answered out of turn.'))
      return unwrap(answer.result as IpcResult<never>)
    },
    on(event, listener) {
      let set = listeners.get(event)
      if (!set) listeners.set(event, (set = new Set()))
      set.add(listener as (payload: never) => void)
      // Events flow only over an open socket.
      void connect().catch(() => undefined)
      return () => {
        set.delete(listener as (payload: never) => void)
      }
    },
    async pathForFile(file) {
      if (file.size > UPLOAD_LIMIT_BYTES) throw new BridgeError({ source: 'ipc', kind: 'invalid-request', message: tooLargeToUpload(file.name) })
      // The File as the body: the browser streams it from disk, the page never holds its bytes.
      let response: Response
      try {
        response = await (options.fetch ?? fetch)(options.stageUrl, {
          method: 'POST',
          headers: { [HOST_SECRET_HEADER]: options.secret, [HOST_FILE_NAME_HEADER]: encodeURIComponent(file.name), 'content-type': 'application/octet-stream' },
          body: file,
        })
      } catch {
        throw new BridgeError(lost('Could not reach the Outpost host to hand it the file (is `npm run web` still running?).'))
      }
      const answer = (await response.json().catch(() => ({}))) as { path?: string; error?: string }
      if (!response.ok || !answer.path)
        throw new BridgeError({ source: 'ipc', kind: 'invalid-request', message: answer.error ?? `The file could not be staged (${response.status}).` })
      return answer.path
    },
    close() {
      closed = true
      socket?.close()
    },
  }
}

let current: Bridge | undefined

/**
 * Where this page's browser host answers, with its launch secret: what the host's WebSocket needs (this
 * page's, and its sync worker's own). Null in the desktop app, or when the page was opened without the key.
 */
export function hostAddress(): { url: string; stageUrl: string; secret: string } | null {
  if ((window as unknown as Record<string, OutpostBridge | undefined>)[BRIDGE_GLOBAL]) return null
  const secret = hostSecretFromPage(window.location, window.history, window.sessionStorage)
  if (!secret) return null
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:'
  return {
    url: `${scheme}//${window.location.host}${HOST_BRIDGE_PATH}`,
    stageUrl: `${window.location.protocol}//${window.location.host}${HOST_STAGE_PATH}`,
    secret,
  }
}

/** The bridge of this page: the preload's in Electron, the host's WebSocket in a browser. */
export function bridge(): Bridge {
  if (current) return current
  const outpost = (window as unknown as Record<string, OutpostBridge | undefined>)[BRIDGE_GLOBAL]
  if (outpost) return (current = electronBridge(outpost))
  const address = hostAddress()
  if (!address) {
    throw new BridgeError({
      source: 'ipc',
      kind: 'refused',
      message:
        oneTimeCodeRefused() ??
        'Outpost is not running in its desktop app, and this page was opened without the browser host’s key: open the address `npm run web` printed.',
    })
  }
  return (current = hostBridge({ ...address, WebSocket: window.WebSocket }))
}
