// Every named operation the gateway can send has a route on the local service
// (same method, same path shape), so no name in the table points nowhere.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { OPERATIONS, type Operation } from '../../src-shared/api/operations.ts'
import type { RunningService } from '../../src-server/index.ts'
import { testService } from '../../testing/service.ts'

let service: RunningService
beforeAll(async () => {
  service = await testService()
})
afterAll(() => service.close())

/** A path with its parameters blanked out, whichever way they are written ({id} or :id). */
const shape = (path: string) => path.replace(/\{[^}]+\}|:[^/]+/g, '*')

function servicePath(op: Operation): string {
  const prefix = op.api === 'v3' ? '/api/v3' : op.root ? '/api/v4' : '/api/v4/*'
  return shape(prefix + op.path)
}

it('finds a service route for every operation', () => {
  const routes = new Set(service.app.outpostRoutes.map((r) => `${r.method} ${shape(r.url)}`))
  const missing = Object.entries(OPERATIONS as Record<string, Operation>)
    .filter(([, op]) => !routes.has(`${op.method} ${servicePath(op)}`))
    .map(([name, op]) => `${name}: ${op.method} ${servicePath(op)}`)
  expect(missing).toEqual([])
  // Not vacuous: the comparison does see the service's routes.
  expect(routes.has('GET /api/v4/*/epics/*')).toBe(true)
  expect(routes.has('POST /api/v3/files')).toBe(true)
})
