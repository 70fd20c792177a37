// The request journal keeps each JSON answer exactly as the client received it, small ones
// (sent as text) and large ones (sent as bytes) alike: the contract check reads them.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import type { JournalLine } from './journal.ts'
import { testService } from '../testing/service.ts'

const dir = mkdtempSync(join(tmpdir(), 'outpost-journal-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('keeps small and large answers as sent', async () => {
  const service = await testService({ seed: 'demo', journal: dir })
  const headers = { authorization: `Bearer ${service.tokens.admin}` }
  const get = async (path: string) => (await fetch(`${service.baseUrl}/api/v4/${service.workspace}${path}`, { headers })).text()
  const small = await get('/epics?limit=1')
  const large = await get('/epics?limit=100&filter=include_archived')
  expect(small.length).toBeLessThan(16 * 1024)
  expect(large.length).toBeGreaterThan(16 * 1024)
  await service.close()

  const lines = readdirSync(dir).flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as JournalLine),
  )
  const answerOf = (query: string) => lines.find((l) => l.url === `/api/v4/${service.workspace}/epics?${query}`)?.answer
  expect(answerOf('limit=1')).toBe(small)
  expect(answerOf('limit=100&filter=include_archived')).toBe(large)
})
