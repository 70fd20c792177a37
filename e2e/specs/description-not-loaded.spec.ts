// An epic stored from the list of every epic (a first download cut short, the
// cache lost and downloaded again offline) has no description yet. The epic
// says so, offers no edit of it (it would replace text the user never saw),
// and shows it once the epic is opened online.
import { expectNoViolations } from '../fixtures/a11y.ts'
import { changeRow, epicRow, expect, expectOffline, expectOnline, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('an epic whose description is not downloaded says so, offers no edit of it, and shows it once online', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epic = (await v4All(service.v4(), '/epics'))
    .filter((e) => !e.archived && e.description.trim().length > 0)
    .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]

  await service.stop()
  await expectOffline(page)
  // The epic's row as the bootstrap's list stores it: every field but the description.
  await changeRow(page, 'epics', epic.id, { description: '', partial: true })
  await epicRow(page, epic.name).first().click()
  const description = page.getByRole('region', { name: 'Description' })
  await expect(description.getByText('The description is not downloaded yet. It comes once Outpost is online again.')).toBeVisible()
  // Nothing offers to write over it: neither an edit nor "add a description".
  await expect(description.getByRole('button')).toHaveCount(0)
  await expect(description.getByRole('textbox')).toHaveCount(0)
  await screens(page, info, 'description-not-loaded')
  await expectNoViolations(page, 'an epic whose description is not downloaded')

  // Online again: the epic's fresh copy brings the description, which can then be edited.
  await service.start()
  await expectOnline(page)
  await expect(description.getByText('The description is not downloaded yet.', { exact: false })).toBeHidden({ timeout: 30_000 })
  const firstLine = epic.description.split('\n').find((line: string) => /\w/.test(line))!.replace(/^[#\-*\s[\]x]+/, '')
  await expect(description.getByText(firstLine, { exact: false }).first()).toBeVisible()
  await expect(description.getByRole('button', { name: 'Edit' })).toBeVisible()
})
