// Faults a long-lived offline app meets, each as a user meets it: the token
// revoked mid-session (sending pauses, nothing is dropped, it resumes once the
// user signs in again), two windows on one workspace (each sees the other's
// edits at once, one sends, nothing twice), and the computer's clock a day
// off (sync misses nothing and conflicts are still found: only the service's
// times decide).
import type { Page } from '@playwright/test'
import { Tokens } from '../../src-server/auth.ts'
import { epicRow, expect, openPendingPanel, pendingButton, signIn, test, waitForBootstrap, type LocalService } from '../fixtures/outpost.ts'

const newestEpics = async (service: LocalService) =>
  ((await service.v3().get('/epics')).body as { id: number; name: string; archived: boolean; updated_at: string }[])
    .filter((e) => !e.archived)
    .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

const nameOnService = async (service: LocalService, id: number) => ((await service.v3().get(`/epics/${id}`)).body as { name: string }).name

async function create(page: Page, name: string) {
  await page.getByRole('button', { name: 'New epic' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'New epic' })
  await dialog.getByLabel('Name').fill(name)
  await dialog.getByRole('button', { name: 'Create epic' }).click()
  await expect(dialog).toBeHidden()
  await page.keyboard.press('Escape')
}

async function rename(page: Page, from: string, to: string) {
  await epicRow(page, from).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toHaveValue(from)
  await name.fill(to)
  await name.press('Enter')
  await page.keyboard.press('Escape')
}

test('a token revoked mid-session: sending pauses on the 401, the change is kept, and goes once the user signs in again', async ({ service, outpost }) => {
  const tokens = new Tokens(service.running.ctx)
  const me = (await service.v3().get('/member')).body as { id: string }
  const first = tokens.create('v4_rw', me.id, 'laptop')
  const page = await outpost.open()
  await signIn(page, service, first.secret)
  await waitForBootstrap(page)
  const [epic] = await newestEpics(service)

  tokens.disable(first.id)
  await rename(page, epic.name, `${epic.name} (after revoke)`)
  const panel = await openPendingPanel(page)
  await expect(panel.getByRole('alert')).toContainText('Sending is paused: the token was refused', { timeout: 20_000 })
  await expect(pendingButton(page)).toContainText('1')
  expect(await nameOnService(service, epic.id)).toBe(epic.name)

  // Signing in again with a new token of the same workspace: the kept change goes, once.
  const second = tokens.create('v4_rw', me.id, 'laptop, again')
  await panel.getByRole('button', { name: 'Sign in again with a token…' }).click()
  await expect(page.getByRole('heading', { name: /^Sign in again to / })).toBeVisible()
  // The workspace's address is kept: only the token is asked for.
  await expect(page.getByLabel('Service address')).toHaveValue(service.baseUrl)
  await expect(page.getByLabel('API token')).toBeFocused()
  await page.getByLabel('API token').fill(second.secret)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => nameOnService(service, epic.id), { timeout: 30_000 }).toBe(`${epic.name} (after revoke)`)
  await expect(pendingButton(page)).not.toContainText(/\d/, { timeout: 15_000 })
})

test('two windows on one workspace: each sees the other’s edits at once, and every change reaches the service once', async ({ service, outpost }) => {
  const a = await outpost.open()
  await signIn(a, service)
  await waitForBootstrap(a)
  const b = await outpost.open()
  await expect(b.getByRole('navigation', { name: 'Outpost' })).toBeVisible()
  await waitForBootstrap(b)
  const [one, two] = await newestEpics(service)

  // Offline first, so neither window's change is sent before both are made and seen.
  await service.stop()
  await rename(a, one.name, `${one.name} (window A)`)
  await rename(b, two.name, `${two.name} (window B)`)
  await create(a, 'Made in window A')
  await create(b, 'Made in window B')
  for (const page of [a, b]) {
    for (const name of [`${one.name} (window A)`, `${two.name} (window B)`, 'Made in window A', 'Made in window B'])
      await expect(epicRow(page, name)).toHaveCount(1)
  }

  await service.start()
  outpost.networkChanged()
  await expect.poll(() => nameOnService(service, one.id), { timeout: 30_000 }).toBe(`${one.name} (window A)`)
  await expect.poll(() => nameOnService(service, two.id), { timeout: 30_000 }).toBe(`${two.name} (window B)`)
  await expect(pendingButton(a)).not.toContainText(/\d/, { timeout: 15_000 })
  await expect(pendingButton(b)).not.toContainText(/\d/, { timeout: 15_000 })
  // Each create reached the service once (a create sent twice would make two epics).
  await expect
    .poll(
      async () =>
        (await newestEpics(service))
          .filter((e) => e.name.startsWith('Made in window'))
          .map((e) => e.name)
          .sort(),
      { timeout: 30_000 },
    )
    .toEqual(['Made in window A', 'Made in window B'])
})

for (const [skew, label] of [
  [24 * 3600_000, 'a day ahead'],
  [-24 * 3600_000, 'a day behind'],
] as const) {
  test(`the computer’s clock ${label}: sync misses nothing and a conflict is still found`, async ({ service, outpost }) => {
    const page = await outpost.open()
    await page.addInitScript((ms) => {
      const RealDate = Date
      const now = () => RealDate.now() + ms
      class Skewed extends RealDate {
        constructor(...args: ConstructorParameters<DateConstructor> | []) {
          if (args.length === 0) super(now())
          else super(...(args as [string]))
        }
        static override now() {
          return now()
        }
      }
      globalThis.Date = Skewed as DateConstructor
    }, skew)
    await page.reload()
    expect(Math.abs((await page.evaluate(() => Date.now())) - Date.now() - skew)).toBeLessThan(60_000)
    await signIn(page, service)
    await waitForBootstrap(page)
    const [one, two] = await newestEpics(service)

    // Someone else's change after the bootstrap: the next sync brings it.
    await service.v3(service.tokens.member).put(`/epics/${one.id}`, { name: `${one.name} (elsewhere)` })
    outpost.host.side.schedule.now('focus')
    await expect(epicRow(page, `${one.name} (elsewhere)`)).toHaveCount(1, { timeout: 30_000 })

    // A change here to an epic someone else changed meanwhile: a conflict, not an overwrite.
    await service.stop()
    await rename(page, two.name, `${two.name} (here)`)
    await service.start()
    await service.v3(service.tokens.member).put(`/epics/${two.id}`, { name: `${two.name} (there)` })
    outpost.networkChanged()
    await expect(pendingButton(page)).toContainText(/conflict/i, { timeout: 30_000 })
    expect(await nameOnService(service, two.id)).toBe(`${two.name} (there)`)
  })
}
