// Metered mode: turned on from the command palette, Outpost sends the user's changes and fetches what they
// ask for (Sync now), and nothing on the schedule; the status bar says it is on, across a reload; turned off
// in Settings, the schedule goes again.
import type { IncomingMessage } from 'node:http'
import { epicRow, expect, goTo, pendingButton, screens, signIn, statusBar, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('metered mode sends my changes, fetches only what I ask for, and says so in the status bar', async ({ service, outpost }, info) => {
  test.setTimeout(120_000)
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
  const [elsewhere, mine] = epics

  await page.keyboard.press('Control+k')
  await page.keyboard.type('metered mode')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  await palette.getByRole('option').filter({ hasText: 'Turn metered mode on' }).click()
  const badge = statusBar(page).getByRole('link', { name: 'Metered' })
  await expect(badge).toBeVisible()

  // What the app asks of the service (its gateway says it is Outpost), by path.
  const asked: string[] = []
  service.running.app.server.on('request', (req: IncomingMessage) => {
    if (req.headers['user-agent']?.startsWith('Outpost')) asked.push(`${req.method} ${(req.url ?? '').split('?')[0]}`)
  })
  // The workspace's lists (what a sync reads), not what an opened epic brings with it.
  const lists = () =>
    asked.filter((r) => /^GET \/api\/(v3|v4\/[^/]+)\/(epics|documents|files|linked-files|members|groups|labels|categories|objectives|custom-fields)$/.test(r))

  // Another member renames an epic; the schedule asks for a sync: nothing is fetched.
  await service.v3(service.tokens.member).put(`/epics/${elsewhere.id}`, { name: `${elsewhere.name} (renamed elsewhere)` })
  outpost.host.side.schedule.now('focus')
  // My own change still goes at once.
  await epicRow(page, mine.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill(`${mine.name} (mine)`)
  await name.press('Enter')
  await expect.poll(async () => (await service.v4().get(`/epics/${mine.id}`)).body.name, { timeout: 20_000 }).toBe(`${mine.name} (mine)`)
  await expect(pendingButton(page)).toHaveText('All changes saved')
  // A sync would follow the replay at once: none came, and no list was read.
  await page.waitForTimeout(1_000)
  expect(lists()).toEqual([])
  await goTo(page, 'Epics')
  await expect(epicRow(page, elsewhere.name).first()).toBeVisible()
  await expect(epicRow(page, `${elsewhere.name} (renamed elsewhere)`)).toHaveCount(0)
  await screens(page, info, 'metered-status-bar')

  // Sync now fetches what changed.
  await page.keyboard.press('Control+k')
  await page.keyboard.type('Sync now')
  await palette.getByRole('option').filter({ hasText: 'Sync now' }).first().click()
  await expect(epicRow(page, `${elsewhere.name} (renamed elsewhere)`).first()).toBeVisible()

  // Kept across a reload; turned off in Settings, where it shows as ticked.
  await page.reload()
  await expect(statusBar(page).getByRole('link', { name: 'Metered' })).toBeVisible()
  await goTo(page, 'Settings')
  const setting = page.getByRole('checkbox', { name: 'Metered connection' })
  await expect(setting).toBeChecked()
  await screens(page, info, 'metered-settings')
  await setting.uncheck()
  await expect(statusBar(page).getByRole('link', { name: 'Metered' })).toHaveCount(0)
})
