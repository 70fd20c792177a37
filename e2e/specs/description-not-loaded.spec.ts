// An epic stored from the list of every epic (a first download cut short, the
// cache lost and downloaded again offline) has no description yet, and a doc
// stored from the list of every doc has only its title. Each says so, offers
// no edit of what it lacks (it would replace text the user never saw), and
// shows it once opened online.
import { expectNoViolations } from '../fixtures/a11y.ts'
import { changeRow, epicRow, expect, expectOffline, expectOnline, goTo, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

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
  // E (edit the description, as the palette asks it) says why.
  await page.keyboard.press('e')
  await expect(
    page.getByRole('region', { name: 'Notifications' }).getByText("This epic's description is not downloaded yet, so it cannot be edited", { exact: false }),
  ).toBeVisible()
  await expect(description.getByRole('textbox')).toHaveCount(0)
  await screens(page, info, 'description-not-loaded')
  await expectNoViolations(page, 'an epic whose description is not downloaded')

  // Online again: the epic's fresh copy brings the description, which can then be edited.
  await service.start()
  await expectOnline(page)
  await expect(description.getByText('The description is not downloaded yet.', { exact: false })).toBeHidden({ timeout: 30_000 })
  const firstLine = epic.description
    .split('\n')
    .find((line: string) => /\w/.test(line))!
    .replace(/^[#\-*\s[\]x]+/, '')
  await expect(description.getByText(firstLine, { exact: false }).first()).toBeVisible()
  await expect(description.getByRole('button', { name: 'Edit' })).toBeVisible()
})

test('a doc whose text is not downloaded is listed by its title, says so, offers no edit, and shows its text once online', async ({
  service,
  outpost,
}, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const doc = (await v4All(service.v4(), '/documents')).find((d) => !d.archived && /\w{4}/.test(d.content_markdown ?? ''))!

  await service.stop()
  await expectOffline(page)
  // The doc's row as the bootstrap's list of every doc stores it: its id and title.
  await changeRow(page, 'docs', doc.id, {
    content_markdown: '',
    content_html: '',
    archived: false,
    creator_id: null,
    created_at: '',
    updated_at: '',
    partial: true,
  })
  await goTo(page, 'Docs')
  const row = page.getByRole('option').filter({ hasText: doc.title })
  await expect(row.getByText('Its text is not downloaded yet')).toBeVisible()
  await row.click()
  const reader = page.getByRole('article')
  await expect(reader.getByRole('heading', { name: doc.title, level: 1 })).toBeVisible()
  await expect(reader.getByText('This doc’s text is not downloaded yet. It comes once Outpost is online again.')).toBeVisible()
  // Nothing offers to write over it; E says why.
  await expect(reader.getByRole('button', { name: 'Edit' })).toHaveCount(0)
  await page.keyboard.press('e')
  await expect(
    page.getByRole('region', { name: 'Notifications' }).getByText("This doc's text is not downloaded yet, so it cannot be edited", { exact: false }),
  ).toBeVisible()
  await expect(reader.getByRole('textbox')).toHaveCount(0)
  await screens(page, info, 'doc-not-loaded')
  await expectNoViolations(page, 'a doc whose text is not downloaded')

  // Online again: the doc's fresh copy brings its text, which can then be edited.
  await service.start()
  await expectOnline(page)
  await expect(reader.getByText('This doc’s text is not downloaded yet.', { exact: false })).toBeHidden({ timeout: 30_000 })
  await expect(reader.getByRole('button', { name: 'Edit' })).toBeVisible()
})
