// 7. A read-only token: the app reads everything, and says writes are not
// allowed instead of queueing them (no edit controls, no queued change, a
// clear word when a file is dropped); the service is unchanged.
import {
  dropFiles,
  epicRow,
  expect,
  goTo,
  openPendingPanel,
  pendingButton,
  screens,
  signIn,
  statusBar,
  test,
  v4All,
  waitForBootstrap,
} from '../fixtures/outpost.ts'

test('with a read-only token the app says writes are not allowed and queues nothing', async ({ service, outpost }, info) => {
  const before = await v4All(service.v4(), '/epics')
  const filesBefore = (await service.v3().get('/files')).body as unknown[]
  const target = before.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]

  const page = await outpost.open()
  await signIn(page, service, service.tokens.readonly)
  await waitForBootstrap(page)
  await expect(statusBar(page).getByText('Read-only')).toBeVisible()

  // Reading works.
  await expect(epicRow(page, target.name).first()).toBeVisible()
  await expect(page.getByRole('button', { name: 'New epic' }).first()).toBeDisabled()

  // The epic opens read-only: the name cannot be edited, no write actions, and the app says why.
  await epicRow(page, target.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toHaveValue(target.name)
  await expect(name).not.toBeEditable()
  await expect(page.getByText('Read-only token: you can look, not change.')).toBeVisible()
  await expect(page.getByText('This token is read-only: comments can be read but not written.')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Archive' })).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Delete' })).toHaveCount(0)
  await expect(page.getByRole('textbox', { name: 'New comment' })).toHaveCount(0)
  await screens(page, info, 'epic-detail-read-only')

  // Typing and shortcuts do nothing: the name stays, no "new epic" form opens.
  await name.press('End')
  await page.keyboard.type(' changed?')
  await name.press('Enter')
  await expect(name).toHaveValue(target.name)
  await name.blur()
  await page.keyboard.press('c')
  await expect(page.getByText('This workspace was added with a read-only API token: you can read everything, but not change it.')).toBeVisible()
  await expect(page.getByRole('dialog', { name: 'New epic' })).toHaveCount(0)

  // The palette offers no writes.
  await page.keyboard.press('Control+k')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  await expect(palette).toBeVisible()
  await page.keyboard.type('>')
  await expect(palette.getByRole('option', { name: /Sync now/ })).toBeVisible()
  await page.keyboard.type('new')
  await expect(palette.getByRole('option', { name: /New epic|New doc/ })).toHaveCount(0)
  await page.keyboard.press('Escape')

  // Docs and files: no way to write, and a dropped file is refused with a word, not queued.
  await goTo(page, 'Docs')
  await expect(page.getByRole('button', { name: 'New doc', exact: true })).toBeDisabled()
  await goTo(page, 'Files')
  await expect(page.getByRole('button', { name: 'Upload' })).toBeDisabled()
  await dropFiles(page, [{ name: 'not-allowed.txt', type: 'text/plain', text: 'nope' }], false)
  await expect(page.getByText('This workspace’s token is read-only: files cannot be uploaded.')).toBeVisible()
  await expect(page.getByRole('option').filter({ hasText: 'not-allowed.txt' })).toHaveCount(0)

  // Nothing queued, nothing sent.
  await expect(pendingButton(page)).toHaveText('All changes saved')
  const panel = await openPendingPanel(page)
  await expect(panel.getByText('Everything is synced')).toBeVisible()
  await screens(page, info, 'files-read-only')

  const after = await v4All(service.v4(), '/epics')
  expect(after.find((e) => e.id === target.id)?.name).toBe(target.name)
  expect(after.length).toBe(before.length)
  expect((await service.v3().get('/files')).body).toHaveLength(filesBefore.length)
})
