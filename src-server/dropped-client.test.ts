// A client whose connection goes while its answer is being compressed (it dropped, or the service's fault
// injection dropped it after the write committed) is not an error of the service: nothing is logged as one.
// A real failure while answering still is.
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { droppedMidAnswer } from './app.ts'
import type { RunningService } from './index.ts'
import { testService } from '../testing/service.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService({ seed: { epics: 20, docs: 0, files: 0 }, rateLimit: 'off' })
})
afterAll(() => service.close())
afterEach(() => {
  service.setFaults({ dropAfterCommitRate: 0 })
  vi.restoreAllMocks()
})

const headers = () => ({ authorization: `Bearer ${service.tokens.admin}`, 'content-type': 'application/json', 'accept-encoding': 'br, gzip' })

/** A bulk create whose answer (100 epics with long descriptions, 400 KB) is compressed as a stream. */
const create = (name: string) =>
  request(`${service.baseUrl}/api/v4/demo/epics/bulk`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ epics: Array.from({ length: 100 }, (_, i) => ({ name: `${name} #${i}`, description: `A long description ${i}. `.repeat(200) })) }),
  })

describe('a client that goes mid-answer', () => {
  it('is not logged as an unexpected error', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    service.setFaults({ dropAfterCommitRate: 1 })
    for (let i = 0; i < 5; i++) await expect(create(`Dropped ${i}`)).rejects.toThrow()
    service.setFaults({ dropAfterCommitRate: 0 })
    // The service answers on: the writes went in, and the next answer comes whole and compressed.
    const next = await create('Answered')
    expect(next.statusCode).toBe(201)
    expect(next.headers['content-encoding']).toBe('br')
    await next.body.dump()
    const names = (
      (await (await request(`${service.baseUrl}/api/v3/epics`, { headers: { 'shortcut-token': service.tokens.admin } })).body.json()) as { name: string }[]
    ).map((e) => e.name)
    expect(names.filter((n) => n.startsWith('Dropped '))).toHaveLength(500)
    expect(logged.mock.calls.map((c) => String(c[0]))).not.toContain('outpost-local: unexpected error')
  })

  it('is told from a real failure: only a premature close on a connection that is gone', () => {
    const prematureClose = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })
    expect(droppedMidAnswer(prematureClose, { destroyed: true })).toBe(true)
    expect(droppedMidAnswer(prematureClose, { destroyed: false })).toBe(false)
    expect(droppedMidAnswer(new Error('disk I/O error'), { destroyed: true })).toBe(false)
  })
})
