// Windows narrower than 720 px (700 x 600, 600 x 700, 480 x 800): the sidebar
// is a rail and the pending-changes panel slides over the screen. On every
// main screen nothing runs off the side (the page and every scrolling pane
// fit their width) and the controls a person needs are on screen, inside the
// window and not covered; the panel closes from a click beside it; a failed
// upload's buttons can be reached. On a touch screen, buttons grow to finger
// size and comment actions show without hover. Screenshots in light and dark
// land in test-results/e2e/screens/small-<size>-<screen>-{light,dark}.png.
import type { Page } from '@playwright/test'
import { expectReachable, sidewaysOverflow } from '../fixtures/a11y.ts'
import { dropFiles, expect, goTo, openPendingPanel, pendingButton, pendingPanel, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

async function expectFits(page: Page, what: string): Promise<void> {
  expect(await sidewaysOverflow(page), `${what}: nothing runs off the side`).toEqual([])
}

const SIZES = [
  { width: 700, height: 600 },
  { width: 600, height: 700 },
  { width: 480, height: 800 },
]

const LIMIT = 4096
test.use({ serviceOptions: { seed: 'demo', maxFileBytes: LIMIT } })

for (const size of SIZES) {
  const tag = `${size.width}x${size.height}`

  test(`a ${tag} window: every screen fits, its controls are reachable, the pending panel slides over and closes beside it`, async ({
    service,
    outpost,
  }, info) => {
    test.setTimeout(150_000)
    const page = await outpost.open()
    await page.setViewportSize(size)
    await signIn(page, service)
    await waitForBootstrap(page)
    const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
    const docs = await v4All(service.v4(), '/documents')
    const nav = page.getByRole('navigation', { name: 'Outpost' })
    const content = page.getByRole('main', { name: 'Content' })
    const always = async () => {
      for (const link of ['Epics', 'Docs', 'Files']) await expectReachable(nav.getByRole('link', { name: link, exact: true }))
      await expectReachable(pendingButton(page))
    }

    // Epics: the list, its search and "New epic"; each name keeps room to be read.
    await expect(page.getByRole('heading', { name: 'Epics', level: 1 })).toBeVisible()
    await expectReachable(content.getByRole('searchbox', { name: 'Search epics' }))
    await expectReachable(content.getByRole('button', { name: 'New epic' }))
    const name = page
      .getByRole('listbox', { name: /^Epics/ })
      .getByRole('option')
      .filter({ hasText: epics[0].name })
      .first()
      .getByText(epics[0].name, { exact: true })
    expect((await name.boundingBox())?.width ?? 0, 'the epic name has room').toBeGreaterThanOrEqual(150)
    await always()
    await expectFits(page, 'epics')
    await screens(page, info, `small-${tag}-epics`)

    // An epic: its bar (back, archive, delete), its name, and Health further down.
    await name.click()
    await expect(content.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epics[0].name)
    await expectReachable(content.getByRole('button', { name: 'Epics', exact: true }))
    await expectReachable(content.getByRole('button', { name: 'Archive' }))
    // The bar's Delete comes first (comments of mine have one too).
    await expectReachable(content.getByRole('button', { name: 'Delete', exact: true }).first())
    await expectReachable(content.getByRole('textbox', { name: 'Epic name' }))
    await expectFits(page, 'epic')
    await screens(page, info, `small-${tag}-epic`)
    await expectReachable(content.getByRole('button', { name: 'Update health' }))
    await expectReachable(content.getByRole('textbox', { name: 'New comment' }))
    await expectFits(page, 'epic, scrolled to its comments')
    await screens(page, info, `small-${tag}-epic-comments`)

    // Docs: the list, then a doc alone with its way back and Edit.
    await goTo(page, 'Docs')
    await expectReachable(content.getByRole('searchbox', { name: 'Search docs' }))
    await expectReachable(content.getByRole('button', { name: 'New doc', exact: true }))
    await expectFits(page, 'docs')
    await screens(page, info, `small-${tag}-docs`)
    // The list's first doc (the list is virtual: a doc further down is not in the page yet).
    const first = content.getByRole('listbox', { name: /^Docs/ }).getByRole('option').first()
    const text = (await first.textContent()) ?? ''
    const title = docs.map((d) => d.title as string).find((t) => t.length > 0 && text.startsWith(t))
    expect(title, 'the first doc of the list is one the service has').toBeDefined()
    await first.click()
    await expect(content.getByRole('heading', { name: title as string, level: 1 })).toBeVisible()
    await expectReachable(content.getByRole('button', { name: 'Docs', exact: true }))
    await expectReachable(content.getByRole('button', { name: 'Edit' }))
    await expectReachable(content.getByRole('button', { name: 'Delete doc' }))
    await always()
    await expectFits(page, 'doc')
    await screens(page, info, `small-${tag}-doc`)

    // Files, as a grid and as a list.
    await goTo(page, 'Files')
    const layout = page.getByRole('radiogroup', { name: 'Layout' })
    await layout.getByRole('radio', { name: 'Grid' }).click()
    for (const control of [
      content.getByRole('searchbox', { name: 'Search files' }),
      content.getByRole('button', { name: 'Upload' }),
      content.getByRole('button', { name: 'Add link' }),
      layout.getByRole('radio', { name: 'List' }),
    ]) {
      await expectReachable(control)
    }
    await expectFits(page, 'files (grid)')
    await screens(page, info, `small-${tag}-files-grid`)
    await layout.getByRole('radio', { name: 'List' }).click()
    await expect(page.getByRole('listbox', { name: /^Files/ })).toBeVisible()
    await expectReachable(layout.getByRole('radio', { name: 'Grid' }))
    await always()
    await expectFits(page, 'files (list)')
    await screens(page, info, `small-${tag}-files-list`)

    // The pending panel slides over the screen, inside the window; a click beside it closes it.
    await goTo(page, 'Epics')
    const panel = await openPendingPanel(page)
    await expectReachable(panel.getByRole('button', { name: 'Close pending changes' }))
    const panelBox = await panel.boundingBox()
    expect(panelBox && panelBox.x >= 0 && panelBox.x + panelBox.width <= size.width + 0.5, 'the panel is inside the window').toBe(true)
    await expectFits(page, 'pending panel')
    await screens(page, info, `small-${tag}-pending`)
    await page.mouse.click((panelBox?.x ?? 0) - 20, size.height / 2)
    await expect(pendingPanel(page)).toHaveCount(0)
    await expect(page.getByRole('heading', { name: 'Epics', level: 1 })).toBeVisible()

    // The command palette: inside the window, its field and results reachable.
    await page.keyboard.press('Control+k')
    const palette = page.getByRole('dialog', { name: 'Command palette' })
    await expect(palette).toBeVisible()
    await page.keyboard.type(epics[1].name.split(' ')[0])
    await expect(palette.getByRole('option').first()).toBeVisible()
    await expectReachable(palette.getByRole('combobox'))
    await expectReachable(palette.getByRole('option').first())
    await expectFits(page, 'command palette')
    await screens(page, info, `small-${tag}-palette`)
    await page.keyboard.press('Escape')
    await expect(palette).toHaveCount(0)

    // A refused upload: its message and its buttons are reachable in the tray.
    const big = 'too-big-for-the-service.pdf'
    await dropFiles(page, [{ name: big, type: 'application/pdf', text: 'x'.repeat(LIMIT + 1) }])
    const row = page.getByRole('region', { name: 'Uploads' }).getByRole('listitem').filter({ hasText: big })
    await expect(row.getByText(`file0 ("${big}") is larger than the ${LIMIT} bytes this service accepts per file.`, { exact: true })).toBeVisible({
      timeout: 30_000,
    })
    for (const action of ['Retry', 'Discard', 'Dismiss']) await expectReachable(row.getByRole('button', { name: `${action} “${big}”` }))
    await always()
    await expectFits(page, 'upload tray')
    await screens(page, info, `small-${tag}-upload-failed`)
  })
}

test.describe('on a touch screen', () => {
  test.use({ hasTouch: true })

  test('a 480 x 800 touch window: buttons are finger-sized and comment actions show without hover', async ({ service, outpost }, info) => {
    const page = await outpost.open()
    await page.setViewportSize({ width: 480, height: 800 })
    await signIn(page, service)
    await waitForBootstrap(page)
    const epic = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived && e.comments.entities.length > 0)[0]
    await page.evaluate((id) => (window.location.hash = `#/epics/${id}`), epic.id)
    const content = page.getByRole('main', { name: 'Content' })
    await expect(content.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)

    for (const button of [
      content.getByRole('button', { name: 'Epics', exact: true }),
      content.getByRole('button', { name: 'Archive' }),
      content.getByRole('button', { name: 'Delete', exact: true }).first(),
      content.getByRole('button', { name: 'Update health' }),
    ]) {
      await expectReachable(button)
      const box = await button.boundingBox()
      expect(box?.height ?? 0, `${String(button)} is tall enough for a finger`).toBeGreaterThanOrEqual(32)
      expect(box?.width ?? 0, `${String(button)} is wide enough for a finger`).toBeGreaterThanOrEqual(32)
    }
    // Comments are written by others once the epic is opened online: Reply shows on each without hovering.
    const reply = page
      .getByRole('article', { name: /^Comment by/ })
      .first()
      .getByRole('button', { name: 'Reply' })
    await expectReachable(reply)
    await expect(reply).toHaveCSS('opacity', '1')
    await expectFits(page, 'epic on a touch screen')
    await screens(page, info, 'small-480x800-touch-epic')
  })
})
