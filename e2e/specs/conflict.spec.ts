// 5. The same field changed on the service and offline: back online, the
// conflict is shown (pending panel, then side by side) and resolved: "mine"
// sends mine over theirs, "theirs" keeps the service's; the service is checked.
import {
  epicRow,
  expect,
  expectOnline,
  openPendingPanel,
  pendingButton,
  renameEpic,
  screens,
  signIn,
  test,
  v4All,
  waitForBootstrap,
  type OutpostApp,
} from '../fixtures/outpost.ts'
import type { Page } from '@playwright/test'

async function backOnline(page: Page, outpost: OutpostApp, start: () => Promise<void>): Promise<void> {
  await start()
  outpost.networkChanged()
  await expectOnline(page)
}

test('a field changed both here (offline) and on the service is resolved with mine or theirs', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const newest = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
  const [a, b] = newest
  const mineA = `${a.name} (mine)`
  const theirsA = `${a.name} (theirs)`
  const mineB = `${b.name} (mine)`
  const theirsB = `${b.name} (theirs)`

  await service.stop()
  await renameEpic(page, a.name, mineA)
  await renameEpic(page, b.name, mineB)

  // Meanwhile someone renames both on the service.
  await service.whileAway(async ({ v4 }) => {
    expect((await v4.patch(`/epics/${a.id}`, { name: theirsA })).status).toBe(200)
    expect((await v4.patch(`/epics/${b.id}`, { name: theirsB })).status).toBe(200)
  })

  await backOnline(page, outpost, () => service.start())
  await expect(pendingButton(page)).toHaveText(/2 conflicts/)
  const panel = await openPendingPanel(page)
  const conflicts = panel.getByRole('listitem').filter({ has: page.getByRole('group', { name: 'Conflict' }) })
  await expect(conflicts).toHaveCount(2)
  await expect(conflicts.first()).toContainText('Changed on the service too: Name.')
  await screens(page, info, 'pending-conflicts')

  // A: keep mine.
  await conflicts.filter({ hasText: mineA }).getByRole('button', { name: 'Resolve…' }).click()
  let dialog = page.getByRole('dialog', { name: /^Resolve a conflict on/ })
  await expect(dialog).toBeVisible()
  const row = dialog.getByRole('row').filter({ hasText: 'Name' })
  await expect(row.getByRole('cell').nth(0)).toContainText(a.name)
  await expect(row.getByRole('cell').nth(1)).toContainText(mineA)
  await expect(row.getByRole('cell').nth(2)).toContainText(theirsA)
  await screens(page, info, 'conflict-dialog')
  await dialog.getByRole('radio', { name: 'Keep mine for Name' }).check()
  await dialog.getByRole('button', { name: 'Apply' }).click()
  await expect(dialog).toBeHidden()

  // B: take theirs.
  await conflicts
    .filter({ hasText: /\(mine\)|\(theirs\)/ })
    .first()
    .getByRole('button', { name: 'Resolve…' })
    .click()
  dialog = page.getByRole('dialog', { name: /^Resolve a conflict on/ })
  await expect(dialog.getByRole('row').filter({ hasText: 'Name' }).getByRole('cell').nth(1)).toContainText(mineB)
  await dialog.getByRole('radio', { name: 'Take theirs for Name' }).check()
  await dialog.getByRole('button', { name: 'Apply' }).click()
  await expect(dialog).toBeHidden()

  await expect(panel.getByText('Everything is synced')).toBeVisible()
  await expect(pendingButton(page)).toHaveText('All changes saved')
  await expect(epicRow(page, mineA)).toBeVisible()
  await expect(epicRow(page, theirsB)).toBeVisible()
  await expect(epicRow(page, mineB)).toHaveCount(0)

  const api = service.v4()
  expect((await api.get(`/epics/${a.id}`)).body.name).toBe(mineA)
  expect((await api.get(`/epics/${b.id}`)).body.name).toBe(theirsB)
})
