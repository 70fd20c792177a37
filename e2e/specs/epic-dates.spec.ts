// An epic's days (planned start, deadline) read in the user's locale, as every
// other date of the app, not the browser's mm/dd/yyyy; set by typing or the
// calendar, saved on Enter or leaving the field, put back with Escape, cleared
// with the ×. And the properties column stays in view while the epic scrolls.
import { epicRow, expect, signIn, test, v4All, waitForBootstrap, type LocalService } from '../fixtures/outpost.ts'
import type { Page } from '@playwright/test'

async function openNewest(page: Page, service: LocalService) {
  await signIn(page, service)
  await waitForBootstrap(page)
  const epic = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  await epicRow(page, epic.name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
  return epic as { id: number; name: string }
}

const serviceDeadline = async (service: LocalService, id: number) => ((await service.v3().get(`/epics/${id}`)).body as { deadline: string | null }).deadline

test.describe('in a British locale', () => {
  test.use({ locale: 'en-GB', timezoneId: 'Europe/London' })

  test('a deadline reads day month year, is typed and saved with Enter, put back with Escape and cleared with the ×', async ({ service, outpost }, info) => {
    const page = await outpost.open()
    const epic = await openNewest(page, service)
    const props = page.getByRole('complementary', { name: 'Epic properties' })
    await props.getByRole('button', { name: 'Deadline: Set a date' }).click()
    const input = props.getByLabel('Deadline', { exact: true })
    await expect(input).toBeFocused()
    await input.fill('2026-12-03')
    await input.press('Enter')
    await expect(props.getByRole('button', { name: 'Deadline: 3 Dec 2026' })).toBeVisible()
    await expect.poll(() => serviceDeadline(service, epic.id), { timeout: 15_000 }).toBe('2026-12-03T12:00:00Z')
    await page.screenshot({ path: info.outputPath('deadline-en-GB.png') })

    // Escape: back as it was, nothing sent, and still on the epic.
    await props.getByRole('button', { name: 'Deadline: 3 Dec 2026' }).click()
    await props.getByLabel('Deadline', { exact: true }).fill('2027-01-15')
    await props.getByLabel('Deadline', { exact: true }).press('Escape')
    await expect(props.getByRole('button', { name: 'Deadline: 3 Dec 2026' })).toBeVisible()
    await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)

    await props.getByRole('button', { name: 'Clear deadline' }).click()
    await expect(props.getByRole('button', { name: 'Deadline: Set a date' })).toBeVisible()
    await expect.poll(() => serviceDeadline(service, epic.id), { timeout: 15_000 }).toBeNull()
  })
})

test.describe('in an American locale', () => {
  test.use({ locale: 'en-US' })

  test('the same day reads month day, year', async ({ service, outpost }) => {
    const page = await outpost.open()
    const epic = await openNewest(page, service)
    const props = page.getByRole('complementary', { name: 'Epic properties' })
    await props.getByRole('button', { name: 'Planned start: Set a date' }).click()
    await props.getByLabel('Planned start', { exact: true }).fill('2026-12-03')
    // Leaving the field saves it too.
    await page.getByRole('textbox', { name: 'Epic name' }).focus()
    await expect(props.getByRole('button', { name: 'Planned start: Dec 3, 2026' })).toBeVisible()
    await expect
      .poll(async () => ((await service.v3().get(`/epics/${epic.id}`)).body as { planned_start_date: string | null }).planned_start_date, { timeout: 15_000 })
      .toBe('2026-12-03T12:00:00Z')
  })
})

test('the properties column stays in view while a long epic scrolls', async ({ service, outpost }, info) => {
  const newest = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  const long = Array.from({ length: 60 }, (_, i) => `Paragraph ${i + 1} of a long description.`).join('\n\n')
  expect((await service.v3().put(`/epics/${newest.id}`, { description: long })).status).toBe(200)
  const page = await outpost.open()
  await page.setViewportSize({ width: 1280, height: 700 })
  await openNewest(page, service)
  await expect(page.getByText('Paragraph 60 of a long description.')).toBeAttached()
  const scroller = page.locator('.detail .scroll')
  await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight))
  const props = page.getByRole('complementary', { name: 'Epic properties' })
  const state = props.getByText('State', { exact: true })
  const [stateBox, scrollBox] = [(await state.boundingBox())!, (await scroller.boundingBox())!]
  expect(stateBox.y, 'the first property still in view at the bottom of the epic').toBeGreaterThanOrEqual(scrollBox.y)
  expect(stateBox.y + stateBox.height).toBeLessThanOrEqual(scrollBox.y + scrollBox.height)
  await page.screenshot({ path: info.outputPath('properties-in-view.png') })
})
