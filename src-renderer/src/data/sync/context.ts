// What one sync run works with: the cache, the transport, the clock, the
// options, progress reporting and the signal that stops it.
import type { OperationName, OperationQuery, OperationRequest } from '../../../../src-shared/api/operations.ts'
import type { OutpostDb } from '../db.ts'
import { failureOf, type Transport } from '../transport.ts'
import type { SyncKind } from './checkpoints.ts'
import type { HandedRows } from '../handed-rows.ts'

export interface SyncOptions {
  /** Items per v4 page (the service allows 1 to 100). */
  pageSize?: number
  /**
   * How far below the checkpoint an incremental walk reads (ms): changes made
   * with the same updated_at as the newest one seen, or while a walk was
   * under way, are read again rather than skipped; rows already cached at that
   * version are not rewritten.
   */
  overlapMs?: number
  /** Members, teams, states, categories, objectives, labels and custom fields are fetched again after this (ms). */
  referenceIntervalMs?: number
  /** Files and linked files are fetched again after this (ms). */
  filesIntervalMs?: number
  /** The id sweeps that find deletions run after this (ms). */
  sweepIntervalMs?: number
  /** Room for downloaded file contents, in bytes; prefetch fills it with recent files. 0 turns prefetch off. */
  fileBudgetBytes?: number
  /** How many of the most recently updated files prefetch considers. */
  prefetchRecentFiles?: number
  /**
   * At most this many epics whose cached stories may have changed get them fetched again in one
   * run (one request each, on the sync lane). 0 leaves them until the epic is opened.
   */
  storyRefreshesPerRun?: number
}

export const DEFAULT_SYNC_OPTIONS: Required<SyncOptions> = {
  pageSize: 100,
  overlapMs: 5_000,
  referenceIntervalMs: 60 * 60_000,
  filesIntervalMs: 10 * 60_000,
  sweepIntervalMs: 30 * 60_000,
  fileBudgetBytes: 50 * 1024 * 1024,
  prefetchRecentFiles: 50,
  storyRefreshesPerRun: 10,
}

export type SyncPhase = 'bootstrap' | 'incremental'

/** Progress of one kind: items stored so far out of how many (a bootstrap's total is the list's size). */
export interface SyncProgress {
  kind: SyncKind
  phase: SyncPhase
  done: number
  total: number
}

export interface SyncContext {
  db: OutpostDb
  transport: Transport
  clock: () => number
  options: Required<SyncOptions>
  signal?: AbortSignal
  progress: (p: SyncProgress) => void
  /**
   * Told the rows of a bootstrap's v3 lists (every epic; every doc by its title), as the cache will hold them,
   * before they are stored: the window's list and search show them meanwhile (storing 10,000 epics behind the
   * walk's writes, then reading them back, takes seconds). See data/handed-rows.ts.
   */
  handOver?: (handed: HandedRows) => void
  /**
   * The requests each walk of the run still means to make, once it knows (a bootstrap's walk, from the
   * list's size): their sum goes with every request of the run (`ahead`), so the gateway can leave the
   * user what of each window the run can spare (gateway/pacer.ts).
   */
  ahead?: Map<string, number>
}

/** The requests the run's walks said they still mean to make, or undefined when none knows. */
function aheadOf(ctx: SyncContext): number | undefined {
  if (!ctx.ahead || ctx.ahead.size === 0) return undefined
  let sum = 0
  for (const n of ctx.ahead.values()) sum += n
  return sum
}

/** A sync request: background lane, and nothing sent or stored once the run is stopped. */
export async function call<T>(ctx: SyncContext, operation: OperationName, request: OperationRequest = {}): Promise<T> {
  ctx.signal?.throwIfAborted()
  const ahead = aheadOf(ctx)
  const answer = await ctx.transport.call<T>(operation, { lane: 'sync', ...(ahead !== undefined && { ahead }), ...request })
  ctx.signal?.throwIfAborted()
  return answer
}

/** A v4 list answer. */
export interface ListAnswer<T> {
  entities: T[]
  total_items: number
  next_page_url?: string
}

/** The cursor of a v4 list's next page (the only thing sent with it, besides `fields`). */
export function cursorOf(nextPageUrl: string | undefined): string | null {
  if (!nextPageUrl) return null
  try {
    return new URL(nextPageUrl).searchParams.get('cursor')
  } catch {
    return null
  }
}

/** The service no longer knows the cursor (expired snapshot): the walk starts again from its first page. */
export function isExpiredCursor(error: unknown): boolean {
  const f = failureOf(error)
  return f.kind === 'http' && f.status === 400 && f.errors?.cursor !== undefined
}

/** Fetches every page of a small v4 list (a few pages at most), starting over if its cursor expires. */
export async function allPages<T>(ctx: SyncContext, operation: OperationName, query: OperationQuery = {}): Promise<T[]> {
  for (;;) {
    const out: T[] = []
    let page = await call<ListAnswer<T>>(ctx, operation, { query: { limit: ctx.options.pageSize, ...query } })
    out.push(...page.entities)
    let expired = false
    while (page.next_page_url) {
      try {
        page = await call<ListAnswer<T>>(ctx, operation, { query: { cursor: cursorOf(page.next_page_url), fields: query?.fields } })
      } catch (e) {
        if (!isExpiredCursor(e)) throw e
        expired = true
        break
      }
      out.push(...page.entities)
    }
    if (!expired) return out
  }
}
