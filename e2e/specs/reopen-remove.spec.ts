// A reopened window shows the epic list it last showed, from what it kept to
// open fast (its first screen, a copy of the screen itself, which database,
// which account: never a token);
// removing the workspace leaves nothing of it in the browser, not its
// database nor those, and reopening does not make the database again.
import type { Page } from '@playwright/test'
import { expect, goTo, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

/** What the window keeps in localStorage, and the IndexedDB databases of its origin. */
const kept = (page: Page) =>
  page.evaluate(async () => ({
    keys: Object.keys(localStorage).filter((k) => k.startsWith('outpost:')),
    databases: (await indexedDB.databases()).map((d) => d.name ?? ''),
  }))

test('a reopened window shows the list it last showed; removing the workspace leaves nothing of it', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const newest = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]

  // The list's first screen and a copy of the screen are kept once it has been still a moment, under the database's name.
  const perDatabase = /^outpost:(first-screen|last-screen):/
  await expect.poll(async () => (await kept(page)).keys.filter((k) => perDatabase.test(k)).length, { timeout: 15_000 }).toBe(2)
  const { keys, databases } = await kept(page)
  const database = databases.find((d) => d.startsWith('outpost:'))!
  expect(keys.sort()).toEqual(
    [`outpost:first-screen:${database}`, `outpost:last-screen:${database}`, 'outpost:last-account', 'outpost:last-workspace-db'].sort(),
  )
  // No token among them (the account kept is an AccountInfo: names and ids).
  const values = await page.evaluate(() =>
    Object.entries(localStorage)
      .map(([, v]) => v)
      .join('\n'),
  )
  expect(values).not.toContain(service.tokens.admin)

  // Reopened: the newest epic is on screen.
  await page.reload()
  await expect(page.getByRole('option').filter({ hasText: newest.name }).first()).toBeVisible()
  await expect(page.getByRole('navigation', { name: 'Outpost' })).toBeVisible()

  // Removed from Settings: the database and everything the window kept of it go.
  await goTo(page, 'Settings')
  await page.getByRole('button', { name: 'Remove' }).click()
  await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click()
  await expect(page.getByRole('heading', { name: 'Sign in to Outpost' })).toBeVisible()
  await expect.poll(async () => kept(page)).toEqual({ keys: [], databases: [] })

  // Reopened again: still signed out, and the removed database was not opened (which would make it again, empty).
  await page.reload()
  await expect(page.getByRole('heading', { name: 'Sign in to Outpost' })).toBeVisible()
  expect(await kept(page)).toEqual({ keys: [], databases: [] })
})
