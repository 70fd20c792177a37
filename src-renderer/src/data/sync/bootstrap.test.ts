// Bootstrap: the whole workspace in the cache, in exactly the requests
// sync.ts works out, with progress for every kind; the walks from both ends of
// their lists, meeting without an item missed or brought twice.
import { afterEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { createSyncer, isBootstrapped, SYNC_KINDS, type SyncProgress } from './index.ts'
import { AHEAD, LAST_PAGE_SIZE, WRITE_PAGES } from './walk.ts'
import { DOC_V4_PAGE_FIELDS, EPIC_LIST_V3_FIELDS, EPIC_V4_FIELDS, EPIC_V4_PAGE_FIELDS } from '../convert.ts'
import { bootstrapFloor, countingTransport, pages, serviceCounts, startWorld, type World } from '../../../../testing/sync-kit.ts'

let world: World | undefined
afterEach(async () => {
  await world?.close()
  world = undefined
})

async function bootstrap(seed: NonNullable<Parameters<typeof startWorld>[0]>['seed']) {
  world = await startWorld({ seed })
  const db = world.openDb()
  const transport = countingTransport(world.transport)
  // Every write of an epic row (a put of a new row or over one).
  const epicWrites = { count: 0 }
  db.epics.hook('creating', () => void epicWrites.count++)
  db.epics.hook('updating', () => void epicWrites.count++)
  const progress: SyncProgress[] = []
  const syncer = createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 }, onProgress: (p) => progress.push(p) })
  const report = await syncer.sync()
  return { world, db, transport, progress, syncer, report, epicWrites }
}

async function expectCacheMatchesService(w: World, db: ReturnType<World['openDb']>) {
  const c = serviceCounts(w.service)
  expect({
    epics: await db.epics.count(),
    docs: await db.docs.count(),
    files: await db.files.count(),
    linkedFiles: await db.linkedFiles.count(),
    members: await db.members.count(),
    groups: await db.groups.count(),
    categories: await db.categories.count(),
    objectives: await db.objectives.count(),
    labels: await db.labels.count(),
    customFields: await db.customFields.count(),
    epicStates: await db.epicStates.count(),
    comments: await db.epicComments.count(),
    healths: await db.epicHealth.count(),
  }).toEqual(c)
}

