// Compressed answers: the gateway asks for them, decodes them as they stream, and refuses an answer
// that decodes past its limit (a decompression bomb) with a typed error, after one request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../src-server/index.ts'
import { testService } from '../../testing/service.ts'
import { MAX_ANSWER_BYTES } from './answer.ts'
import { GatewayError } from './errors.ts'
import { Gateway } from './gateway.ts'

describe('against the local service', () => {
  let service: RunningService
  let gateway: Gateway
  /** What each request asked for and how its answer went on the wire. */
  const seen: { url: string; asked: string | undefined; encoding: string | undefined; wire: number }[] = []

  beforeAll(async () => {
    service = await testService({ seed: { epics: 300, docs: 10, files: 5 }, rateLimit: 'off' })
    service.app.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const before = req.socket.bytesWritten
      res.once('finish', () =>
        seen.push({
          url: req.url ?? '',
          asked: req.headers['accept-encoding'],
          encoding: res.getHeader('content-encoding') as string | undefined,
          wire: req.socket.bytesWritten - before,
        }),
      )
    })
    gateway = new Gateway({ baseUrl: service.baseUrl, workspaceSlug: service.workspace, token: service.tokens.admin, tokenKind: 'v4' })
  })
  afterAll(async () => {
    await gateway.close()
    await service.close()
  })

  it('asks for brotli or gzip and reads the compressed answer as JSON', async () => {
    const epics = await gateway.call<{ id: number; name: string }[]>('epics.v3List')
    expect(epics).toHaveLength(300)
    const request = seen.find((s) => s.url === '/api/v3/epics')!
    expect(request.asked).toBe('br, gzip')
    expect(request.encoding).toBe('br')
    // The list as JSON, against what crossed the wire.
    expect(request.wire).toBeLessThan(JSON.stringify(epics).length / 5)
  })

  it('reads v4 pages and single entities the same way', async () => {
    const page = await gateway.call<{ entities: { id: number }[] }>('epics.list', { query: { limit: 100 } })
    expect(page.entities).toHaveLength(100)
    const one = await gateway.call<{ id: number }>('epics.get', { params: { id: page.entities[0].id } })
    expect(one.id).toBe(page.entities[0].id)
  })
})

describe('against a service that answers too much', () => {
  let server: Server
  let baseUrl: string
  let requests = 0
  /** One gzip member of 1 MiB of zeros (about 1 KB), repeated: gzip readers decode every member of a stream. */
  const member = gzipSync(Buffer.alloc(2 ** 20), { level: 9 })
  /** Decodes to 16 MiB past the gateway's limit, from well under a megabyte. */
  const bomb = Buffer.concat(Array.from({ length: MAX_ANSWER_BYTES / 2 ** 20 + 16 }, () => member))
  const refusal = gzipSync(JSON.stringify({ message: 'Name is taken.', tag: 'name_taken', errors: { name: 'is taken'.repeat(200) } }))

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++
      if (req.url?.includes('/labels')) {
        res.writeHead(422, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        res.end(refusal)
        return
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      res.end(bomb)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('fails a decompression bomb as too-large, once, without reading it all', async () => {
    expect(bomb.length).toBeLessThan(2 ** 20)
    const gateway = new Gateway({ baseUrl, workspaceSlug: 'demo', token: 'svc_test', tokenKind: 'v4' })
    const before = requests
    const heapBefore = process.memoryUsage().heapUsed
    const error = await gateway.call('epics.v3List').catch((e: unknown) => e)
    await gateway.close()
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).kind).toBe('too-large')
    expect((error as GatewayError).message).toMatch(/^epics\.v3List: The service's answer was larger than Outpost reads \(over 256 MB once decoded from gzip\)/)
    // Not asked again: the same answer would come back.
    expect(requests - before).toBe(1)
    // What it decoded up to the limit was let go, not kept as one string.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(MAX_ANSWER_BYTES / 2)
  })

  it('takes the limit it is given', async () => {
    const gateway = new Gateway({ baseUrl, workspaceSlug: 'demo', token: 'svc_test', tokenKind: 'v4', maxAnswerBytes: 4 * 2 ** 20 })
    const error = await gateway.call('epics.v3List').catch((e: unknown) => e)
    await gateway.close()
    expect((error as GatewayError).kind).toBe('too-large')
    expect((error as GatewayError).message).toContain('over 4 MB once decoded from gzip')
  })

  it('decodes a compressed refusal into its message and fields', async () => {
    const gateway = new Gateway({ baseUrl, workspaceSlug: 'demo', token: 'svc_test', tokenKind: 'v4' })
    const error = await gateway.call('labels.list').catch((e: unknown) => e)
    await gateway.close()
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).failure).toMatchObject({ kind: 'http', status: 422, message: 'Name is taken.', tag: 'name_taken' })
  })
})
