// The request journal: one JSON line per answered request, with what a client
// sent (method, URL, which auth headers, its body) and what the service answered
// (status, body). For checking a client, or this service, against the real
// service's published API description (`--journal DIR`, or the
// OUTPOST_SERVICE_JOURNAL environment variable that the test suites set).
// Header values are never written: a token must not reach a file.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { redact, type ApiApp } from './app.ts'

export interface JournalLine {
  method: string
  /** Path and query, the deprecated `token` parameter redacted. */
  url: string
  status: number
  /** The client's User-Agent (Outpost's gateway says `Outpost`). */
  agent: string | null
  /** Names of the auth headers sent (`authorization`, `shortcut-token`, `service-token`). */
  auth: string[]
  /** The request's content type, without parameters. */
  type: string | null
  /** The parsed JSON body (undefined for none; multipart bodies are not kept). */
  body?: unknown
  /** The answer's JSON text, when it is JSON and at most MAX_ANSWER characters. */
  answer?: string
  /** The answer was JSON but longer than MAX_ANSWER (not kept). */
  long?: true
}

/**
 * Answers longer than this are not kept, so the journal stays small enough to read; the contract check counts such
 * answers as unchecked. A v3 list of the few thousand epics a sync test seeds (about 7 MB) is kept; one of 10,000
 * (18 MB, the benchmarks') is not.
 */
const MAX_ANSWER = 12 * 1024 * 1024
const AUTH_HEADERS = ['authorization', 'shortcut-token', 'service-token'] as const

let files = 0

/** Writes each answered request of `app` to a new file in `dir`; resolves the stream's end on close. */
export function installJournal(app: ApiApp, dir: string): { close(): Promise<void> } {
  mkdirSync(dir, { recursive: true })
  const out: WriteStream = createWriteStream(join(dir, `${process.pid}-${Date.now()}-${++files}.ndjson`), { flags: 'a' })
  const answers = new WeakMap<object, string>()
  app.addHook('onSend', async (req, reply, payload) => {
    // Large answers reach here as a Buffer (app.ts sends them as bytes).
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
    if (text !== undefined && String(reply.getHeader('content-type') ?? '').includes('json')) answers.set(req, text)
    return payload
  })
  app.addHook('onResponse', async (req, reply) => {
    const type = req.headers['content-type']?.split(';')[0].trim() ?? null
    const answer = answers.get(req)
    const line: JournalLine = {
      method: req.method,
      url: redact(req.url),
      status: reply.statusCode,
      agent: req.headers['user-agent'] ?? null,
      auth: AUTH_HEADERS.filter((h) => req.headers[h] !== undefined),
      type,
      ...(type === 'application/json' && req.body !== undefined && { body: req.body }),
      ...(answer !== undefined && (answer.length <= MAX_ANSWER ? { answer } : { long: true as const })),
    }
    out.write(`${JSON.stringify(line)}\n`)
  })
  return { close: () => new Promise<void>((resolve) => out.end(resolve)) }
}
