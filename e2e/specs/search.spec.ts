// Searching as a person types, one letter at a time: the epics list narrows to
// what matches and opens the epic a row shows; the command palette finds a
// doc, marks the words typed and opens what is clicked. The list and the
// palette reuse their rows from one keystroke to the next: each row must still
// show, and open, its own result.
import type { Page } from '@playwright/test'
import { epicRow, expect, goTo, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

interface Epic {
  id: number
  name: string
  archived: boolean
}

/** Types into the focused field key by key, as the list and palette see a person type. */
async function typeSlowly(page: Page, text: string): Promise<void> {
  for (const key of text) await page.keyboard.type(key, { delay: 20 })
}

test('the epics list narrows as a name is typed and opens the epic a row shows', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  // Two epics whose names no other active epic's name holds: each is the first row once typed in full.
  const active = (await v4All<Epic>(service.v4(), '/epics')).filter((e) => !e.archived)
  const alone = active.filter((e) => active.filter((o) => o.name.toLowerCase().includes(e.name.toLowerCase())).length === 1)
  expect(alone.length).toBeGreaterThanOrEqual(2)
  const [first, second] = [alone[0], alone[alone.length - 1]]

  const search = page.getByRole('searchbox', { name: 'Search epics' })
  const list = page.getByRole('listbox', { name: /^Epics/ })
  for (const epic of [first, second]) {
    await goTo(page, 'Epics')
    await search.fill('')
    await expect(list).toHaveAccessibleName(`Epics, ${active.length} shown`)
    await search.click()
    await typeSlowly(page, epic.name)
    await expect(list.getByRole('option').first()).toContainText(epic.name)
    await expect(list).not.toHaveAccessibleName(`Epics, ${active.length} shown`)
    await list.getByRole('option').first().click()
    await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
  }

  // Back in the list the search is kept; a letter more than any name holds leaves nothing.
  await goTo(page, 'Epics')
  await expect(search).toHaveValue(second.name)
  await expect(epicRow(page, second.name).first()).toBeVisible()
  await search.click()
  await page.keyboard.press('End')
  await typeSlowly(page, ' qqqqqqq')
  await expect(page.getByText('No epics match')).toBeVisible()
})

test('the command palette marks what is typed and opens the result clicked', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const docs = await v4All<{ id: string; title: string }>(service.v4(), '/documents')
  const doc = docs.find((d) => d.title.split(' ').length >= 2)!
  const word = doc.title.split(' ')[0]

  await page.keyboard.press('Control+k')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  await expect(palette).toBeVisible()
  // The commands first; then, letter by letter, the doc among the results.
  await expect(palette.getByRole('option', { name: /Go to Docs/ })).toBeVisible()
  await typeSlowly(page, doc.title)
  const option = palette.getByRole('option').filter({ hasText: doc.title }).first()
  await expect(option).toBeVisible()
  await expect(
    option
      .locator('mark')
      .filter({ hasText: new RegExp(`^${word}$`, 'i') })
      .first(),
  ).toBeVisible()
  await option.click()
  await expect(page.getByRole('heading', { name: doc.title, level: 1 })).toBeVisible()
})

test('in the command palette a command typed by its exact name comes before content, and Enter runs it', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  // Content that "sync" and "now" also find: a doc about syncing.
  await service.v4().post('/documents', { title: 'Sync now and then: notes on syncing', content: 'When to sync now.', content_format: 'markdown' })
  await page.keyboard.press('Control+k')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  await expect(palette).toBeVisible()
  await typeSlowly(page, 'Sync now')
  await expect(palette.getByRole('option').first()).toContainText('Sync now')
  await expect(palette.getByRole('option').first()).not.toContainText('notes on syncing')
  await page.keyboard.press('Enter')
  await expect(
    page
      .getByRole('region', { name: 'Notifications' })
      .getByText(/Syncing…|Up to date/)
      .first(),
  ).toBeVisible()
})
