// Seed, run counts and id pools of a fuzz run. The seed is fixed so a failure
// replays; FUZZ_SEED and FUZZ_RUNS change them (FUZZ_RUNS=300 for a long run).
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RunningService } from '../../src-server/index.ts'
import { KINDS, type Kind } from '../../src-server/kinds.ts'
import type { IdPools } from './arbitraries.ts'
import { storedIds } from './harness.ts'

export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_121)
/** Cases per route (each one request). */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 40)

/** A stable seed per route, so adding a route does not change the cases of the others. */
export function seedFor(label: string): number {
  let h = 2166136261
  for (const c of label) h = Math.imul(h ^ c.charCodeAt(0), 16777619)
  return (FUZZ_SEED ^ h) | 0
}

/** Ids as stored right now (they change as the fuzz creates and deletes). */
export function idPools(service: RunningService, webhookUrl: string): IdPools {
  const ints: number[] = []
  const uuids: string[] = []
  const byKind = new Map<Kind, (string | number)[]>()
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const ids = storedIds(service, kind).slice(0, 40)
    byKind.set(kind, ids)
    for (const id of ids) (typeof id === 'number' ? ints : uuids).push(id as never)
  }
  return { ids: (kind) => byKind.get(kind) ?? [], allInts: ints, allUuids: uuids, webhookUrl }
}

/** A local endpoint that takes webhook deliveries, so fuzzed integrations never reach the network. */
export async function startWebhookSink(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let count = 0
  const server: Server = createServer((req, res) => {
    count++
    req.resume()
    req.on('end', () => res.writeHead(204).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
