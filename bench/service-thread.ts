// The benchmarks' service on a thread of its own (started by harness.ts: startBenchService). The real
// service runs on another machine: in the benchmark's own thread, its work (a 90 MB list built and
// sent in one piece, pages read and written) would hold back the host, the shaped link and the
// driver beside it, and every figure would count the service's CPU as the app's wait. Each request
// is told to the benchmark as it arrives and as its answer is sent (ServiceThreadEvent); the
// benchmark's control messages (ServiceThreadControl) set faults and close it.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { parentPort, workerData } from 'node:worker_threads'
import { startService, type Faults, type PrintedTokens, type RateLimit } from '../src-server/index.ts'

export interface ServiceThreadData {
  /** The SQLite file the service seeds and serves; the benchmark reads it too. */
  db: string
  seed: { epics: number; docs: number; files: number }
  rateLimit: RateLimit
}

export type ServiceThreadEvent =
  | { type: 'ready'; baseUrl: string; workspace: string; tokens: PrintedTokens }
  /** `at` is the epoch in milliseconds, fractional (performance.timeOrigin + performance.now()). */
  | { type: 'arrived'; n: number; at: number; token: string | undefined; method: string; url: string }
  /** `bytes`: what the socket wrote for the answer (status line, headers, body). */
  | { type: 'answered'; n: number; status: number; bytes: number }
  /** A control message carried out. */
  | { type: 'done'; id: number }

export type ServiceThreadControl = { type: 'faults'; id: number; faults: Partial<Faults> } | { type: 'close'; id: number }

const port = parentPort!
const data = workerData as ServiceThreadData
const post = (event: ServiceThreadEvent) => port.postMessage(event)

const service = await startService({ db: data.db, seed: data.seed, rateLimit: data.rateLimit })
let requests = 0
// Ahead of Fastify's own listener, so the meter's "before" precedes any byte of the answer.
service.app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
  const n = ++requests
  post({ type: 'arrived', n, at: performance.timeOrigin + performance.now(), token: presentedToken(req), method: req.method ?? '', url: req.url ?? '' })
  // One request at a time per connection (no pipelining): what the socket wrote meanwhile is this answer.
  // 'close' comes after the answer's last byte, or when the client went away before it.
  const socket = req.socket
  const before = socket.bytesWritten
  res.once('close', () => post({ type: 'answered', n, status: res.statusCode, bytes: socket.bytesWritten - before }))
})

port.on('message', async (control: ServiceThreadControl) => {
  if (control.type === 'faults') service.setFaults(control.faults)
  else await service.close()
  post({ type: 'done', id: control.id })
  if (control.type === 'close') port.close()
})

post({ type: 'ready', baseUrl: service.baseUrl, workspace: service.workspace, tokens: service.tokens })

function presentedToken(req: IncomingMessage): string | undefined {
  const header = (name: string) => {
    const v = req.headers[name]
    return Array.isArray(v) ? v[0] : v
  }
  const bearer = /^Bearer\s+(\S+)/i.exec(header('authorization') ?? '')?.[1]
  return bearer ?? header('service-token') ?? header('shortcut-token')
}
