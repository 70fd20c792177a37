// The keyboard's focus, as a sighted keyboard user follows it: tabbing
// through each main screen, every stop shows a ring (WCAG 2.4.7) and is not
// hidden under anything (2.4.11: the status bar, a sticky header, the pending
// panel); the pending panel, where it slides over the screen, takes the focus
// and puts the rest out of reach; a dialog, picker or palette gives the focus
// back to what opened it when it closes. Rings are measured as pixels that
// change when the focus comes and goes (fixtures/a11y.ts, tabTour).
import type { Locator, Page } from '@playwright/test'
import { showLook, tabTour, type FocusStop, type Look } from '../fixtures/a11y.ts'
import {
  epicRow,
  expect,
  goTo,
  openPendingPanel,
  pendingButton,
  pendingPanel,
  signIn,
  test,
  v4All,
  waitForBootstrap,
  type LocalService,
} from '../fixtures/outpost.ts'

/**
 * What is wrong with the stops of a tour: a ring thinner than a 1 px line along two sides of what is shown
 * of the stop, or its middle under something else. An empty list when all is well.
 */
function faults(stops: FocusStop[], page: Page, where: string): string[] {
  const viewport = page.viewportSize()!
  const found: string[] = []
  for (const stop of stops) {
    const width = Math.min(viewport.width, stop.box.x + stop.box.width) - Math.max(0, stop.box.x)
    const height = Math.min(viewport.height, stop.box.y + stop.box.height) - Math.max(0, stop.box.y)
    if (width <= 0 || height <= 0) found.push(`${where}: ${stop.what} is outside the window`)
    else if (stop.ring < width + height)
      found.push(`${where}: ${stop.what} shows no ring (${stop.ring} pixels change, at least ${Math.round(width + height)} wanted)`)
    if (stop.coveredBy || stop.onTop === 0) found.push(`${where}: ${stop.what} is under ${stop.coveredBy ?? 'something'} (${stop.onTop} of 5 points on top)`)
  }
  return found
}

async function tourOf(page: Page, where: string, minimum: number): Promise<{ stops: FocusStop[]; found: string[] }> {
  const stops = await tabTour(page)
  expect(stops.length, `${where}: the tour reaches the screen's controls`).toBeGreaterThanOrEqual(minimum)
  return { stops, found: faults(stops, page, where) }
}

async function signedIn(page: Page, service: LocalService): Promise<void> {
  await signIn(page, service)
  await waitForBootstrap(page)
}

