// startService(): the local work-tracking service, for the CLI, tests and benchmarks.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp, type ApiApp } from './app.ts'
import { Tokens } from './auth.ts'
import { ServiceContext, type Feature } from './context.ts'
import { openDatabase } from './db.ts'
import { installJournal } from './journal.ts'
import { NO_FAULTS, seededRandom, validateFaults, type Faults } from './faults.ts'
import { RATE_LIMIT } from '../src-shared/api/limits.ts'
import { RateLimiter, type RateLimit } from './ratelimit.ts'
import { RESOURCES } from './resources/index.ts'
import { DEMO_PLAN, SeedRandom, type SeedPlan } from './seed/plan.ts'
import { ensureWorkspace, type PrintedTokens } from './workspace.ts'

export type { PrintedTokens } from './workspace.ts'
export type { Faults } from './faults.ts'
export type { RateLimit } from './ratelimit.ts'

export interface ServiceOptions {
  /** 0 (default) picks a free port. */
  port?: number
  host?: string
  /** SQLite file; a temporary one (removed on close) when absent. */
  db?: string
  /** Seeds a new database: the demo workspace, or sizes for a large one. */
  seed?: 'demo' | { epics?: number; docs?: number; files?: number }
  workspaceSlug?: string
  rateLimit?: RateLimit | 'off'
  faults?: Partial<Faults>
  /** Seed of the fault dice, so a faulty run can be replayed. */
  faultSeed?: number
  clock?: () => number
  /** Largest JSON body, in bytes (8 MiB). */
  bodyLimit?: number
  /** Largest uploaded file, in bytes (50 MiB). */
  maxFileBytes?: number
  /** Print one line per answered request. */
  log?: (line: string) => void
  /** Webhook delivery retries: attempts after the first, and the first delay. */
  webhookRetry?: { attempts: number; baseDelayMs: number }
  /** A folder to write the request journal into (journal.ts); default: OUTPOST_SERVICE_JOURNAL, else none. */
  journal?: string
}

export interface RunningService {
  baseUrl: string
  workspace: string
  tokens: PrintedTokens
  ctx: ServiceContext
  app: ApiApp
  setFaults(faults: Partial<Faults>): void
  setRateLimit(limit: RateLimit | 'off'): void
  setFeature(feature: Feature, enabled: boolean): void
  close(): Promise<void>
}

export async function startService(options: ServiceOptions = {}): Promise<RunningService> {
  const tempDir = options.db ? undefined : mkdtempSync(join(tmpdir(), 'outpost-service-'))
  const db = openDatabase(options.db ?? join(tempDir!, 'service.db'))
  const ctx = new ServiceContext(db, options.clock ?? Date.now)
  const isNew = ctx.meta('workspace') === undefined
  const printed = ensureWorkspace(ctx, new Tokens(ctx), options.workspaceSlug ?? 'demo', 'Outpost Demo')
  if (isNew) {
    ctx.tx(() => {
      for (const r of RESOURCES) r.init?.(ctx)
    })
    if (options.seed) seedWorkspace(ctx, options.seed)
  }

  let faults: Faults = validateFaults({ ...NO_FAULTS, ...options.faults })
  const limiter = new RateLimiter(options.rateLimit ?? { ...RATE_LIMIT }, ctx.clock)
  const app = buildApp({
    ctx,
    limiter,
    faults: () => faults,
    random: seededRandom(options.faultSeed ?? 1),
    bodyLimit: options.bodyLimit ?? 8 * 1024 * 1024,
    maxFileBytes: options.maxFileBytes ?? 50 * 1024 * 1024,
    webhookRetry: options.webhookRetry ?? { attempts: 5, baseDelayMs: 1000 },
    onLog: options.log,
  })
  const journalDir = options.journal ?? process.env.OUTPOST_SERVICE_JOURNAL
  const journal = journalDir ? installJournal(app, journalDir) : undefined
  const host = options.host ?? '127.0.0.1'
  await app.listen({ port: options.port ?? 0, host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`

  return {
    baseUrl,
    workspace: ctx.workspace.slug,
    tokens: printed,
    ctx,
    app,
    setFaults: (f) => {
      faults = validateFaults({ ...faults, ...f })
    },
    setRateLimit: (l) => {
      limiter.limit = l
    },
    setFeature: (feature, enabled) => ctx.setFeature(feature, enabled),
    close: async () => {
      await app.close()
      await journal?.close()
      db.close()
      if (tempDir) rmSync(tempDir, { recursive: true, force: true })
    },
  }
}

function seedWorkspace(ctx: ServiceContext, seed: NonNullable<ServiceOptions['seed']>): void {
  const plan: SeedPlan = seed === 'demo' ? DEMO_PLAN : { demo: false, epics: seed.epics ?? 0, docs: seed.docs ?? 0, files: seed.files ?? 0 }
  const random = new SeedRandom(20_261_121)
  const uuid = ctx.uuid
  ctx.uuid = () => random.uuid()
  try {
    ctx.tx(() => {
      for (const r of RESOURCES) r.seed?.({ ctx, plan, random })
    })
  } finally {
    ctx.uuid = uuid
  }
}
