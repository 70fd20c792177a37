// The floor of a first sync on a link: what the published API allows at the
// least, whatever the client. G is the bytes of every answer the cache needs,
// each gzip-compressed (the answers asked for with `fields` for what the
// cache keeps), and C the fewest round trips that must follow one another:
// a v4 list walked from both ends at once (order_by=updated_at, asc and
// desc) meets in the middle, and independent lists go at the same time, so
// C = ceil(ceil(E/100) / 2) for E epics. On a link of round trip RTT and down
// bandwidth B: floor = max(G / B, C x RTT) + RTT.
import { setTimeout as sleep } from 'node:timers/promises'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { DOC_V4_PAGE_FIELDS, EPIC_V4_PAGE_FIELDS } from '../src-renderer/src/data/convert.ts'
import type { BenchServiceView } from './harness.ts'
import { PAGE } from './harness.ts'
import type { LinkProfile } from './shaped-link.ts'

export interface LinkFloorData {
  /** Gzip bytes of every answer needed (G), and by what. */
  gzipBytes: number
  byAnswer: { what: string; answers: number; gzipBytes: number; bytes: number }[]
  /** The fewest requests for it. */
  requests: number
  /** The fewest dependent round trips (C). */
  chain: number
}

/** The answers a first sync needs, asked of the service directly (not through any link), and gzipped. */
export async function linkFloorData(service: BenchServiceView): Promise<LinkFloorData> {
  const token = service.tokens.admin
  const get = async (path: string): Promise<Buffer> => {
    for (;;) {
      const res = await request(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, 'shortcut-token': token } })
      const body = Buffer.from(await res.body.arrayBuffer())
      // A large workspace's pages go past the limit's window: wait as the service says, and ask again.
      if (res.statusCode === 429) {
        await sleep(1000 * Number(res.headers['retry-after'] ?? 1))
        continue
      }
      if (res.statusCode !== 200) throw new Error(`link floor: ${path} answered ${res.statusCode}`)
      return body
    }
  }
  const byAnswer: LinkFloorData['byAnswer'] = []
  const count = (what: string, bodies: Buffer[]) =>
    byAnswer.push({
      what,
      answers: bodies.length,
      bytes: bodies.reduce((n, b) => n + b.length, 0),
      gzipBytes: bodies.reduce((n, b) => n + gzipSync(b).length, 0),
    })
  const walk = async (path: string, fields: readonly string[]): Promise<Buffer[]> => {
    const pages: Buffer[] = []
    let next: string | undefined = `${path}?limit=${PAGE}&order_by=updated_at&order_dir=desc&filter=include_archived&fields=${fields.join(',')}`
    while (next) {
      const body = await get(next)
      pages.push(body)
      const url = (JSON.parse(body.toString('utf8')) as { next_page_url?: string }).next_page_url
      next = url ? new URL(url).pathname + new URL(url).search : undefined
    }
    return pages
  }
  const v4 = `/api/v4/${service.workspace}`
  const lists = ['members', 'groups', 'categories', 'objectives', 'labels', 'custom-fields', 'files', 'linked-files']
  count('reference lists and files (v3)', await Promise.all(lists.map((l) => get(`/api/v3/${l}`))))
  count('epic states (v4)', [await get(`${v4}/epic-workflow/states?limit=100&order_by=position`)])
  count('every epic, its position and progress (v3)', [await get('/api/v3/epics')])
  const epicPages = await walk(`${v4}/epics`, EPIC_V4_PAGE_FIELDS)
  count(`epic pages: ${EPIC_V4_PAGE_FIELDS.join(', ')} (v4)`, epicPages)
  const docPages = await walk(`${v4}/documents`, DOC_V4_PAGE_FIELDS)
  count(`doc pages: ${DOC_V4_PAGE_FIELDS.join(', ')} (v4)`, docPages)
  return {
    gzipBytes: byAnswer.reduce((n, a) => n + a.gzipBytes, 0),
    byAnswer,
    requests: byAnswer.reduce((n, a) => n + a.answers, 0),
    chain: Math.ceil(Math.max(epicPages.length, docPages.length) / 2),
  }
}

/** max(G / B, C x RTT) + RTT in ms; 0 on a link with neither delay nor bottleneck. */
export function linkFloorMs(data: LinkFloorData, profile: LinkProfile): number {
  const transfer = profile.downBitsPerS === Infinity ? 0 : (data.gzipBytes * 8 * 1000) / profile.downBitsPerS
  return Math.max(transfer, data.chain * profile.rttMs) + profile.rttMs
}

/**
 * The most requests of a run that went one after another (each sent after the one before it was
 * answered), from each request's start and end as the client saw them: the longest chain of round
 * trips the run waited through. Requests in flight together count once.
 */
export function longestChain(calls: { start: number; end: number }[]): number {
  let chain = 0
  let free = -Infinity
  for (const c of [...calls].sort((a, b) => a.end - b.end)) {
    if (c.start >= free) {
      chain++
      free = c.end
    }
  }
  return chain
}
