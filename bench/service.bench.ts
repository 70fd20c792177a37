// Benchmark: the local service's v4 list (limit 100) under load
// from a load generator on loopback (autocannon), rate limit off. Three rounds;
// the median of each figure is reported.
import autocannon from 'autocannon'
import { startService } from '../src-server/index.ts'
import { median, report, type Figure } from './report.ts'

const ROUNDS = 3
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = 8

const service = await startService({ seed: { epics: 10_000, docs: 0, files: 0 }, rateLimit: 'off' })
const headers = { authorization: `Bearer ${service.tokens.admin}` }
const firstPage = `${service.baseUrl}/api/v4/${service.workspace}/epics?limit=100`
// A later page: what most requests of a client walking the list look like.
const first = (await (await fetch(firstPage, { headers })).json()) as { next_page_url: string }
const laterPage = first.next_page_url

async function measure(name: string, url: string): Promise<Figure[]> {
  const rounds: { p50: number; p99: number; rps: number; errors: number }[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS })
    rounds.push({ p50: result.latency.p50, p99: result.latency.p99, rps: result.requests.average, errors: result.errors + result.non2xx })
  }
  return [
    { bench: 'service', figure: `${name} p50 latency`, value: median(rounds.map((r) => r.p50)), unit: 'ms' },
    { bench: 'service', figure: `${name} p99 latency`, value: median(rounds.map((r) => r.p99)), unit: 'ms' },
    { bench: 'service', figure: `${name} throughput`, value: median(rounds.map((r) => r.rps)), unit: 'req/s' },
    { bench: 'service', figure: `${name} failed requests`, value: rounds.reduce((n, r) => n + r.errors, 0), unit: 'count' },
  ]
}

const figures = [...(await measure('first page (limit 100)', firstPage)), ...(await measure('later page (cursor)', laterPage))]
await service.close()
report(`Service: v4 epics list of 10,000 epics, limit 100, ${CONNECTIONS} connections, ${ROUNDS} x ${SECONDS} s each, median`, figures)
