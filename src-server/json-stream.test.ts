// A long list answer sent as it is rendered: the same JSON as rendered whole, and other work let through
// between its slices; through the service, the v3 list of every epic in the order of its pages.
import { describe, expect, it } from 'vitest'
import { brotliDecompressSync } from 'node:zlib'
import { request } from 'undici'
import { jsonArrayStream } from './json-stream.ts'
import { testService } from '../testing/service.ts'

const text = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

describe('jsonArrayStream', () => {
  it('sends the JSON of the whole array, letting other work run between its slices', async () => {
    const items = Array.from({ length: 2300 }, (_, i) => ({ id: i, name: `item "${i}", [x]` }))
    const render = (item: { id: number; name: string }) => ({ ...item, twice: item.id * 2 })
    let ended = false
    let ranBefore: boolean | undefined
    setImmediate(() => (ranBefore = !ended))
    const sent = await text(jsonArrayStream(items, render))
    ended = true
    expect(sent).toBe(JSON.stringify(items.map(render)))
    expect(ranBefore).toBe(true)
    expect(await text(jsonArrayStream([], render))).toBe('[]')
    expect(await text(jsonArrayStream([items[0]], render))).toBe(JSON.stringify([render(items[0])]))
  })
})

describe('the v3 list of every epic, sent as rendered', () => {
  it('is the list its pages give, in their order, compressed when asked', async () => {
    const service = await testService({ seed: { epics: 1300, docs: 5, files: 2 }, rateLimit: 'off' })
    try {
      const headers = { 'shortcut-token': service.tokens.admin, 'accept-encoding': 'br' }
      const res = await request(`${service.baseUrl}/api/v3/epics`, { headers })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toContain('application/json')
      expect(res.headers['content-encoding']).toBe('br')
      const list = JSON.parse(brotliDecompressSync(Buffer.from(await res.body.arrayBuffer())).toString('utf8')) as { id: number }[]
      expect(list).toHaveLength(1300)
      const pages: unknown[] = []
      for (let page = 1; page <= 6; page++) {
        const p = await request(`${service.baseUrl}/api/v3/epics/paginated?page_size=250&page=${page}`, { headers: { 'shortcut-token': service.tokens.admin } })
        pages.push(...((await p.body.json()) as { data: unknown[] }).data)
      }
      expect(list).toEqual(pages)
    } finally {
      await service.close()
    }
  })
})
