// WCAG 2.2 AA, as axe-core checks it (WCAG 2.0/2.1/2.2 A and AA rules): no
// violation of any impact on any screen, state, dialog or menu, in the light
// and the dark theme, at 1280 x 800 and at 800 x 600. One test per screen, so
// a failure names it; each audits its states four times in the same window
// (scheme and size switched in place, fixtures/a11y.ts).
import type { Locator, Page } from '@playwright/test'
import { expectNoViolations } from '../fixtures/a11y.ts'
import {
  dropFiles,
  epicRow,
  expect,
  expectOffline,
  expectOnline,
  goTo,
  holdExportAt,
  openPendingPanel,
  pendingButton,
  renameEpic,
  signIn,
  spoil,
  statusBar,
  test,
  v4All,
  waitForBootstrap,
  type LocalService,
  type OutpostApp,
} from '../fixtures/outpost.ts'

/** A window signed in to the demo workspace, its first download done. */
async function signedIn(outpost: OutpostApp, service: LocalService): Promise<Page> {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  return page
}

/** The open epics, the most recently updated first (the list's order as it starts). */
async function newestEpics(service: LocalService): Promise<{ id: number; name: string }[]> {
  return (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
}

/** Opens the newest epic from the list. */
async function openNewestEpic(page: Page, service: LocalService): Promise<{ id: number; name: string }> {
  const [epic] = await newestEpics(service)
  await epicRow(page, epic.name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
  return epic
}

/** Audits what `open` brings up (shown while `shown` is visible), then closes it with Escape. */
async function auditOpened(page: Page, state: string, open: () => Promise<unknown>, shown: Locator): Promise<void> {
  await open()
  await expect(shown).toBeVisible()
  await expectNoViolations(page, state, () => expect(shown).toBeVisible())
  await page.keyboard.press('Escape')
  await expect(shown).toBeHidden()
}

test('sign-in and its errors', async ({ service, outpost }) => {
  const page = await outpost.open()
  await expect(page.getByRole('heading', { name: 'Sign in to Outpost' })).toBeVisible()
  await expectNoViolations(page, 'the sign-in screen')

  // Nothing filled in: the field says what is missing.
  await page.getByRole('button', { name: 'Sign in' }).click()
  const missing = page.getByRole('alert').first()
  await expect(missing).toBeVisible()
  await expectNoViolations(page, 'the sign-in screen with a field missing', () => expect(missing).toBeVisible())

  await page.getByLabel('Service address').fill(service.baseUrl)
  await page.getByLabel('API token').fill('not-a-token')
  await page.getByRole('button', { name: 'Sign in' }).click()
  const error = page.getByRole('alert').first()
  await expect(error).toBeVisible()
  await expectNoViolations(page, 'the sign-in screen with its error', () => expect(error).toBeVisible())
})

/** Audits the epic list's filter menus, each opened from the toolbar. */
async function auditFilters(page: Page, filters: string[]): Promise<void> {
  const toolbar = page.getByRole('toolbar', { name: 'Filter and sort epics' })
  for (const filter of filters) {
    await auditOpened(
      page,
      `the epic list's ${filter} filter`,
      () => toolbar.getByRole('button', { name: filter, exact: true }).click(),
      page.getByRole('listbox', { name: `Filter by ${filter.toLowerCase()}` }),
    )
  }
}

test('the epic list, its state and owner filters', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await expectNoViolations(page, 'the epic list')
  await auditFilters(page, ['State', 'Owner'])
})

test('the epic list’s team and objective filters', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await auditFilters(page, ['Team', 'Objective'])
})

test('the epic list with nothing found, and the new-epic dialog', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await page.getByRole('searchbox', { name: 'Search epics' }).fill('no epic is called this')
  await expect(page.getByText('No epics match')).toBeVisible()
  await expectNoViolations(page, 'the epic list with nothing found')
  await page.getByRole('button', { name: 'Clear search and filters' }).click()

  await page.getByRole('button', { name: 'New epic' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'New epic' })
  await expect(dialog).toBeVisible()
  await expectNoViolations(page, 'the new-epic dialog', () => expect(dialog).toBeVisible())
  await dialog.getByRole('button', { name: 'Owners' }).click()
  await expect(dialog.getByRole('listbox', { name: 'Owners' })).toBeVisible()
  await expectNoViolations(page, 'the new-epic dialog’s owner picker', () => expect(dialog.getByRole('listbox', { name: 'Owners' })).toBeVisible())
})

