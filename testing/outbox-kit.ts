// For the outbox's tests: the real local service over HTTP, the real gateway
// (through gatewayTransport), and a fresh fake-indexeddb per test. The cache's
// server tables are filled here straight from the API (the sync engine is
// another part), through the same converters (../convert.ts) replay uses.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Gateway } from '../src-main/gateway/index.ts'
import type { ListBody } from '../src-shared/api/common.ts'
import type { OperationName, OperationQuery, OperationRequest } from '../src-shared/api/operations.ts'
import type { ThreadedCommentV3 } from '../src-shared/api/v3/epics.ts'
import type { LabelV3 } from '../src-shared/api/v3/labels.ts'
import type { ObjectiveV3 } from '../src-shared/api/v3/objectives.ts'
import type { LinkedFileV3, UploadedFileV3 } from '../src-shared/api/v3/files.ts'
import type { CategoryV4 } from '../src-shared/api/v4/categories.ts'
import type { DocV4 } from '../src-shared/api/v4/docs.ts'
import type { EpicV4 } from '../src-shared/api/v4/epics.ts'
import type { RunningService, ServiceOptions } from '../src-server/index.ts'
import { testService } from './service.ts'
import { outboxActions, type ActionsOptions } from '../src-renderer/src/data/actions.ts'
import {
  categoryFromV4,
  commentsFromV3,
  docFromV4,
  epicFromV4,
  fileFromV3,
  labelFromV3,
  linkedFileFromV3,
  objectiveFromV3,
} from '../src-renderer/src/data/convert.ts'
import { OutpostDb } from '../src-renderer/src/data/db.ts'
import { gatewayTransport } from './gateway-transport.ts'
import { TransportError, type Transport } from '../src-renderer/src/data/transport.ts'
import type { CachedEpic } from '../src-renderer/src/data/types.ts'
import { outboxStatus } from '../src-renderer/src/data/outbox/records.ts'
import { replay, type ReplayOptions, type ReplayResult } from '../src-renderer/src/data/outbox/replay.ts'

export const fastSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, 2)))

export interface Kit {
  service: RunningService
  transport: Transport
  /** A fresh database object on the same IndexedDB (another engine instance after a "kill"). */
  openDb(): OutpostDb
  db: OutpostDb
  folder: string
  gatewayFor(token: string): Gateway
  transportFor(token: string): Transport
  /** Closes the database, the gateways and the temporary folder (not the service). */
  closeClient(): Promise<void>
  /** closeClient, and the service too. */
  close(): Promise<void>
}

let dbCount = 0

export async function startKit(options: ServiceOptions = { seed: 'demo' }): Promise<Kit> {
  return startKitOn(await testService(options))
}

/** A client side (gateway, transport, fake IndexedDB) for a running service. */
export async function startKitOn(service: RunningService): Promise<Kit> {
  const folder = await mkdtemp(join(tmpdir(), 'outpost-outbox-'))
  const gateways: Gateway[] = []
  const gatewayFor = (token: string) => {
    const g = new Gateway({
      baseUrl: service.baseUrl,
      workspaceSlug: service.workspace,
      token,
      tokenKind: 'v4',
      sleep: fastSleep,
      rateLimit: { max: 100_000, windowMs: 1000 },
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
    })
    gateways.push(g)
    return g
  }
  const transportFor = (token: string) => gatewayTransport(gatewayFor(token), { staging: join(folder, 'staging'), cache: join(folder, 'cache') })
  const transport = transportFor(service.tokens.admin)
  const indexedDB = new IDBFactory()
  const name = `outbox-test-${++dbCount}`
  const openDb = () => new OutpostDb(name, { indexedDB, IDBKeyRange })
  const db = openDb()
  const closeClient = async () => {
    db.close()
    for (const g of gateways) await g.close()
    await rm(folder, { recursive: true, force: true })
  }
  return {
    service,
    transport,
    openDb,
    db,
    folder,
    gatewayFor,
    transportFor,
    closeClient,
    close: async () => {
      await closeClient()
      await service.close()
    },
  }
}

async function walk<T>(t: Transport, op: OperationName, query: OperationQuery = {}): Promise<T[]> {
  const out: T[] = []
  let q = { limit: 100, ...query }
  for (;;) {
    const page = await t.call<ListBody<T>>(op, { query: q })
    out.push(...page.entities)
    if (!page.next_page_url) return out
    q = Object.fromEntries(new URL(page.next_page_url).searchParams) as unknown as typeof q
  }
}

