// Every operation of the spec (part 2 §4.2 and §4.4), and the "not shown" ones
// the app needs, is served. The list is read from the spec itself.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { RunningService } from './index.ts'
import { testService } from '../testing/service.ts'

const SPEC = join(__dirname, '../../shared/spec/api-2-endpoints-auth-events-errors-limits.md')

/** Operations the spec marks "not shown" that the real service has and the app uses. */
const NOT_SHOWN = [
  'GET /api/v3/epics',
  'POST /api/v3/epics',
  'GET /api/v4/{}/epics/{}',
  'PATCH /api/v4/{}/epics/{}',
  'DELETE /api/v4/{}/epics/{}',
  'GET /api/v3/objectives/{}',
  'PUT /api/v3/objectives/{}',
  'DELETE /api/v3/objectives/{}',
  'PUT /api/v3/entity-templates/{}',
  'DELETE /api/v3/entity-templates/{}',
  'GET /api/v3/labels',
  'POST /api/v3/labels',
]

function specOperations(text: string): string[] {
  const out: string[] = []
  let section = ''
  for (const line of text.split('\n')) {
    if (line.startsWith('### 4.2')) section = 'v4'
    else if (line.startsWith('### 4.3')) section = ''
    else if (line.startsWith('### 4.4')) section = 'v3'
    else if (line.startsWith('## 5')) section = ''
    const m = /^\| (GET|POST|PUT|PATCH|DELETE) \| (\S+) \|/.exec(line)
    if (!m || !section) continue
    const path = m[2].replace(/\{[\w-]+\}/g, '{}')
    out.push(`${m[1]} ${section === 'v4' ? (path.startsWith('/api/v4') ? path : `/api/v4${path}`) : `/api/v3${path}`}`)
  }
  return out
}

let service: RunningService
beforeAll(async () => {
  service = await testService()
})
afterAll(() => service.close())

it('serves every operation of the spec and the not-shown ones the app needs', () => {
  expect(existsSync(SPEC), `the spec is expected beside the repository at ${SPEC}`).toBe(true)
  const wanted = specOperations(readFileSync(SPEC, 'utf8'))
  expect(wanted.length).toBeGreaterThan(100)
  const served = new Set(service.app.outpostRoutes.map((r) => `${r.method} ${r.url.replace(/:[\w-]+/g, '{}')}`))
  expect([...wanted, ...NOT_SHOWN].filter((op) => !served.has(op))).toEqual([])
})
