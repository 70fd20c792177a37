// A name over the service's limit: the app warns, queues it, the outbox does
// not send what the service would refuse (422) and the pending panel says why
// in the service's words, with the user's text kept editable; fixing it there
// lands it.
import { epicRow, expect, openPendingPanel, pendingButton, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test("a name past the service's limit fails with its words, and fixing it in the pending panel lands it", async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const epics = await v4All(service.v4(), '/epics')
  const target = epics.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  const tooLong = `A name that goes on ${'and on '.repeat(40)}`.slice(0, 257)
  expect(tooLong).toHaveLength(257)
  const fixed = 'A name the service takes'

  await epicRow(page, target.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toHaveValue(target.name)
  await name.fill(tooLong)
  // The app knows the limit and says so before sending.
  await expect(page.getByText('257 characters: the service takes names of up to 256')).toBeVisible()
  await name.press('Enter')

  // Refused before it is sent; the app says so, in the service's words.
  await expect(pendingButton(page)).toHaveText(/1 failed/)
  await expect(page.getByText('Change refused')).toBeVisible()
  const panel = await openPendingPanel(page)
  const failed = panel.getByRole('listitem').filter({ hasText: 'Failed' })
  await expect(failed).toHaveCount(1)
  await expect(failed.getByRole('group', { name: 'Why it failed' })).toContainText('Too long: name must be at most 256 characters.')
  // Nothing of it reached the service.
  expect((await service.v4().get(`/epics/${target.id}`)).body.name).toBe(target.name)
  await screens(page, info, 'pending-failed')

  // Fix: the text the user wrote is kept, editable, with the limit counted.
  await failed.getByRole('button', { name: 'Fix' }).click()
  const field = failed.getByRole('textbox', { name: 'Name' })
  await expect(field).toHaveValue(tooLong)
  await expect(failed.getByText('257 / 256 characters')).toBeVisible()
  await screens(page, info, 'pending-fix')
  await field.fill(fixed)
  await failed.getByRole('button', { name: 'Save and retry' }).click()

  await expect(panel.getByText('Everything is synced')).toBeVisible()
  await expect(pendingButton(page)).toHaveText('All changes saved')
  await expect(name).toHaveValue(fixed)

  const after = (await service.v4().get(`/epics/${target.id}`)).body
  expect(after.name).toBe(fixed)
  expect((await v4All(service.v4(), '/epics')).filter((e) => e.name === fixed)).toHaveLength(1)
})