test('an epic, a notice, the delete question and the description editor', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await openNewestEpic(page, service)
  await expectNoViolations(page, 'an epic')

  await page.getByRole('button', { name: 'Archive' }).click()
  const notice = page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({ hasText: 'Epic archived' })
  await expect(notice).toBeVisible()
  // The focus in the notice keeps it while the audits change the window's size (a hover is lost when the notice moves).
  await notice.getByRole('button', { name: 'Dismiss' }).focus()
  await expectNoViolations(page, 'an archived epic with its notice', () => expect(notice).toBeVisible())
  await page.getByRole('button', { name: 'Unarchive' }).click()

  await page.getByRole('button', { name: 'Delete', exact: true }).first().click()
  const question = page.getByRole('dialog', { name: /^Delete/ })
  await expect(question).toBeVisible()
  await expectNoViolations(page, 'the question before deleting an epic', () => expect(question).toBeVisible())
  await question.getByRole('button', { name: 'Cancel' }).click()

  await page.getByRole('button', { name: 'Edit', exact: true }).first().click()
  const description = page.getByRole('textbox', { name: 'Description' })
  await expect(description).toBeVisible()
  await expectNoViolations(page, 'the description editor', () => expect(description).toBeVisible())
})

for (const pickers of [
  ['Epic state', 'Owners', 'Requester'],
  ['Followers', 'Teams', 'Objectives'],
]) {
  test(`an epic’s pickers: ${pickers.join(', ').toLowerCase()}`, async ({ service, outpost }) => {
    test.setTimeout(120_000)
    const page = await signedIn(outpost, service)
    await openNewestEpic(page, service)
    const properties = page.getByRole('complementary', { name: 'Epic properties' })
    for (const picker of pickers) {
      await auditOpened(
        page,
        `the epic's ${picker} picker`,
        () => properties.getByRole('button', { name: picker }).click(),
        page.getByRole('listbox', { name: picker }),
      )
    }
  })
}

test('an epic’s label picker, date field and doc picker', async ({ service, outpost }) => {
  test.setTimeout(120_000)
  const page = await signedIn(outpost, service)
  await openNewestEpic(page, service)
  const properties = page.getByRole('complementary', { name: 'Epic properties' })
  // Labels: one to create, then a name too long to create (its reason shown).
  await properties.getByRole('button', { name: 'Labels' }).click()
  const filter = page.getByRole('combobox', { name: 'Filter Labels' })
  await filter.fill('Quarterly planning')
  await expect(page.getByRole('option', { name: 'Create label “Quarterly planning”' })).toBeVisible()
  await expectNoViolations(page, 'the label picker offering to create a label', () => expect(filter).toBeVisible())
  await filter.fill('x'.repeat(129))
  await expect(page.getByText('Label names can have at most 128 characters; this one has 129.')).toBeVisible()
  await expectNoViolations(page, 'the label picker refusing a name', () => expect(filter).toBeVisible())
  await page.keyboard.press('Escape')

  await properties.getByRole('button', { name: 'Deadline: Set a date' }).click()
  const day = properties.getByLabel('Deadline')
  await expect(day).toBeFocused()
  await expectNoViolations(page, 'the deadline being set', () => expect(day).toBeVisible())
  await page.keyboard.press('Escape')

  await auditOpened(
    page,
    'the epic’s doc picker',
    () => page.getByRole('button', { name: 'Link doc' }).click(),
    page.getByRole('listbox', { name: 'Link a doc' }),
  )
})

test('an epic’s health form, comments and reply', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await openNewestEpic(page, service)
  await page.getByRole('button', { name: 'Update health' }).click()
  const status = page.getByRole('radiogroup', { name: 'Health status' })
  await expect(status).toBeVisible()
  await expectNoViolations(page, 'the health form', () => expect(status).toBeVisible())
  await page.getByRole('button', { name: 'Discard' }).click()

  const reply = page
    .getByRole('article', { name: /^Comment by/ })
    .first()
    .getByRole('button', { name: 'Reply' })
  await reply.click()
  const field = page.getByRole('textbox', { name: /^Reply/ })
  await expect(field).toBeVisible()
  await expectNoViolations(page, 'a reply being written', () => expect(field).toBeVisible())
})

