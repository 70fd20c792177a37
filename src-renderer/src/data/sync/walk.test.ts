// A bootstrap walks each list from both ends at once and meets in the middle:
// every item in a page of one end or the other, none brought twice when the
// list is a whole number of pages, and the cache the service's copy even when
// epics change, appear and go while the walk goes on (between the two ends'
// first pages, too).
import { afterEach, describe, expect, it } from 'vitest'
import type { OperationName, OperationRequest } from '../../../../src-shared/api/operations.ts'
import { v3, v4 } from '../../../../testing/service.ts'
import { countingTransport, startWorld, type World } from '../../../../testing/sync-kit.ts'
import { createSyncer, type SyncProgress } from './index.ts'
import { LAST_PAGE_SIZE, WRITE_PAGES } from './walk.ts'

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

interface Seen {
  /** Ids each bootstrap page of `operation` brought, by end. */
  desc: number[][]
  asc: number[][]
}

/**
 * Bootstraps a fresh cache, noting the ids of every page of the walk from both ends; `during` runs before each
 * epic page is asked for, with the pages that came so far (once the other end's page on its way has come:
 * what `seen` lacks then was in no page).
 */
async function bootstrap(w: World, during?: (request: OperationRequest, seen: Seen) => Promise<void>) {
  const db = w.openDb()
  const seen: Seen = { desc: [], asc: [] }
  const ends = new Map<string, 'desc' | 'asc'>()
  const inner = countingTransport(w.transport)
  const onTheirWay = new Set<Promise<unknown>>()
  const transport = {
    ...inner,
    call: async <T>(operation: OperationName, request: OperationRequest = {}): Promise<T> => {
      const query = request.query ?? {}
      const walkPage = operation === 'epics.list' && query.limit !== LAST_PAGE_SIZE
      if (walkPage && during) {
        await Promise.allSettled([...onTheirWay])
        await during(request, seen)
      }
      const asked = inner.call<T>(operation, request)
      if (walkPage) {
        onTheirWay.add(asked)
        void asked.catch(() => undefined).finally(() => onTheirWay.delete(asked))
      }
      const answer = await asked
      if (walkPage) {
        const page = answer as { entities: { id: number }[]; next_page_url?: string }
        const end = (query.order_dir as 'desc' | 'asc' | undefined) ?? ends.get(String(query.cursor))!
        seen[end].push(page.entities.map((e) => e.id))
        if (page.next_page_url) ends.set(new URL(page.next_page_url).searchParams.get('cursor')!, end)
      }
      return answer
    },
  }
  const report = await createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()
  return { db, seen, report, counted: inner.counted }
}

/** The cache holds the service's epics, each as the service has it now, and none half-stored. */
async function expectServiceCopy(w: World, db: ReturnType<World['openDb']>) {
  const served = (await v3(w.service).get('/epics', { query: { includes_description: true } })).body as {
    id: number
    name: string
    description: string
    updated_at: string
  }[]
  const cached = await db.epics.toArray()
  expect(cached.map((e) => e.id).sort((a, b) => Number(a) - Number(b))).toEqual(served.map((e) => e.id).sort((a, b) => a - b))
  const byId = new Map(cached.map((e) => [e.id, e]))
  for (const e of served) expect(byId.get(e.id)).toMatchObject({ name: e.name, description: e.description, updated_at: e.updated_at })
  expect(cached.filter((e) => e.partial)).toEqual([])
}

