// The service gone for longer than any short outage: the app keeps probing at
// a short fixed interval, so it sees the service back within seconds (with a
// backoff it would wait most of a minute), and "Send now" can be pressed all
// along and tries at once.
import { epicRow, expect, expectOffline, expectOnline, openPendingPanel, pendingButton, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

/** Longer than a doubling backoff's first steps (1 + 2 + 4 + 8 + 16 s): after it, such a probe would be ~30 s away. */
const OUTAGE_MS = 35_000

test('after a long outage the app is online within seconds of the service, and Send now is always there', async ({ service, outpost }) => {
  test.setTimeout(120_000)
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = await v4All(service.v4(), '/epics')
  const target = epics.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]

  await service.stop()
  await epicRow(page, target.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill(`${target.name} (renamed during the outage)`)
  await name.press('Enter')
  await expectOffline(page)

  // While the app probes, Send now can be pressed: it says it is trying, and the change stays queued.
  const panel = await openPendingPanel(page)
  const sendNow = panel.getByRole('button', { name: 'Send now' })
  await expect(sendNow).toBeEnabled()
  await sendNow.click()
  await expect(page.getByRole('region', { name: 'Notifications' }).getByText('Sending your changes, then syncing…')).toBeVisible()
  await expect(pendingButton(page)).toHaveText(/1 pending/)

  await page.waitForTimeout(OUTAGE_MS)
  await service.start()
  const back = Date.now()
  await expectOnline(page)
  const seenBackMs = Date.now() - back
  // A probe every 1.5 s: seen back within a few seconds (a backoff would still be waiting here).
  expect(seenBackMs).toBeLessThan(10_000)
  await expect(pendingButton(page)).toHaveText('All changes saved')
  expect((await service.v4().get(`/epics/${target.id}`)).body.name).toBe(`${target.name} (renamed during the outage)`)
})

test('a service that dies between syncs is shown offline within seconds, with nothing asked of it', async ({ service, outpost }) => {
  test.setTimeout(60_000)
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await expectOnline(page)

  await service.stop()
  const died = Date.now()
  // No click, no edit, no sync due: the quiet probe finds it (it said "Online · Synced just now" until the next sync).
  await expectOffline(page)
  expect(Date.now() - died).toBeLessThan(5_000)

  await service.start()
  await expectOnline(page)
})
