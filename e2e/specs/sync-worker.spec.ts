// The sync runs in a worker of the window (src-renderer/src/data/sync-worker/):
// while a bootstrap fills the cache, the window paints what the worker has
// written, scrolls and searches it; the lists it hands over are shown before
// they are stored; a worker that cannot start leaves the sync to the window,
// which fills the cache all the same.
import { epicRow, expect, signIn, statusBar, test, waitForBootstrap } from '../fixtures/outpost.ts'

test.use({ serviceOptions: { seed: { epics: 1_200, docs: 60, files: 6 } } })

const synced = /^Synced (just now|\d)/

test('a bootstrap runs in the worker while the epic list is painted, scrolled and searched', async ({ service, outpost }) => {
  const page = await outpost.open()
  // Each answer a little late: the bootstrap lasts long enough to use the window meanwhile.
  service.running.setFaults({ latencyMs: 400 })
  await signIn(page, service)
  await expect.poll(() => page.workers().some((worker) => /\/assets\/worker-[^/]*\.js$/.test(worker.url()))).toBe(true)

  // The worker's writes reach the window's list: rows painted while the sync still runs.
  const list = page.getByRole('listbox', { name: /^Epics, \d+ shown/ })
  await expect(list.getByRole('option').first()).toBeVisible({ timeout: 30_000 })
  await expect(statusBar(page).getByText(synced)).toHaveCount(0)

  // Scrolling and searching answer meanwhile.
  await list.evaluate((el) => el.scrollBy(0, 2_000))
  await expect(list.getByRole('option').first()).toBeVisible()
  const [epic] = (await service.v3().get('/epics')).body as { id: number; name: string }[]
  await page.getByLabel('Search epics', { exact: true }).fill(epic.name)
  await expect(epicRow(page, epic.name).first()).toBeVisible()
  await expect(statusBar(page).getByText(synced)).toHaveCount(0)

  service.running.setFaults({ latencyMs: 0 })
  await waitForBootstrap(page)
  await page.getByLabel('Search epics', { exact: true }).fill('')
  await expect(page.getByRole('listbox', { name: `Epics, ${await activeEpics(service)} shown` })).toBeVisible()
})

test('every epic is listed, and found by its title, before the cache could store any of them', async ({ service, outpost }) => {
  const page = await outpost.open()
  // Each answer a little late; the list of every epic (asked for as the token is checked) and the epic walk's
  // pages, the two ways epics reach the cache, held back on the service until the cache is held.
  const epicPaths = ['/api/v3/epics', `/api/v4/${service.running.workspace}/epics`]
  service.running.setFaults({ latencyMs: 500, heldPaths: epicPaths })
  await signIn(page, service)
  // Another page of the same profile holds a read of the cache's epics: the sync's writes to them wait (as
  // they wait behind reads on a busy machine), so what the list and the palette show cannot come from it.
  const holder = await outpost.context.newPage()
  await holder.goto(new URL('/a-page-of-the-same-origin', outpost.host.host.url).href)
  const cachedWhenHeld = await holder.evaluate(async () => {
    let name: string | undefined
    while (!(name = (await indexedDB.databases()).map((d) => d.name).find((n) => n?.startsWith('outpost:')))) await new Promise((r) => setTimeout(r, 20))
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name!)
      open.onsuccess = () => resolve(open.result)
      open.onerror = () => reject(open.error)
    })
    const store = db.transaction('epics').objectStore('epics')
    let released = false
    ;(window as unknown as { release: () => void }).release = () => (released = true)
    return new Promise<number>((resolve) => {
      const first = store.count()
      first.onsuccess = () => {
        resolve(first.result)
        // A request after each keeps the transaction open until released.
        const again = () => {
          if (!released) store.count().onsuccess = again
        }
        again()
      }
    })
  })
  expect(cachedWhenHeld).toBe(0)
  service.running.setFaults({ latencyMs: 500, heldPaths: [] })

  const active = ((await service.v3().get('/epics')).body as { name: string; archived: boolean }[]).filter((e) => !e.archived)
  await expect(page.getByRole('listbox', { name: `Epics, ${active.length} shown` })).toBeVisible({ timeout: 30_000 })
  const palette = page.getByRole('dialog', { name: 'Command palette' })
  await page.keyboard.press('Control+k')
  const { name } = active[Math.floor(active.length / 2)]
  await palette.getByLabel('Search or run a command').fill(name)
  await expect(palette.getByRole('option').getByText(name, { exact: true })).toBeVisible()
  await page.keyboard.press('Escape')
  // Nothing was stored meanwhile: the sync still waits to store the list.
  await expect(statusBar(page).getByText(synced)).toHaveCount(0)

  await holder.evaluate(() => (window as unknown as { release: () => void }).release())
  service.running.setFaults({ latencyMs: 0 })
  await waitForBootstrap(page)
  await expect(page.getByRole('listbox', { name: `Epics, ${await activeEpics(service)} shown` })).toBeVisible()
})

test('a worker that cannot start leaves the sync to the window', async ({ service, outpost }) => {
  const page = await outpost.open()
  // The worker's script never comes (refused by a policy, a broken install): the window syncs itself.
  await page.route(/\/assets\/worker-[^/]*\.js$/, (route) => route.abort())
  const fellBack = page.waitForEvent('console', { predicate: (m) => /sync worker could not start/.test(m.text()), timeout: 30_000 })
  await signIn(page, service)
  await fellBack
  await waitForBootstrap(page)
  await expect(page.getByRole('listbox', { name: `Epics, ${await activeEpics(service)} shown` })).toBeVisible()
})

async function activeEpics(service: { v3(): { get(path: string): Promise<{ body: unknown }> } }): Promise<number> {
  return ((await service.v3().get('/epics')).body as { archived: boolean }[]).filter((e) => !e.archived).length
}