describe('a walk from both ends', () => {
  it('brings each item once in a list of whole pages, the ends meeting in the middle', async () => {
    world = await startWorld({ seed: { epics: 1000, docs: 0, files: 0 } })
    const { db, seen, counted } = await bootstrap(world)
    const all = [...seen.desc, ...seen.asc].flat()
    expect(all).toHaveLength(1000)
    expect(new Set(all).size).toBe(1000)
    expect(seen.desc.length + seen.asc.length).toBe(10)
    // The two ends went together and met about half way.
    expect(Math.abs(seen.desc.length - seen.asc.length)).toBeLessThanOrEqual(2)
    expect(seen.asc.length).toBeGreaterThanOrEqual(4)
    // The two ends and the last page (what changed meanwhile: nothing).
    expect(counted.calls.get('epics.list')).toBe(10 + 1)
    await expectServiceCopy(world, db)
  })

  it("tells the gateway with each request, once the lists' sizes are known, how many pages the walks still mean to ask for", async () => {
    world = await startWorld({ seed: { epics: 1000, docs: 0, files: 0 } })
    const inner = world.transport
    const asked: { page: boolean; ahead: number | undefined }[] = []
    const transport = {
      ...inner,
      call: <T>(operation: OperationName, request: OperationRequest = {}): Promise<T> => {
        asked.push({ page: operation === 'epics.list' || operation === 'documents.list', ahead: request.ahead })
        return inner.call<T>(operation, request)
      },
    }
    await createSyncer({ db: world.openDb(), transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()
    const pages = asked.filter((a) => a.page)
    // 10 epic pages from both ends; the empty doc list's two first pages; each walk's last page.
    expect(pages).toHaveLength(14)
    const told = pages.flatMap((a, i) => (a.ahead === undefined ? [] : [{ ahead: a.ahead, after: pages.length - 1 - i }]))
    // Only the first pages (each end's, before the sizes are known) go untold.
    expect(told.length).toBeGreaterThanOrEqual(pages.length - 4)
    // The pages that came after it: one fewer at most while the doc list's first pages (its size unknown) were on their way.
    for (const { ahead, after } of told) {
      expect(ahead).toBeGreaterThanOrEqual(after - 1)
      expect(ahead).toBeLessThanOrEqual(after)
    }
    expect(pages.at(-1)!.ahead).toBe(0)
  })

  it('writes the pages that waited for the list of every epic a few at a time, not in one transaction', async () => {
    world = await startWorld({ seed: { epics: 2000, docs: 0, files: 0 } })
    const inner = world.transport
    let pagesCame = 0
    let enoughCame!: () => void
    const enough = new Promise<void>((resolve) => (enoughCame = resolve))
    const transport = {
      ...inner,
      call: async <T>(operation: OperationName, request: OperationRequest = {}): Promise<T> => {
        // The list of every epic comes once the walk has most of its pages: they wait for it.
        if (operation === 'epics.v3List') await enough
        const answer = await inner.call<T>(operation, request)
        if (operation === 'epics.list' && ++pagesCame >= 12) enoughCame()
        return answer
      },
    }
    const written: number[] = []
    const onProgress = (p: SyncProgress) => {
      if (p.kind === 'epics' && p.phase === 'bootstrap') written.push(p.done)
    }
    const db = world.openDb()
    await createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 }, onProgress }).sync()
    // Each write stores the epics of WRITE_PAGES pages at most, and together they store every one.
    const steps = written.map((done, i) => done - (written[i - 1] ?? 0))
    expect(Math.max(...steps)).toBeLessThanOrEqual(WRITE_PAGES * 100)
    expect(steps.length).toBeGreaterThanOrEqual(12 / WRITE_PAGES)
    expect(written.at(-1)).toBe(2000)
    await expectServiceCopy(world, db)
  })

  it('brings at most the remainder of a page twice in a list that is not', async () => {
    world = await startWorld({ seed: { epics: 1030, docs: 0, files: 0 } })
    const { db, seen } = await bootstrap(world)
    const all = [...seen.desc, ...seen.asc].flat()
    expect(new Set(all).size).toBe(1030)
    expect(all.length - 1030).toBeLessThanOrEqual(100 - 30)
    await expectServiceCopy(world, db)
  })

  it('leaves the cache as the service is when epics change, appear and go during the walk', async () => {
    world = await startWorld({ seed: { epics: 2000, docs: 0, files: 0 } })
    const w = world
    const ids = () => w.service.ctx.col<any>('epic').ids().map(Number)
    const api = v4(w.service)
    let step = 0
    const changed: { renamed: number[]; deleted: number[]; created: number[] } = { renamed: [], deleted: [], created: [] }
    const { db } = await bootstrap(w, async (request, seen) => {
      step++
      const taken = new Set([...seen.desc, ...seen.asc].flat())
      const untaken = ids().filter((id) => !taken.has(id))
      const rename = async (id: number) => {
        await api.patch(`/epics/${id}`, { name: `Renamed during the walk ${id}`, description: `Changed at step ${step}` })
        changed.renamed.push(id)
      }
      if (request.query?.order_dir === 'asc') {
        // Between the two ends' first pages: an epic in the middle changes (the newest in the oldest end's list now).
        await rename(untaken[Math.floor(untaken.length / 2)])
      } else if (step === 5 || step === 9) {
        // Mid-walk: one not yet brought changes, one already brought changes, one goes, one comes.
        await rename(untaken[Math.floor(untaken.length / 3)])
        await rename([...taken][0])
        const gone = untaken[Math.floor((2 * untaken.length) / 3)]
        await api.patch(`/epics/${gone}`, { archived: true })
        await api.delete(`/epics/${gone}`)
        changed.deleted.push(gone)
        changed.created.push((await api.post('/epics', { name: `Created during the walk ${step}`, description: 'New' })).body.id)
      }
    })
    expect(changed.renamed.length).toBeGreaterThanOrEqual(5)
    for (const id of changed.deleted) expect(await db.epics.get(id)).toBeUndefined()
    for (const id of changed.created) expect(await db.epics.get(id)).toMatchObject({ description: 'New' })
    await expectServiceCopy(w, db)
  })
})
