// Every route of the service fuzzed with generated path parameters, query strings
// and bodies, with a valid admin token: never a 5xx, never a crash (the service
// answers after each route's batch), every rejection a 4xx with the error body.
import fc from 'fast-check'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Tokens } from '../../src-server/auth.ts'
import type { CommentRecord } from '../../src-server/resources/epics/records.ts'
import type { MemberRecord } from '../../src-server/resources/members/member.ts'
import { bodyArb, multipartArb, pathParamArb, queryArb, type BodyInput, type IdPools } from './arbitraries.ts'
import { FUZZ_RUNS, FUZZ_SEED, idPools, seedFor, startWebhookSink } from './fuzz-setup.ts'
import {
  RawClient,
  WRITE_METHODS,
  answerProblem,
  describeExchange,
  enableAllFeatures,
  healthy,
  pathParams,
  startRecordedService,
  type RawRequest,
  type RouteInfo,
} from './harness.ts'

const { service, routes } = await startRecordedService()
const sink = await startWebhookSink()
const client = new RawClient(service.baseUrl, { authorization: `Bearer ${service.tokens.admin}`, 'shortcut-token': service.tokens.v3 })
let cases = 0
/** Answers by route and status class, to see how deep the fuzz reaches (FUZZ_VERBOSE=1 prints them). */
const tally = new Map<string, Record<string, number>>()
console.log(`fuzz: seed ${FUZZ_SEED}, ${FUZZ_RUNS} cases per route (FUZZ_SEED / FUZZ_RUNS to change)`)

afterAll(async () => {
  const totals: Record<string, number> = {}
  for (const t of tally.values()) for (const [k, n] of Object.entries(t)) totals[k] = (totals[k] ?? 0) + n
  console.log(`fuzz: ${routes.length} routes, ${cases} requests, seed ${FUZZ_SEED}; answers ${JSON.stringify(totals)}`)
  if (process.env.FUZZ_VERBOSE) for (const [route, t] of tally) console.log(`  ${route} ${JSON.stringify(t)}`)
  await client.close()
  await service.close()
  await sink.close()
})

// Deletes run last, so the other routes meet the entities they would remove.
const ordered = [...routes.filter((r) => r.method !== 'DELETE'), ...routes.filter((r) => r.method === 'DELETE')]

/** Token ids for DELETE /admin/tokens/:id: throwaway ones, never the token the fuzz runs with. */
function throwawayTokenIds(): string[] {
  const tokens = new Tokens(service.ctx)
  const admin = service.ctx
    .col<MemberRecord>('member')
    .all()
    .find((m) => m.role === 'admin')!
  return [tokens.create('v4_ro', admin.id, 'fuzz').id, tokens.create('v3', admin.id, 'fuzz').id]
}

const schemaNames = (await client.send({ method: 'GET', path: '/api/v4/schemas' })).json as { schemas: string[] }

function pools(route: RouteInfo): IdPools {
  const p = idPools(service, sink.url)
  const tokens = route.url.includes('/admin/tokens/') ? throwawayTokenIds() : []
  return { ...p, bySegment: { tokens, schemas: schemaNames.schemas } }
}

/**
 * Requests for one route: half of them pass its schemas (so they reach the handler with
 * ids that exist), half are near-valid or plain wrong (so they test validation).
 */
function requestArb(route: RouteInfo, p: IdPools): fc.Arbitrary<RawRequest> {
  return fc.oneof(requestsOf(route, p, true), requestsOf(route, p, false))
}

function requestsOf(route: RouteInfo, p: IdPools, strict: boolean): fc.Arbitrary<RawRequest> {
  const params = pathParams(route.url)
  let paramArbs = params.map((param) => pathParamArb(param, p, service.workspace, strict))
  // A comment is found only under its own epic.
  const comments = service.ctx.col<CommentRecord>('epic_comment').all()
  if (strict && route.url.includes('/epics/:id/comments/:commentId') && comments.length > 0) {
    const pair = fc.constantFrom(...comments.slice(0, 40))
    paramArbs = [pair.map((c) => String(c.epic_id)), pair.map((c) => String(c.id))]
  }
  const isUpload = route.method === 'POST' && route.url === '/api/v3/files'
  const body: fc.Arbitrary<BodyInput> = !WRITE_METHODS.has(route.method)
    ? fc.constant({ kind: 'none' })
    : isUpload
      ? fc.oneof({ weight: 4, arbitrary: multipartArb() }, { weight: 1, arbitrary: bodyArb(undefined, p) })
      : bodyArb(route.schema.body, p, strict)
  return fc.tuple(fc.tuple(...paramArbs), queryArb(route.schema.querystring, p, strict), body).map(([values, query, b]) => {
    let i = 0
    const path = route.url.replace(/:[A-Za-z_]+/g, () => values[i++])
    const req: RawRequest = { method: route.method, path: query ? `${path}?${query}` : path }
    if (b.kind === 'json') return { ...req, body: JSON.stringify(b.value), contentType: 'application/json' }
    if (b.kind === 'text') return { ...req, body: b.text, contentType: b.contentType }
    if (b.kind === 'bytes') return { ...req, body: b.bytes, contentType: b.contentType }
    return req
  })
}

describe(`fuzz every route (seed ${FUZZ_SEED})`, () => {
  beforeEach(() => enableAllFeatures(service))
  afterEach(async () => {
    expect(await healthy(service), 'the service still answers after the batch').toBe(true)
  })

  it('knows the whole API surface', () => {
    expect(routes.length).toBeGreaterThan(100)
    // Every route but the upload (multipart) has its schema recorded, or takes no input.
    const missing = routes.filter((r) => r.url.replace(':workspace', '').includes(':') && !r.schema.params)
    expect(missing.map((r) => `${r.method} ${r.url}`)).toEqual([])
  })

  it.each(ordered.map((r) => [`${r.method} ${r.url}`, r] as const))('%s', async (label, route) => {
    await fc.assert(
      fc.asyncProperty(requestArb(route, pools(route)), async (req) => {
        cases++
        const answer = await client.send(req)
        const t = tally.get(label) ?? {}
        const key = answer.status < 300 ? '2xx' : String(answer.status)
        t[key] = (t[key] ?? 0) + 1
        tally.set(label, t)
        if (process.env.FUZZ_VERBOSE === '2' && answer.status === 422) console.log(`  422 ${label}: ${answer.text.slice(0, 200)}`)
        const problem = answerProblem(answer)
        if (problem) throw new Error(`${problem}: ${describeExchange(req, answer)}`)
      }),
      { seed: seedFor(label), numRuns: FUZZ_RUNS },
    )
  })
})
