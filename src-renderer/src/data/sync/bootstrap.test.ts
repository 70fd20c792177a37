// Bootstrap: the whole workspace in the cache, in exactly the request floor
// sync.ts works out, with progress for every kind.
import { afterEach, describe, expect, it } from 'vitest'
import { v3 } from '../../../../testing/service.ts'
import { createSyncer, isBootstrapped, SYNC_KINDS, type SyncProgress } from './index.ts'
import { AHEAD } from './walk.ts'
import { EPIC_V4_FIELDS, DOC_V4_FIELDS } from '../convert.ts'
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
    expect(cachedComments.map((c) => [c.id, c.text, c.deleted, c.slim]).sort()).toEqual(flat(full.comments).map((c) => [c.id, c.text, c.deleted, true]).sort())

    // Docs readable offline: both contents.
    const doc = (await db.docs.toArray())[0]
    expect(doc.content_markdown.length).toBeGreaterThan(0)
    expect(doc.content_html).toMatch(/<\w+/)

    // Progress for every kind but the doc sweep (a bootstrap needs none), each ending at its total.
    const last = new Map(progress.map((p) => [p.kind, p]))
    expect([...last.keys()].sort()).toEqual(SYNC_KINDS.filter((k) => k !== 'docList').sort())
    for (const p of last.values()) {
      expect(p.phase).toBe('bootstrap')
      expect(p.done).toBe(p.total)
    }
    expect(last.get('epics')!.total).toBe(serviceCounts(w.service).epics)
  })

  it('pages that come while the cache is busy are stored together, with the last one’s checkpoint', async () => {
    world = await startWorld({ seed: { epics: 1200, docs: 0, files: 0 } })
    const w = world
    const db = w.openDb()
    // The cache held by another transaction from the walk's first page on (after the head page and the
    // list), until its next AHEAD pages have come.
    let hold: Promise<unknown> | undefined
    let release = () => {}
    let pagesAnswered = 0
    const inner = countingTransport(w.transport, (operation) => {
      if (operation !== 'epics.list' || hold || inner.counted.calls.get('epics.v3List') !== 1) return
      let held = true
      release = () => void (held = false)
      hold = db.transaction('rw', db.checkpoints, async () => {
        while (held) await db.checkpoints.get('epics')
      })
    })
    const transport = {
      ...inner,
      call: async <T>(...args: Parameters<typeof inner.call>) => {
        const answer = await inner.call<T>(...args)
        if (args[0] === 'epics.list' && hold && ++pagesAnswered === 1 + AHEAD) setTimeout(release, 0)
        return answer
      },
    }
    const progress: SyncProgress[] = []
    await createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 }, onProgress: (p) => progress.push(p) }).sync()
    await hold
    const told = progress.filter((p) => p.kind === 'epics').map((p) => p.done)
    // The head page; the first page of the walk, alone (written as soon as it came, then held); the AHEAD
    // pages that came meanwhile, in one write.
    expect(told.slice(0, 3)).toEqual([100, 200, 200 + AHEAD * 100])
    expect(told.at(-1)).toBe(1200)
    expect(inner.counted.calls.get('epics.list')).toBe(12)
    expect(await db.epics.count()).toBe(1200)
    expect((await db.checkpoints.get('epics'))?.bootstrapped).toBe(true)
  })

  it('bootstraps a larger workspace in ceil(E/100) + ceil(D/100) + 10 requests, with fields', async () => {
    const { world: w, db, transport, progress, epicWrites } = await bootstrap({ epics: 1200, docs: 250, files: 120 })
    const c = serviceCounts(w.service)
    expect(c.epics).toBe(1200)
    // Each epic is written once, whole, from its page (the v3 list gives only positions and progress), but the
    // first page's: stored before the list (the epic list shows it at once), then put in their places.
    expect(epicWrites.count).toBe(1200 + 100)
    const calls = transport.counted.log.map((l) => l.operation)
    expect(calls.indexOf('epics.list')).toBeLessThan(calls.indexOf('epics.v3List'))
    const byPosition = await db.epics.orderBy('id').toArray()
    for (const e of byPosition) expect(e.position).toBe(w.service.ctx.col<any>('epic').get(e.id as number).position)
    expect(transport.counted.total()).toBe(pages(1200) + pages(250) + 10)
    expect(transport.counted.calls.get('epics.list')).toBe(12)
    expect(transport.counted.calls.get('documents.list')).toBe(3)
    await expectCacheMatchesService(w, db)

    // Every v4 page: 100 at a time (the first), only the fields the cache keeps (all of them).
    for (const { operation, request } of transport.counted.log.filter((l) => l.operation === 'epics.list' || l.operation === 'documents.list')) {
      expect(request.query?.fields).toBe((operation === 'epics.list' ? EPIC_V4_FIELDS : DOC_V4_FIELDS).join(','))
      if (!request.query?.cursor) expect(request.query).toMatchObject({ limit: 100, order_by: 'updated_at', order_dir: 'desc', filter: 'include_archived' })
    }
    // The epic list of a bootstrap carries only the positions and progress the v4 pages lack.
    expect(transport.counted.log.find((l) => l.operation === 'epics.v3List')?.request.fields).toEqual(['id', 'position', 'stats'])
    // Epic pages report progress as they are stored: whole pages, never back, up to all of them.
    const told = progress.filter((p) => p.kind === 'epics').map((p) => p.done)
    expect(told[0]).toBe(100)
    expect(told.at(-1)).toBe(1200)
    told.forEach((done, i) => {
      expect(done % 100).toBe(0)
      if (i > 0) expect(done).toBeGreaterThan(told[i - 1])
    })
  })

  it('stores the newest epics before it asks for the list of all', async () => {
    world = await startWorld({ seed: { epics: 300, docs: 10, files: 3 } })
    const db = world.openDb()
    const inner = world.transport
    let rowsWhenListAsked = -1
    const transport = {
      ...inner,
      call: async <T,>(...args: Parameters<typeof inner.call>): Promise<T> => {
        if (args[0] === 'epics.v3List') rowsWhenListAsked = await db.epics.count()
        return inner.call<T>(...args)
      },
    }
    await createSyncer({ db, transport, clock: Date.now, options: { fileBudgetBytes: 0 } }).sync()
    expect(rowsWhenListAsked).toBe(100)
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