test('docs: the list, the reader, the linked-epic picker, the editor and a new doc', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await goTo(page, 'Docs')
  const list = page.getByRole('listbox', { name: /^Docs/ })
  await list.getByRole('option').first().click()
  const reader = page.getByRole('article')
  await expect(reader).toBeVisible()
  await expectNoViolations(page, 'a doc', () => expect(reader).toBeVisible())

  await auditOpened(
    page,
    'a doc’s linked-epic picker',
    () => page.getByRole('button', { name: /^Link (to an )?epic$/ }).click(),
    page.getByRole('listbox', { name: 'Link to an epic' }),
  )

  await page.getByRole('button', { name: 'Delete doc' }).click()
  const question = page.getByRole('dialog', { name: /^Delete/ })
  await expect(question).toBeVisible()
  await expectNoViolations(page, 'the question before deleting a doc', () => expect(question).toBeVisible())
  await question.getByRole('button', { name: 'Cancel' }).click()

  await page.getByRole('button', { name: 'Edit', exact: true }).click()
  const editor = page.getByRole('form', { name: 'Edit doc' })
  await expect(editor).toBeVisible()
  await expectNoViolations(page, 'the doc editor', () => expect(editor).toBeVisible())
  await editor.getByRole('button', { name: 'Cancel' }).click()

  await page.getByRole('button', { name: 'New doc', exact: true }).click()
  const draft = page.getByRole('form', { name: 'New doc' })
  await expect(draft).toBeVisible()
  await expectNoViolations(page, 'a new doc', () => expect(draft).toBeVisible())
})

test('files: the grid, the list, a file’s details and adding a link', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await goTo(page, 'Files')
  await expect(page.getByRole('heading', { name: 'Files', level: 1 })).toBeVisible()
  const layout = page.getByRole('radiogroup', { name: 'Layout' })
  await layout.getByRole('radio', { name: 'Grid' }).click()
  await expectNoViolations(page, 'files as a grid')
  await layout.getByRole('radio', { name: 'List' }).click()
  await expectNoViolations(page, 'files as a list')

  await page
    .getByRole('listbox', { name: /^Files/ })
    .getByRole('option')
    .first()
    .click()
  const detail = page.getByRole('complementary', { name: /^(File|Linked file): / })
  await expect(detail).toBeVisible()
  await expectNoViolations(page, 'a file’s details', () => expect(detail).toBeVisible())

  await page.getByRole('button', { name: 'Add link' }).first().click()
  const dialog = page.getByRole('dialog', { name: /link/i })
  await expect(dialog).toBeVisible()
  await expectNoViolations(page, 'the add-link dialog', () => expect(dialog).toBeVisible())
})

test.describe('with a service that takes files of 4 KB at most', () => {
  test.use({ serviceOptions: { seed: 'demo', maxFileBytes: 4096 } })

  test('dropping files: the drop zone and the upload tray with a refused file', async ({ service, outpost }) => {
    const page = await signedIn(outpost, service)
    await goTo(page, 'Files')

    // Files held over the window: the browser sends 'dragover' every few hundred milliseconds while they are.
    await page.evaluate(() => {
      const files = new DataTransfer()
      files.items.add(new File(['notes'], 'notes.txt', { type: 'text/plain' }))
      const main = document.querySelector('main')!
      main.dispatchEvent(new DragEvent('dragenter', { dataTransfer: files, bubbles: true }))
      ;(window as unknown as { __held: number }).__held = window.setInterval(
        () => main.dispatchEvent(new DragEvent('dragover', { dataTransfer: files, bubbles: true })),
        200,
      )
    })
    const zone = page.getByRole('region', { name: 'Drop files to upload' })
    await expect(zone).toBeVisible()
    await expectNoViolations(page, 'files held over the window', () => expect(zone).toBeVisible())
    await page.evaluate(() => {
      clearInterval((window as unknown as { __held: number }).__held)
      document.querySelector('main')!.dispatchEvent(new DragEvent('dragleave', { bubbles: true }))
    })
    await expect(zone).toBeHidden()

    await dropFiles(page, [
      { name: 'too-big.pdf', type: 'application/pdf', text: 'x'.repeat(8192) },
      { name: 'fits.txt', type: 'text/plain', text: 'small enough' },
    ])
    const tray = page.getByRole('region', { name: 'Uploads' })
    await expect(tray.getByText('Failed', { exact: true })).toBeVisible({ timeout: 30_000 })
    await expect(tray.getByRole('button', { name: '1 file not uploaded' })).toBeVisible()
    await expectNoViolations(page, 'the upload tray with a refused file', () => expect(tray).toBeVisible())
  })
})

