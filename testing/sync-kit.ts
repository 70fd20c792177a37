// For the sync tests: the real service, the real gateway (gatewayTransport),
// a fresh fake IndexedDB, and a Transport wrapper that counts what it is asked
// (and can refuse a request, to kill a run at an exact point). Never used by
// product code.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Gateway } from '../src-main/gateway/index.ts'
import type { OperationName, OperationRequest } from '../src-shared/api/operations.ts'
import { testService } from './service.ts'
import type { RunningService, ServiceOptions } from '../src-server/index.ts'
import { OutpostDb } from '../src-renderer/src/data/db.ts'
import { gatewayTransport } from './gateway-transport.ts'
import type { Transport } from '../src-renderer/src/data/transport.ts'

export interface Counted {
  /** API calls by operation name. */
  calls: Map<OperationName, number>
  /** The calls in the order made, with their queries. */
  log: { operation: OperationName; request: OperationRequest }[]
  downloads: number
  discards: number
  total(): number
  reset(): void
}

/**
 * Counts every call and download. `before` runs ahead of each call and may
 * throw to refuse it (the call is then neither sent nor counted); when it
 * returns a promise, the call waits for it.
 */
export function countingTransport(
  inner: Transport,
  before?: (operation: OperationName, request: OperationRequest, made: number) => void | Promise<unknown>,
): Transport & { counted: Counted } {
  const counted: Counted = {
    calls: new Map(),
    log: [],
    downloads: 0,
    discards: 0,
    total: () => [...counted.calls.values()].reduce((a, b) => a + b, 0),
    reset: () => {
      counted.calls.clear()
      counted.log.length = 0
      counted.downloads = 0
      counted.discards = 0
    },
  }
  return {
    counted,
    call: async <T>(operation: OperationName, request: OperationRequest = {}) => {
      await before?.(operation, request, counted.total())
      counted.calls.set(operation, (counted.calls.get(operation) ?? 0) + 1)
      counted.log.push({ operation, request })
      return inner.call<T>(operation, request)
    },
    upload: (files, options) => inner.upload(files, options),
    stage: (file) => inner.stage(file),
    download: (fileId, url, name, lane) => {
      counted.downloads++
      return inner.download(fileId, url, name, lane)
    },
    discard: (path) => {
      counted.discards++
      return inner.discard(path)
    },
    sweepStaged: (keep) => inner.sweepStaged(keep),
  }
}

export interface World {
  service: RunningService
  gateway: Gateway
  transport: Transport
  folders: { staging: string; cache: string }
  indexedDB: IDBFactory
  /** A database of this world (the same name opens the same database). */
  openDb(name?: string): OutpostDb
  close(): Promise<void>
}

/** A seeded service, a gateway to it (no self-pacing: the service's limit is off) and an empty fake IndexedDB. */
export async function startWorld(options: ServiceOptions = {}): Promise<World> {
  const service = await testService(options)
  const gateway = new Gateway({
    baseUrl: service.baseUrl,
    workspaceSlug: service.workspace,
    token: service.tokens.admin,
    tokenKind: 'v4',
    rateLimit: { max: 100_000, windowMs: 60_000 },
    // Retries as usual, without the wait.
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
  })
  const root = mkdtempSync(join(tmpdir(), 'outpost-sync-'))
  const folders = { staging: join(root, 'staging'), cache: join(root, 'cache') }
  const indexedDB = new IDBFactory()
  const dbs: OutpostDb[] = []
  return {
    service,
    gateway,
    folders,
    transport: gatewayTransport(gateway, folders),
    indexedDB,
    openDb(name = 'outpost:test') {
      const db = new OutpostDb(name, { indexedDB, IDBKeyRange })
      dbs.push(db)
      return db
    },
    async close() {
      for (const db of dbs) db.close()
      await gateway.close()
      await service.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** Pages of `size` needed for `n` items (an empty list is still one page). */
export const pages = (n: number, size = 100): number => Math.max(1, Math.ceil(n / size))

/** What the service holds, read straight from its store (to compare the cache with). */
export function serviceCounts(service: RunningService): Record<string, number> {
  const count = (kind: string) => service.ctx.col(kind as never).ids().length
  return {
    epics: count('epic'),
    docs: count('doc'),
    files: count('file'),
    linkedFiles: count('linked_file'),
    members: count('member'),
    groups: count('group'),
    categories: count('category'),
    objectives: count('objective'),
    labels: count('label'),
    customFields: count('custom_field'),
    epicStates: count('epic_state'),
    comments: count('epic_comment'),
    healths: count('epic_health'),
  }
}

/** Pages a walk from both ends asks for: each end its first at once, so a list of one page comes twice. */
export const walkPages = (n: number, size = 100): number => Math.max(2, pages(n, size))

/**
 * The bootstrap's requests for a service (see sync.ts): the 8 v3 lists, the epic states, the v3 epic and doc
 * lists, the epic and doc pages from both ends, and each walk's last page (what changed while it went on).
 */
export function bootstrapFloor(service: RunningService): number {
  const c = serviceCounts(service)
  return 8 + pages(c.epicStates) + 1 + walkPages(c.epics) + 1 + 1 + walkPages(c.docs) + 1
}