async function newestEpics(service: LocalService): Promise<{ id: number; name: string }[]> {
  return (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
}

const LOOKS: Look[] = [
  { scheme: 'light', width: 1280, height: 800 },
  { scheme: 'dark', width: 800, height: 600 },
]

for (const look of LOOKS) {
  const at = `${look.scheme} ${look.width}x${look.height}`
  test(`tabbing through every main screen, ${at}: each stop shows its ring and is not covered`, async ({ service, outpost }) => {
    test.setTimeout(150_000)
    const page = await outpost.open()
    await signedIn(page, service)
    await showLook(page, look)
    const found: string[] = []
    for (const screen of ['Epics', 'Docs', 'Files', 'Objectives', 'Settings'] as const) {
      await goTo(page, screen)
      found.push(...(await tourOf(page, screen, 10)).found)
    }
    expect(found).toEqual([])
  })

  test(`tabbing through an epic and a doc, ${at}: each stop shows its ring and is not covered`, async ({ service, outpost }) => {
    test.setTimeout(150_000)
    const page = await outpost.open()
    await signedIn(page, service)
    const [epic] = await newestEpics(service)
    await showLook(page, look)
    const found: string[] = []
    await goTo(page, 'Epics')
    await epicRow(page, epic.name).first().click()
    await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
    found.push(...(await tourOf(page, 'an epic', 20)).found)

    await goTo(page, 'Docs')
    await page.getByRole('listbox', { name: /^Docs/ }).getByRole('option').first().click()
    await expect(page.getByRole('article')).toBeVisible()
    found.push(...(await tourOf(page, 'a doc', 10)).found)
    expect(found).toEqual([])
  })
}

test('the pending panel: nothing toured is under it at 800 x 600; below 720 px it holds the focus, the rest is out of reach, and the focus goes back', async ({
  service,
  outpost,
}) => {
  test.setTimeout(150_000)
  const page = await outpost.open()
  await signedIn(page, service)
  const [epic] = await newestEpics(service)
  // A change the service refuses (a name longer than it takes): the panel has something to show and act on.
  await epicRow(page, epic.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill('x'.repeat(257))
  await name.press('Enter')
  await expect(pendingButton(page)).toHaveText(/1 failed/)

  // Beside the screen: the epic, the panel and the status bar, every stop on top.
  await showLook(page, { scheme: 'light', width: 800, height: 600 })
  const panel = await openPendingPanel(page)
  await expect(panel.getByRole('button', { name: 'Fix' })).toBeVisible()
  await page.getByRole('article').first().focus()
  const beside = await tourOf(page, 'the panel beside an epic', 20)
  expect(beside.stops.filter((s) => s.region === 'panel').length, 'the tour goes through the panel').toBeGreaterThanOrEqual(3)
  expect(beside.found).toEqual([])
  await page.getByRole('button', { name: 'Close pending changes' }).click()
  await expect(pendingPanel(page)).toHaveCount(0)

  // Over the screen: opened from the keyboard, it takes the focus; tabbing stays in it and the status bar.
  await showLook(page, { scheme: 'dark', width: 700, height: 600 })
  const opener = pendingButton(page)
  await opener.focus()
  await page.keyboard.press('Enter')
  await expect(pendingPanel(page)).toBeVisible()
  await expect(pendingPanel(page).locator(':focus')).toHaveCount(1)
  const over = await tourOf(page, 'the panel over an epic', 4)
  expect(over.found).toEqual([])
  expect(new Set(over.stops.map((s) => s.region)), 'nothing under the panel takes the focus').toEqual(new Set(['panel', 'status']))
  await page.keyboard.press('Escape')
  await expect(pendingPanel(page)).toHaveCount(0)
  await expect(opener).toBeFocused()
  // Closed with its own button, too.
  await page.keyboard.press('Enter')
  await expect(pendingPanel(page).locator(':focus')).toHaveCount(1)
  await page.getByRole('button', { name: 'Close pending changes' }).press('Enter')
  await expect(pendingPanel(page)).toHaveCount(0)
  await expect(opener).toBeFocused()
})

/** Opens with the keyboard from `opener`, checks `shown`, closes with Escape: the focus is back on the opener. */
async function focusComesBack(page: Page, opener: Locator, open: string, shown: Locator): Promise<void> {
  await opener.focus()
  await page.keyboard.press(open)
  await expect(shown).toBeVisible()
  await expect(opener).not.toBeFocused()
  await page.keyboard.press('Escape')
  await expect(shown).toBeHidden()
  await expect(opener, `${String(opener)} has the focus back`).toBeFocused()
}

test('a dialog, a picker, the palette and the notifications give the focus back to what opened them', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signedIn(page, service)
  const [epic] = await newestEpics(service)
  const newEpic = page.getByRole('button', { name: 'New epic' }).first()
  await focusComesBack(page, newEpic, 'Enter', page.getByRole('dialog', { name: 'New epic' }))
  await focusComesBack(page, newEpic, 'Control+k', page.getByRole('dialog', { name: 'Command palette' }))
  await focusComesBack(page, page.getByRole('button', { name: 'State', exact: true }), 'Enter', page.getByRole('listbox', { name: 'Filter by state' }))
  await focusComesBack(page, page.getByRole('button', { name: 'Notifications' }), 'Enter', page.getByRole('dialog', { name: 'Notifications' }))

  await epicRow(page, epic.name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
  const properties = page.getByRole('complementary', { name: 'Epic properties' })
  await focusComesBack(page, properties.getByRole('button', { name: 'Owners' }), 'Enter', page.getByRole('listbox', { name: 'Owners' }))
  const del = page.getByRole('button', { name: 'Delete', exact: true }).first()
  await focusComesBack(page, del, 'Enter', page.getByRole('dialog', { name: /^Delete/ }))
  // Cancel, rather than Escape, gives it back too.
  await del.press('Enter')
  await page
    .getByRole('dialog', { name: /^Delete/ })
    .getByRole('button', { name: 'Cancel' })
    .press('Enter')
  await expect(del).toBeFocused()
})