for (const screen of ['Objectives', 'Categories', 'Teams'] as const) {
  test(`browse: ${screen.toLowerCase()}`, async ({ service, outpost }) => {
    const page = await signedIn(outpost, service)
    await goTo(page, screen)
    await expect(page.getByRole('complementary', { name: 'Browse' })).toBeVisible()
    await expectNoViolations(page, screen)
  })
}

test('settings and the workspace menu', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  await goTo(page, 'Settings')
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible()
  await expectNoViolations(page, 'settings')

  const menu = page.getByRole('menu', { name: 'Workspaces' })
  await auditOpened(
    page,
    'the workspace menu',
    () =>
      page
        .getByRole('navigation', { name: 'Outpost' })
        .getByRole('button', { name: /Ada Admin/ })
        .click(),
    menu,
  )

  await page.getByRole('button', { name: 'Sign out' }).click()
  const question = page.getByRole('alertdialog')
  await expect(question).toBeVisible()
  await expectNoViolations(page, 'the question before signing out', () => expect(question).toBeVisible())
  await question.getByRole('button', { name: 'Cancel' }).click()

  await page.getByRole('button', { name: 'Add a workspace' }).click()
  await expect(page.getByRole('heading', { name: /workspace/i }).first()).toBeVisible()
  await expectNoViolations(page, 'adding a workspace')
})

test('the command palette and the shortcuts', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  const palette = page.getByRole('dialog', { name: 'Command palette' })
  await page.keyboard.press('Control+k')
  await expect(palette).toBeVisible()
  await expectNoViolations(page, 'the command palette', () => expect(palette).toBeVisible())
  await page.keyboard.type('plan')
  await expect(palette.getByRole('option').first()).toBeVisible()
  await expectNoViolations(page, 'the command palette with results', () => expect(palette).toBeVisible())
  await page.keyboard.press('Escape')
  await page.keyboard.press('?')
  await expect(palette.getByRole('option').filter({ hasText: 'Next row of a list' }).first()).toBeVisible()
  await expectNoViolations(page, 'the keyboard shortcuts', () => expect(palette).toBeVisible())
})

test('notifications: the empty list and one of someone else’s changes', async ({ service, outpost }) => {
  // The user follows the newest epic before signing in: the first download brings it and notifies nothing.
  const me = (await service.v3().get('/member')).body as { id: string }
  const [epic] = await newestEpics(service)
  const followers = ((await service.v3().get(`/epics/${epic.id}`)).body as { follower_ids: string[] }).follower_ids
  await service.v3().put(`/epics/${epic.id}`, { follower_ids: [...new Set([...followers, me.id])] })
  const page = await signedIn(outpost, service)
  const open = page.getByRole('button', { name: 'Notifications' })
  const panel = page.getByRole('dialog', { name: 'Notifications' })
  await auditOpened(page, 'the empty notifications', () => open.click(), panel)

  // Someone else renames it: listed.
  await service.v3(service.tokens.member).put(`/epics/${epic.id}`, { name: `${epic.name} (renamed)` })
  outpost.host.side.schedule.now('focus')
  await expect(open).toContainText('1', { timeout: 20_000 })
  await auditOpened(page, 'a notification', () => open.click(), panel)
})