/** Fills the cache's server tables from the service (what the sync engine does in the app). */
export async function fillCache(db: OutpostDb, t: Transport): Promise<void> {
  const epics = (await walk<EpicV4>(t, 'epics.list', { filter: 'include_archived' })).map((e) => epicFromV4(e, 0))
  const labels = (await t.call<LabelV3[]>('labels.list')).map(labelFromV3)
  const categories = (await walk<CategoryV4>(t, 'categories.list', { filter: 'include_archived' })).map(categoryFromV4)
  const objectives = (await t.call<ObjectiveV3[]>('objectives.list')).map(objectiveFromV3)
  const docs = (await walk<DocV4>(t, 'documents.list', { filter: 'include_archived' })).map((d) => docFromV4(d))
  const files = (await t.call<UploadedFileV3[]>('files.list')).map(fileFromV3)
  const linkedFiles = (await t.call<LinkedFileV3[]>('linkedFiles.list')).map(linkedFileFromV3)
  await db.transaction('rw', db.tables, async () => {
    await db.epics.bulkPut(epics)
    await db.labels.bulkPut(labels)
    await db.categories.bulkPut(categories)
    await db.objectives.bulkPut(objectives)
    await db.docs.bulkPut(docs)
    await db.files.bulkPut(files)
    await db.linkedFiles.bulkPut(linkedFiles)
  })
}

/**
 * What most outbox tests start from: a kit on a fresh service, its cache
 * filled, and the cached epics that are not archived, by id.
 */
export async function startFilledKit(options?: ServiceOptions): Promise<{ kit: Kit; epics: CachedEpic[] }> {
  const kit = await startKit(options)
  await fillCache(kit.db, kit.transport)
  const epics = (await kit.db.epics.orderBy('id').toArray()).filter((e) => !e.archived)
  return { kit, epics }
}

/** The comments of one epic into the cache. */
export async function fillComments(db: OutpostDb, t: Transport, epicId: number): Promise<void> {
  const threads = await t.call<ThreadedCommentV3[]>('epicComments.list', { params: { epicId } })
  await db.epicComments.bulkPut(commentsFromV3(epicId, threads))
}

/** A transport that cannot reach the service (nothing is sent). */
export function offline(t: Transport): Transport {
  const fail = () => Promise.reject(new TransportError({ kind: 'network', message: 'The service could not be reached (offline).' }))
  return { ...t, call: fail, upload: fail, download: fail }
}

/** A transport whose first call of one operation fails so (the service unreachable, or slow, for it once). */
export function failingOnce(t: Transport, op: OperationName, failure: ConstructorParameters<typeof TransportError>[0]): Transport {
  let failed = false
  return {
    ...t,
    call: (name, request) => {
      if (name !== op || failed) return t.call(name, request)
      failed = true
      return Promise.reject(new TransportError(failure))
    },
  }
}

/** Counts the operations sent through a transport. */
export function counting(
  t: Transport,
): Transport & { counts: Map<string, number>; asked: { op: OperationName; request?: OperationRequest }[]; total(): number } {
  const counts = new Map<string, number>()
  const asked: { op: OperationName; request?: OperationRequest }[] = []
  const bump = (name: string) => counts.set(name, (counts.get(name) ?? 0) + 1)
  return {
    ...t,
    counts,
    asked,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    call: (op, request) => {
      bump(op)
      asked.push({ op, request })
      return t.call(op, request)
    },
    upload: (files, options) => {
      bump('files.upload')
      return t.upload(files, options)
    },
  }
}

/** A transport whose writes wait at a gate until the test opens it (to act while a write is in flight). */
export function gated(t: Transport, op: OperationName): Transport & { reached: Promise<void>; open(): void } {
  let open!: () => void
  let reached!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  const reachedP = new Promise<void>((resolve) => (reached = resolve))
  return {
    ...t,
    reached: reachedP,
    open,
    call: async (name, request) => {
      if (name === op) {
        reached()
        await gate
      }
      return t.call(name, request)
    },
  }
}

export function actionsFor(db: OutpostDb, t: Transport, extra: Partial<ActionsOptions> = {}) {
  return outboxActions({ db, transport: t, ...extra })
}

export function replayFast(db: OutpostDb, t: Transport, extra: Partial<ReplayOptions> = {}): Promise<ReplayResult> {
  return replay({ db, transport: t, sleep: fastSleep, backoff: { baseMs: 1, maxMs: 4, attempts: 6 }, ...extra })
}

/** Replays until nothing is left to send (failed and conflict records stay). */
export async function replayUntilDone(db: OutpostDb, t: Transport, passes = 50): Promise<void> {
  for (let i = 0; i < passes; i++) {
    await replayFast(db, t)
    const status = await outboxStatus(db)
    if (status.pending === 0) return
  }
  throw new Error(`Still ${(await outboxStatus(db)).pending} records to send after ${passes} passes`)
}

export async function tempFile(folder: string, name: string, content: string): Promise<string> {
  const path = join(folder, name)
  await writeFile(path, content)
  return path
}

/**
 * A transport that "kills" the engine using it: after `afterCalls` requests
 * have gone out, it aborts the engine's signal, so the engine stops at its next
 * step without recording the answer (as if the app died just then).
 */
export function killing(t: Transport, afterCalls: number, controller: AbortController): Transport {
  let calls = 0
  const tick = () => {
    if (++calls >= afterCalls) controller.abort()
  }
  return {
    ...t,
    call: <T>(op: OperationName, request?: OperationRequest) => {
      const answer = t.call<T>(op, request)
      tick()
      return answer
    },
    upload: <T>(files: Parameters<Transport['upload']>[0], options?: Parameters<Transport['upload']>[1]) => {
      const answer = t.upload<T>(files, options)
      tick()
      return answer
    },
  }
}
