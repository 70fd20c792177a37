// A screen whose code cannot be read (a chunk of the app's own files missing
// or unreadable) says so in its place, with a way back to the epics and a
// reload that reads the files again; the rest of the window keeps working.
// The problem over the list is saved to look at (test-results/e2e/).
import type { Page, Route } from '@playwright/test'
import { epicRow, expect, goTo, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

/** The chunks of these screens fail to load, as a file that cannot be read does. */
async function unreadable(page: Page, chunks: string[]): Promise<() => Promise<void>> {
  const pattern = new RegExp(`/assets/(${chunks.join('|')})-[\\w-]+\\.js$`)
  const fail = (route: Route) => route.abort('failed')
  await page.route(pattern, fail)
  return () => page.unroute(pattern, fail)
}

test('a screen that cannot be loaded says so, and the window goes on', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const readable = await unreadable(page, ['EpicDetail', 'NewEpic', 'DocsScreen'])
  const problem = page.getByRole('alert').filter({ has: page.getByRole('heading', { name: 'This screen could not be loaded' }) })
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

  // An epic: the problem in the epic's place, and back to the list.
  await epicRow(page, epics[0].name).first().click()
  await expect(problem).toBeVisible()
  await expect(problem.getByText(/Failed to fetch|dynamically imported module|import/i)).toBeVisible()
  await problem.getByRole('button', { name: 'Go to Epics' }).click()
  await expect(problem).toBeHidden()
  await expect(epicRow(page, epics[0].name).first()).toBeVisible()

  // The new-epic dialog: the problem over the list, which is there again after.
  await page.getByRole('main', { name: 'Content' }).getByRole('button', { name: 'New epic' }).click()
  await expect(problem).toBeVisible()
  await screens(page, info, 'new-epic-not-loaded')
  await problem.getByRole('button', { name: 'Go to Epics' }).click()
  await expect(problem).toBeHidden()
  await expect(epicRow(page, epics[0].name).first()).toBeVisible()

  // Docs, a screen of its own: once the files can be read again, Reload shows it.
  await goTo(page, 'Docs')
  await expect(problem).toBeVisible()
  await expect(page.getByRole('navigation', { name: 'Outpost' })).toBeVisible()
  await readable()
  await problem.getByRole('button', { name: 'Reload' }).click()
  await expect(page.getByRole('searchbox', { name: 'Search docs' })).toBeVisible({ timeout: 30_000 })
  await expect(problem).toBeHidden()
})