describe('bootstrap', () => {
  it('fills every table from the demo workspace in the request floor', async () => {
    const { world: w, db, transport, progress, report } = await bootstrap('demo')
    expect(report.bootstrap).toBe(true)
    expect(report.failures).toEqual([])
    expect(transport.counted.total()).toBe(bootstrapFloor(w.service))
    await expectCacheMatchesService(w, db)
    expect(await isBootstrapped(db)).toBe(true)

    // Epics: fields and positions from the service, comments and health as slims.
    const served = (await v3(w.service).get('/epics', { query: { includes_description: true } })).body as any[]
    for (const e of served) {
      const cached = await db.epics.get(e.id)
      expect(cached).toMatchObject({
        name: e.name,
        description: e.description,
        position: e.position,
        archived: e.archived,
        epic_state_id: e.epic_state_id,
        owner_ids: e.owner_ids,
        group_ids: e.group_ids,
        objective_ids: e.objective_ids,
        label_ids: e.label_ids,
        updated_at: e.updated_at,
      })
    }
    const withComments = served.find((e) => e.id && w.service.ctx.col('epic_comment' as never).byParent(e.id).length > 0)
    const full = (await v3(w.service).get(`/epics/${withComments.id}`)).body
    const cachedComments = await db.epicComments.where('epic_id').equals(withComments.id).toArray()
    const flat = (cs: any[]): any[] => cs.flatMap((c) => [c, ...flat(c.comments)])
    expect(cachedComments.map((c) => [c.id, c.text, c.deleted, c.slim]).sort()).toEqual(
      flat(full.comments)
        .map((c) => [c.id, c.text, c.deleted, true])
        .sort(),
    )

    // Docs readable offline: their Markdown (the HTML comes when a doc is opened).
    const doc = (await db.docs.toArray())[0]
    expect(doc.content_markdown.length).toBeGreaterThan(0)
    expect(doc.content_html).toBe('')
    // Every epic and doc whole: none left as the v3 lists stored them.
    expect(await db.epics.filter((e) => e.partial === true).count()).toBe(0)
    expect(await db.docs.filter((d) => d.partial === true).count()).toBe(0)

    // Progress for every kind, each ending at its total.
    const last = new Map(progress.map((p) => [p.kind, p]))
    expect([...last.keys()].sort()).toEqual([...SYNC_KINDS].sort())
    for (const p of last.values()) {
      expect(p.phase).toBe('bootstrap')
      expect(p.done).toBe(p.total)
    }
    expect(last.get('epics')!.total).toBe(serviceCounts(w.service).epics)
  })

  it('pages that come while the cache is busy are stored together, a few at a time, with where both ends stand', async () => {
    world = await startWorld({ seed: { epics: 4000, docs: 0, files: 0 } })
    const w = world
    const db = w.openDb()
    // The first 12 pages come while the v3 list is on its way and wait for it; the others are answered once
    // those are written and the cache is held by another transaction, for 300 ms.
    const WAITED = 12
    let hold: Promise<unknown> | undefined
    let held = false
    let holding!: () => void
    const holdBegan = new Promise<void>((resolve) => (holding = resolve))
    let asked = 0
    let answeredWhileHeld = 0
    const inner = countingTransport(w.transport)
    const transport = {
      ...inner,
      call: async <T>(...args: Parameters<typeof inner.call>) => {
        const page = args[0] === 'epics.list'
        if (page && ++asked > WAITED) await holdBegan
        const answer = await inner.call<T>(...args)
        if (page && held) answeredWhileHeld++
        return answer
      },
    }
    const progress: SyncProgress[] = []
    const onProgress = (p: SyncProgress) => {
      progress.push(p)
      if (p.kind !== 'epics' || p.done < WAITED * 100 || hold) return
      held = true
      setTimeout(() => (held = false), 300)
      hold = db.transaction('rw', db.checkpoints, async () => {
        while (held) await db.checkpoints.get('epics')
      })
      holding()
    }
    await createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 }, onProgress }).sync()
    await hold
    const told = progress.filter((p) => p.kind === 'epics').map((p) => p.done)
    expect(hold).toBeDefined()
    // While held, the two ends asked ahead of the writes (AHEAD each waiting to be written, and each end's page on
    // its way), no more.
    expect(answeredWhileHeld).toBeGreaterThanOrEqual(AHEAD)
    expect(answeredWhileHeld).toBeLessThanOrEqual(2 * AHEAD + 2)
    // What came went in writes of several pages, WRITE_PAGES at most each.
    const writes = told.map((done, i) => done - (told[i - 1] ?? 0))
    expect(Math.max(...writes.slice(1))).toBe(WRITE_PAGES * 100)
    expect(told.at(-1)).toBe(4000)
    // 40 pages from the two ends, and the last one.
    expect(inner.counted.calls.get('epics.list')).toBe(40 + 1)
    expect(await db.epics.count()).toBe(4000)
    expect((await db.checkpoints.get('epics'))?.bootstrapped).toBe(true)
  })

  it('bootstraps a larger workspace in ceil(E/100) + ceil(D/100) + 13 requests, from both ends, with fields', async () => {
    const { world: w, db, transport, progress, epicWrites } = await bootstrap({ epics: 1200, docs: 250, files: 120 })
    const c = serviceCounts(w.service)
    expect(c.epics).toBe(1200)
    // Each epic is written twice: from the v3 list (every epic listed at once), then completed by its page.
    expect(epicWrites.count).toBe(2 * 1200)
    const byPosition = await db.epics.orderBy('id').toArray()
    for (const e of byPosition) expect(e.position).toBe(w.service.ctx.col<any>('epic').get(e.id as number).position)
    expect(transport.counted.total()).toBe(pages(1200) + pages(250) + 13)
    expect(transport.counted.calls.get('epics.list')).toBe(12 + 1)
    expect(transport.counted.calls.get('documents.list')).toBe(3 + 1)
    await expectCacheMatchesService(w, db)

    // The pages: from the newest end and the oldest, 100 at a time, only what the cache needs of them but the
    // newest end's first (the list's first screen, stored at once); the last, what changed during the walk, whole.
    const firsts = transport.counted.log.filter((l) => (l.operation === 'epics.list' || l.operation === 'documents.list') && !l.request.query?.cursor)
    for (const kind of ['epics.list', 'documents.list']) {
      const walk = firsts.filter((l) => l.operation === kind).map((l) => l.request.query)
      const fields = kind === 'epics.list' ? EPIC_V4_PAGE_FIELDS : DOC_V4_PAGE_FIELDS
      const whole = (kind === 'epics.list' ? EPIC_V4_FIELDS : DOC_V4_PAGE_FIELDS).join(',')
      expect(walk).toEqual([
        { limit: 100, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived', fields: whole },
        { limit: 100, order_by: 'updated_at', order_dir: 'asc', filter: 'include_archived', fields: fields.join(',') },
        { limit: LAST_PAGE_SIZE, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived', fields: whole },
      ])
    }
    // The epic list of a bootstrap carries every epic's cached fields, position and progress.
    expect(transport.counted.log.find((l) => l.operation === 'epics.v3List')?.request.fields).toEqual([...EPIC_LIST_V3_FIELDS])
    // Epic pages report progress as they are stored: never back, up to all of them.
    const told = progress.filter((p) => p.kind === 'epics').map((p) => p.done)
    expect(told.at(-1)).toBe(1200)
    told.forEach((done, i) => {
      if (i > 0) expect(done).toBeGreaterThanOrEqual(told[i - 1])
    })
  })

  it('lists every epic once the v3 list has come, while the walk completes them', async () => {
    world = await startWorld({ seed: { epics: 1200, docs: 10, files: 3 } })
    const db = world.openDb()
    const inner = world.transport
    let pagesWhenListCame = -1
    let epicsAfterList = -1
    let pagesAsked = 0
    const transport = {
      ...inner,
      call: async <T>(...args: Parameters<typeof inner.call>): Promise<T> => {
        if (args[0] === 'epics.list') pagesAsked++
        const answer = await inner.call<T>(...args)
        if (args[0] === 'epics.v3List') pagesWhenListCame = pagesAsked
        return answer
      },
    }
    const progress = (p: SyncProgress) => {
      if (p.kind === 'epicList' && p.done === p.total && epicsAfterList < 0) void db.epics.count().then((n) => (epicsAfterList = n))
    }
    await createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 }, onProgress: progress }).sync()
    // The list and the walk's first page were asked for together.
    expect(pagesWhenListCame).toBeGreaterThanOrEqual(1)
    expect(epicsAfterList).toBe(1200)
    expect(await isBootstrapped(db)).toBe(true)
  })

  it('then syncs incrementally: one page of epics and one of docs, nothing rewritten', async () => {
    const { db, transport, syncer } = await bootstrap('demo')
    transport.counted.reset()
    const report = await syncer.sync()
    expect(report.bootstrap).toBe(false)
    expect(Object.fromEntries(transport.counted.calls)).toEqual({ 'epics.list': 1, 'documents.list': 1 })
    expect(report.written).toBe(0)
    expect(await isBootstrapped(db)).toBe(true)
  })
})
