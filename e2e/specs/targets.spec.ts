// Targets a pointer can hit (WCAG 2.5.8, Target Size Minimum): every button,
// link, field, option and tab on every screen, dialog, picker and panel is at
// least 24 x 24 CSS px, or one of the criterion's exceptions (a link inline in
// a sentence; a small target with room round it). At 1280 x 800 and 800 x 600
// (where the sidebar is a rail). The measure is fixtures/a11y.ts, smallTargets.
import type { Page } from '@playwright/test'
import { smallTargets } from '../fixtures/a11y.ts'
import { epicRow, expect, goTo, openPendingPanel, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
]

for (const size of SIZES) {
  test(`every target is at least 24 x 24 px or has room round it, ${size.width}x${size.height}`, async ({ service, outpost }) => {
    test.setTimeout(120_000)
    const page = await outpost.open()
    await page.setViewportSize(size)
    const found: string[] = []
    const measure = async (where: string) => {
      for (const line of await smallTargets(page)) found.push(`${where}: ${line}`)
    }
    await expect(page.getByRole('heading', { name: 'Sign in to Outpost' })).toBeVisible()
    await measure('sign-in')
    await signIn(page, service)
    await waitForBootstrap(page)
    const [epic] = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

    for (const screen of ['Epics', 'Docs', 'Files', 'Objectives', 'Categories', 'Teams', 'Settings'] as const) {
      await goTo(page, screen)
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
      await measure(screen)
    }
    await goTo(page, 'Epics')
    await page.getByRole('button', { name: 'State', exact: true }).click()
    await expect(page.getByRole('listbox', { name: 'Filter by state' })).toBeVisible()
    await measure('the state filter')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'New epic' }).first().click()
    await expect(page.getByRole('dialog', { name: 'New epic' })).toBeVisible()
    await measure('the new-epic dialog')
    await page.keyboard.press('Escape')

    await epicRow(page, epic.name).first().click()
    await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
    await measure('an epic')
    await page.getByRole('complementary', { name: 'Epic properties' }).getByRole('button', { name: 'Labels' }).click()
    await expect(page.getByRole('listbox', { name: 'Labels' })).toBeVisible()
    await measure('the label picker')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Update health' }).click()
    await expect(page.getByRole('radiogroup', { name: 'Health status' })).toBeVisible()
    await measure('the health form')
    await page.getByRole('button', { name: 'Discard' }).click()
    await page.getByRole('textbox', { name: 'New comment' }).scrollIntoViewIfNeeded()
    await measure('an epic’s comments')

    await page.keyboard.press('Control+k')
    await page.keyboard.type('plan')
    await expect(page.getByRole('dialog', { name: 'Command palette' }).getByRole('option').first()).toBeVisible()
    await measure('the command palette')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Notifications' }).click()
    await expect(page.getByRole('dialog', { name: 'Notifications' })).toBeVisible()
    await measure('the notifications')
    await page.keyboard.press('Escape')
    await openPendingPanel(page)
    await measure('the pending panel')
    await page.getByRole('button', { name: 'Close pending changes' }).click()

    await goTo(page, 'Docs')
    await page.getByRole('listbox', { name: /^Docs/ }).getByRole('option').first().click()
    await expect(page.getByRole('article')).toBeVisible()
    await measure('a doc')
    await page.getByRole('button', { name: 'Edit', exact: true }).click()
    await expect(page.getByRole('form', { name: 'Edit doc' })).toBeVisible()
    await measure('the doc editor')
    expect(found).toEqual([])

    await expectMeasureSees(page)
  })
}

/** The measure is not blind: two 16 px buttons side by side are found. */
async function expectMeasureSees(page: Page): Promise<void> {
  await page.evaluate(() => {
    const box = document.createElement('div')
    box.id = 'small-targets'
    box.style.cssText = 'position: fixed; top: 300px; left: 300px; z-index: 1000; display: flex; background: white'
    box.innerHTML = '<button style="all: unset; width: 16px; height: 16px">a</button><button style="all: unset; width: 16px; height: 16px">b</button>'
    document.body.append(box)
  })
  expect((await smallTargets(page)).filter((line) => /^button "[ab]" 16x16/.test(line))).toHaveLength(2)
  await page.evaluate(() => document.getElementById('small-targets')!.remove())
}
