// A list answer the link cuts on its way: the gateway hands over the elements that came whole, with the
// fields asked for, and does not ask for the list again (it would all come again).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { brotliCompressSync, constants } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { elementsBefore } from './cut-list.ts'
import { GatewayError } from './errors.ts'
import { Gateway } from './gateway.ts'

describe('elementsBefore', () => {
  it('keeps the elements before the last separator of the array, whatever their strings hold', () => {
    const list = [
      { id: 1, name: 'a, b [c] {d}' },
      { id: 2, name: 'quote " and backslash \\', tags: [{ x: ']' }] },
      { id: 3, name: 'three' },
    ]
    const text = JSON.stringify(list)
    const cut = text.slice(0, text.indexOf('"three"'))
    expect(elementsBefore(cut)).toEqual(list.slice(0, 2))
    expect(elementsBefore(`  \n${cut}`)).toEqual(list.slice(0, 2))
  })

  it('keeps nothing of an answer that is whole, not an array, or has no element whole yet', () => {
    expect(elementsBefore('[{"id":1},{"id":2}]')).toBeUndefined()
    expect(elementsBefore('{"entities":[{"id":1},{"id":2')).toBeUndefined()
    expect(elementsBefore('[{"id":1,"name":"a,b"')).toBeUndefined()
    expect(elementsBefore('')).toBeUndefined()
    expect(elementsBefore('<html>[1,2')).toBeUndefined()
  })
})

describe('a list answer cut on its way', () => {
  let server: Server
  let baseUrl: string
  let requests = 0
  const epics = Array.from({ length: 2000 }, (_, i) => ({ id: i + 1, name: `Epic ${i + 1}`, position: i, stats: { num_points: i }, app_url: 'x'.repeat(40) }))
  /** The list, brotli-compressed as the service sends it. */
  const whole = brotliCompressSync(JSON.stringify(epics), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } })

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' })
      // Half the bytes, then the connection drops.
      res.write(whole.subarray(0, whole.length / 2), () => setTimeout(() => res.socket?.destroy(), 50))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('fails as the network did, with the elements that came whole, picked to the fields asked, after one request', async () => {
    const gateway = new Gateway({ baseUrl, workspaceSlug: 'demo', token: 'svc_test', tokenKind: 'v4' })
    const before = requests
    const error = await gateway.call('epics.v3List', { fields: ['id', 'position'] }).catch((e: unknown) => e)
    await gateway.close()
    expect(error).toBeInstanceOf(GatewayError)
    const failure = (error as GatewayError).failure
    expect(failure.kind).toBe('network')
    const received = failure.received as { id: number; position: number }[]
    expect(received.length).toBeGreaterThan(100)
    expect(received.length).toBeLessThan(epics.length)
    expect(received).toEqual(epics.slice(0, received.length).map(({ id, position }) => ({ id, position })))
    // What came is the caller's to keep: asked again, the list would all come again.
    expect(requests - before).toBe(1)
    // As it crosses to the window: plain data.
    expect(JSON.parse(JSON.stringify(error)).received).toHaveLength(received.length)
  })
})
