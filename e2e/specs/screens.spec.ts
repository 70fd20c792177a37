// The main screens, light and dark, at 1280 x 800 and 800 x 600, saved as
// artifacts to look at (test-results/e2e/screens/): the epic list, an epic,
// files, a doc, the browse screens, settings and the command palette, on a
// freshly downloaded workspace; and a small
// window (800 x 600) with the pending-changes panel open, where the screens
// must still be readable rather than squeezed.
import type { Locator } from '@playwright/test'
import { epicRow, expect, goTo, openPendingPanel, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const found = await locator.boundingBox()
  if (!found) throw new Error(`${String(locator)} is not on screen`)
  return found
}

for (const size of [
  { width: 1280, height: 800, tag: '' },
  { width: 800, height: 600, tag: '800x600-' },
]) {
  test(`the main screens render at ${size.width} x ${size.height}, in light and dark`, async ({ service, outpost }, info) => {
    const page = await outpost.open()
    await page.setViewportSize({ width: size.width, height: size.height })
    await signIn(page, service)
    await waitForBootstrap(page)

    const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
    const docs = (await v4All(service.v4(), '/documents')).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

    await screens(page, info, `${size.tag}epics`)
    await epicRow(page, epics[0].name).first().click()
    await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epics[0].name)
    await expect(page.getByRole('complementary', { name: 'Epic properties' })).toBeVisible()
    await screens(page, info, `${size.tag}epic-detail`)

    await goTo(page, 'Files')
    await expect(page.getByRole('heading', { name: 'Files', level: 1 })).toBeVisible()
    await screens(page, info, `${size.tag}files`)

    await goTo(page, 'Docs')
    await page.getByRole('option').filter({ hasText: docs[0].title }).first().click()
    await expect(page.getByRole('heading', { name: docs[0].title, level: 1 })).toBeVisible()
    await screens(page, info, `${size.tag}doc-reader`)

    for (const [link, shot] of [
      ['Objectives', 'browse-objectives'],
      ['Categories', 'browse-categories'],
      ['Teams', 'browse-teams'],
    ] as const) {
      await goTo(page, link)
      await expect(page.getByRole('complementary', { name: 'Browse' })).toBeVisible()
      await expect(page.getByRole('navigation', { name: 'What to browse' }).getByRole('link', { name: link })).toHaveAttribute('aria-current', /page|true/)
      await screens(page, info, `${size.tag}${shot}`)
    }

    await goTo(page, 'Settings')
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible()
    await screens(page, info, `${size.tag}settings`)

    await goTo(page, 'Epics')
    await page.keyboard.press('Control+k')
    const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
    await expect(palette).toBeVisible()
    await page.keyboard.type(epics[1].name.split(' ')[0])
    await expect(palette.getByRole('option').first()).toBeVisible()
    await screens(page, info, `${size.tag}command-palette`)
  })
}

test('a small window with the pending panel open keeps every screen readable, in light and dark', async ({ service, outpost }, info) => {
  const doc = await service.v4().post('/documents', {
    title: 'Links to follow',
    content: 'Open [the runbook](javascript:alert(document.domain)) or [the status page](https://status.example.com).',
    content_format: 'markdown',
  })
  expect(doc.status).toBe(201)
  const page = await outpost.open()
  await page.setViewportSize({ width: 800, height: 600 })
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

  const panel = await openPendingPanel(page)
  const panelBox = await box(panel)

  // The list: each epic's name keeps room to be read, beside the panel rather than under it.
  const row = epicRow(page, epics[0].name).first()
  await expect(row).toBeVisible()
  const name = row.getByText(epics[0].name, { exact: true })
  const nameBox = await box(name)
  expect(nameBox.width, 'the epic name has room to be read').toBeGreaterThanOrEqual(150)
  expect(nameBox.x + nameBox.width, 'the name is not under the panel').toBeLessThanOrEqual(panelBox.x)
  await expect(page.getByRole('heading', { name: 'Epics', level: 1 })).toBeVisible()
  await screens(page, info, 'narrow-epics-with-panel')

  // An epic: one column, its properties under the name, not squeezed beside it.
  await row.click()
  const nameField = page.getByRole('textbox', { name: 'Epic name' })
  await expect(nameField).toHaveValue(epics[0].name)
  const properties = page.getByRole('complementary', { name: 'Epic properties' })
  await expect(properties).toBeVisible()
  const [field, props] = [await box(nameField), await box(properties)]
  expect(props.y, 'the properties come after the name').toBeGreaterThanOrEqual(field.y + field.height)
  expect(props.width, 'the properties take the column').toBeGreaterThanOrEqual(field.width * 0.9)
  expect(field.width, 'the name field has room').toBeGreaterThanOrEqual(300)
  await expect(panel).toBeVisible()
  await screens(page, info, 'narrow-epic-detail-with-panel')

  // A notice never covers the panel.
  await page.getByRole('button', { name: 'Archive' }).click()
  const notice = page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({ hasText: 'Epic archived' })
  await expect(notice).toBeVisible()
  const noticeBox = await box(notice)
  expect(noticeBox.x + noticeBox.width, 'the notice sits beside the panel').toBeLessThanOrEqual(panelBox.x)
  await page.getByRole('button', { name: 'Unarchive' }).click()
  await expect(page.getByRole('button', { name: 'Archive', exact: true })).toBeVisible()

  // A doc: alone beside the panel (the list comes back with "Docs"); a link the sanitizer refused reads as plain text.
  await goTo(page, 'Docs')
  await page.getByRole('option').filter({ hasText: 'Links to follow' }).click()
  await expect(page.getByRole('heading', { name: 'Links to follow', level: 1 })).toBeVisible()
  const content = page.locator('.reader .content')
  await expect(content.getByRole('link', { name: 'the status page' })).toHaveAttribute('href', /^https:\/\/status\.example\.com/)
  await expect(content.getByRole('link', { name: 'the runbook' })).toHaveCount(0)
  const removed = content.getByText('the runbook', { exact: true })
  await expect(removed).toHaveAttribute('title', /Link removed/)
  await expect(removed).toHaveCSS('text-decoration-line', 'none')
  await expect(removed).not.toHaveCSS('cursor', 'pointer')
  await screens(page, info, 'narrow-doc-with-panel')
  await page.getByRole('button', { name: 'Docs', exact: true }).click()
  await expect(page.getByRole('listbox', { name: /^Docs/ })).toBeVisible()
})
