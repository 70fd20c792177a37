// What every resource plugin of the service is given and gives back, and what Fastify's request carries
// here: types only, in a module of their own, so the resources never import the app that imports them.
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Auth, Tokens } from './auth.ts'
import type { ServiceContext } from './context.ts'
import type { Pager } from './pages.ts'
import type { Refs } from './refs.ts'
import type { SeedContext } from './seed/plan.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Observers may use this write route (epic comments). */
    observerWrites?: boolean
    /** Admin role required (v4 admin routes). */
    admin?: boolean
    /** Observers refused, reads included (webhook integrations). */
    noObserver?: boolean
  }
  interface FastifyRequest {
    auth: Auth
  }
  interface FastifyInstance {
    /** Every route of the service, for the tests that sweep them all. */
    outpostRoutes: { method: string; url: string }[]
  }
}

export type ApiApp = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

/** What each resource plugin receives. */
export interface Deps {
  ctx: ServiceContext
  tokens: Tokens
  pager: Pager
  /** v4 references for this request's origin. */
  refs: (req: FastifyRequest) => Refs
  /** Largest upload accepted per file, in bytes. */
  maxFileBytes: number
  /** Webhook delivery retries: attempts after the first, and the first backoff delay. */
  webhookRetry: { attempts: number; baseDelayMs: number }
}

/** One resource: its routes for each API generation it appears in. */
export interface Resource {
  /** Runs once when a workspace is created (defaults such as the epic workflow). */
  init?: (ctx: ServiceContext) => void
  /** Adds this resource's part of a seeded workspace. */
  seed?: (seed: SeedContext) => void
  v3?: (app: ApiApp, deps: Deps) => void
  v4?: (app: ApiApp, deps: Deps) => void
  /** Routes outside the API prefixes (file contents). */
  root?: (app: ApiApp, deps: Deps) => void
}