test('offline, the pending panel with waiting, refused and conflicting changes, and the conflict dialog', async ({ service, outpost }) => {
  test.setTimeout(150_000)
  const page = await signedIn(outpost, service)
  const [a, b] = await newestEpics(service)

  // A name the service refuses (longer than it takes).
  await epicRow(page, b.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill('x'.repeat(257))
  await name.press('Enter')
  await expect(pendingButton(page)).toHaveText(/1 failed/)
  await page.getByRole('button', { name: 'Epics', exact: true }).click()
  // The list shows the refused name (kept, not lost) before a row is clicked: its rows have moved by then.
  await expect(epicRow(page, 'x'.repeat(257))).toBeVisible()

  // Offline: a rename waits; someone else renames the same epic on the service meanwhile.
  await service.stop()
  await renameEpic(page, a.name, `${a.name} (mine)`)
  await expectOffline(page)
  const panel = await openPendingPanel(page)
  await expectNoViolations(page, 'offline, with a change waiting and one refused in the pending panel', () => expectOffline(page))
  await service.whileAway(async ({ v4 }) => expect((await v4.patch(`/epics/${a.id}`, { name: `${a.name} (theirs)` })).status).toBe(200))

  // Back: a conflict.
  await service.start()
  outpost.networkChanged()
  await expectOnline(page)
  await expect(pendingButton(page)).toHaveText(/1 conflict/)
  await expectNoViolations(page, 'the pending panel with a refused change and a conflict', () => expect(panel).toBeVisible())

  const failed = panel.getByRole('listitem').filter({ hasText: 'Failed' })
  await failed.getByRole('button', { name: 'Fix' }).click()
  await expect(failed.getByRole('textbox', { name: 'Name' })).toBeVisible()
  await expectNoViolations(page, 'a refused change being fixed', () => expect(failed.getByRole('textbox', { name: 'Name' })).toBeVisible())
  await failed.getByRole('button', { name: 'Cancel' }).click()
  await failed.getByRole('button', { name: 'Discard' }).click()
  const discard = failed.getByRole('alertdialog', { name: 'Discard this change?' })
  await expect(discard).toBeVisible()
  await expectNoViolations(page, 'the question before discarding a change', () => expect(discard).toBeVisible())
  await discard.getByRole('button', { name: 'Keep' }).click()

  await panel.getByRole('button', { name: 'Resolve…' }).click()
  const dialog = page.getByRole('dialog', { name: /^Resolve a conflict on/ })
  await expect(dialog.getByRole('row').filter({ hasText: 'Name' })).toBeVisible()
  await expectNoViolations(page, 'the conflict dialog', () => expect(dialog).toBeVisible())
})

test('data problems: the status bar’s note, the list and the question before removing', async ({ service, outpost }) => {
  let page = await signedIn(outpost, service)
  await spoil(page, 'epics', [{ id: 990_001, name: 42, archived: 'no' }])
  await outpost.close(page)
  page = await outpost.open()
  await waitForBootstrap(page)
  const problems = statusBar(page).getByRole('button', { name: /could not be read/ })
  await expect(problems).toBeVisible()
  await problems.click()
  const dialog = page.getByRole('dialog', { name: '1 record could not be read' })
  await expect(dialog).toBeVisible()
  await expectNoViolations(page, 'the data problems', () => expect(dialog).toBeVisible())
  await dialog.getByRole('button', { name: 'Remove these records' }).click()
  const question = page.getByRole('alertdialog', { name: /^Remove 1 unreadable record/ })
  await expect(question).toBeVisible()
  await expectNoViolations(page, 'the question before removing unreadable records', () => expect(question).toBeVisible())
})

test('the export tray, under way and done', async ({ service, outpost }) => {
  const page = await signedIn(outpost, service)
  const hold = holdExportAt(outpost.host.side.table, 10)
  await page.keyboard.press('Control+k')
  await page.keyboard.type('Export workspace')
  await page.keyboard.press('Enter')
  const tray = page.getByRole('region', { name: 'Export' })
  await expect(tray.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('aria-valuenow', /\d+/)
  await expectNoViolations(page, 'an export under way', () => expect(tray).toBeVisible())
  hold.release()
  await expect(tray.getByText(/exported$/)).toBeVisible({ timeout: 30_000 })
  await expectNoViolations(page, 'an export done', () => expect(tray).toBeVisible())
  hold.restore()
})
