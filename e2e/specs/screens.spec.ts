// The main screens, light and dark, saved as artifacts to look at
// (test-results/e2e/screens/): an epic, a doc, the browse screens, settings
// and the command palette, on a freshly downloaded workspace.
import { epicRow, expect, goTo, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('the main screens render, in light and dark', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
  const docs = await v4All(service.v4(), '/documents')

  await epicRow(page, epics[0].name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epics[0].name)
  await expect(page.getByRole('complementary', { name: 'Epic properties' })).toBeVisible()
  await screens(page, info, 'epic-detail')

  await goTo(page, 'Docs')
  await page.getByRole('option').filter({ hasText: docs[0].title }).first().click()
  await expect(page.getByRole('heading', { name: docs[0].title, level: 1 })).toBeVisible()
  await screens(page, info, 'doc-reader')

  for (const [link, shot] of [
    ['Objectives', 'browse-objectives'],
    ['Categories', 'browse-categories'],
    ['Teams', 'browse-teams'],
  ] as const) {
    await goTo(page, link)
    await expect(page.getByRole('complementary', { name: 'Browse' })).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'What to browse' }).getByRole('link', { name: link })).toHaveAttribute('aria-current', /page|true/)
    await screens(page, info, shot)
  }

  await goTo(page, 'Settings')
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible()
  await screens(page, info, 'settings')

  await goTo(page, 'Epics')
  await page.keyboard.press('Control+k')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  await expect(palette).toBeVisible()
  await page.keyboard.type(epics[1].name.split(' ')[0])
  await expect(palette.getByRole('option').first()).toBeVisible()
  await screens(page, info, 'command-palette')
})
