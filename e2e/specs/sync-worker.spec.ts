// The sync runs in a worker of the window (src-renderer/src/data/sync-worker/):
// while a bootstrap fills the cache, the window paints what the worker has
// written, scrolls and searches it; a worker that cannot start leaves the
// sync to the window, which fills the cache all the same.
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
