// A dropped file the service refuses (over its size limit: 413): the upload
// tray shows it as failed with the service's own words, which a screen reader
// hears too (a live status, and the row's progress bar described by the
// message); the user retries it (sent again, refused again), dismisses one
// (it stays in Pending changes) and discards the other from the tray. The
// file that fits lands; the service never gets the refused ones.
import { dropFiles, expect, goTo, openPendingPanel, pendingButton, screens, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

const LIMIT = 4096
test.use({ serviceOptions: { seed: 'demo', maxFileBytes: LIMIT } })

const refusedMessage = (name: string) => `file0 ("${name}") is larger than the ${LIMIT} bytes this service accepts per file.`

/** Records, in the page, every text the notifications region holds as it changes (window.__notices). */
function recordNotices(): void {
  const texts: string[] = []
  ;(window as unknown as { __notices: string[] }).__notices = texts
  const take = () => {
    const text = document.querySelector('[role="region"][aria-label="Notifications"]')?.textContent?.trim()
    if (text && texts.at(-1) !== text) texts.push(text)
  }
  new MutationObserver(take).observe(document.body, { childList: true, subtree: true, characterData: true })
  take()
}

test('a file over the service’s size limit fails in the upload tray with its message, and can be retried, dismissed and discarded', async ({
  service,
  outpost,
}, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Files')

  const tooBig = 'board-deck-final.pdf'
  const alsoTooBig = 'recording-notes.txt'
  const fits = 'fits.txt'
  // The notice that says the files are uploading lives until the first failure, which can come before a
  // look at the page would see it: every text the notifications held is recorded as it changes.
  await page.evaluate(recordNotices)
  await dropFiles(page, [
    { name: tooBig, type: 'application/pdf', text: 'x'.repeat(LIMIT * 2) },
    { name: alsoTooBig, type: 'text/plain', text: 'y'.repeat(LIMIT + 1) },
    { name: fits, type: 'text/plain', text: 'small enough' },
  ])
  const notifications = page.getByRole('region', { name: 'Notifications' })
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { __notices: string[] }).__notices))
    .toContainEqual(expect.stringContaining('Uploading 3 files'))

  // The tray: both refused files failed, each with the service's message in full; the one that fits is uploaded.
  const tray = page.getByRole('region', { name: 'Uploads' })
  const row = (name: string) => tray.getByRole('listitem').filter({ hasText: name })
  await expect(tray.getByRole('button', { name: '2 files not uploaded' })).toBeVisible()
  // The notice that said the three were uploading goes with the first failure (not its own 4.5 s later): the tray says what happened.
  await expect(notifications.getByText('Uploading 3 files')).toHaveCount(0, { timeout: 1_000 })
  for (const name of [tooBig, alsoTooBig]) {
    await expect(row(name).getByText('Failed', { exact: true })).toBeVisible()
    await expect(row(name).getByText(refusedMessage(name), { exact: true })).toBeVisible()
    // A screen reader hears it: the row's bar names the state and is described by the message, and a live status says it.
    await expect(row(name).getByRole('progressbar', { name: `${name}: Failed` })).toHaveAccessibleDescription(refusedMessage(name))
    await expect(page.getByRole('status').filter({ hasText: `“${name}” was not uploaded: ${refusedMessage(name)}` })).toHaveCount(1)
  }
  await expect(tray.getByRole('progressbar', { name: `${fits}: Uploaded` })).toBeVisible()
  await expect(pendingButton(page)).toHaveText(/2 failed/)
  // The Files screen marks them too.
  await expect(page.getByRole('option').filter({ hasText: tooBig })).toContainText('Failed')
  await screens(page, info, 'upload-refused')

  // Retry: sent again. With the service away it waits as queued; back, it is refused again with the same words.
  await service.stop()
  await row(tooBig)
    .getByRole('button', { name: `Retry “${tooBig}”` })
    .click()
  await expect(row(tooBig).getByText('Queued', { exact: true })).toBeVisible()
  await service.start()
  outpost.networkChanged()
  await expect(row(tooBig).getByText(refusedMessage(tooBig), { exact: true })).toBeVisible({ timeout: 30_000 })
  await expect(row(tooBig).getByText('Failed', { exact: true })).toBeVisible()

  // Dismiss: gone from the tray, still in Pending changes with the service's message.
  await row(alsoTooBig)
    .getByRole('button', { name: `Dismiss “${alsoTooBig}”` })
    .click()
  await expect(row(alsoTooBig)).toHaveCount(0)
  await expect(tray.getByRole('button', { name: '1 file not uploaded' })).toBeVisible()
  const panel = await openPendingPanel(page)
  const pending = panel.getByRole('listitem').filter({ hasText: alsoTooBig })
  await expect(pending.getByRole('group', { name: 'Why it failed' })).toContainText(refusedMessage(alsoTooBig))
  await pending.getByRole('button', { name: 'Discard' }).click()
  await pending.getByRole('alertdialog', { name: 'Discard this change?' }).getByRole('button', { name: 'Discard' }).click()
  await expect(pending).toHaveCount(0)
  await page.keyboard.press('Escape')

  // Discard from the tray: asked first, then the upload goes, from the tray, the Files screen and the outbox.
  await row(tooBig)
    .getByRole('button', { name: `Discard “${tooBig}”` })
    .click()
  await expect(row(tooBig).getByText('Discard this upload?')).toBeVisible()
  await row(tooBig).getByRole('button', { name: 'Discard', exact: true }).click()
  await expect(row(tooBig).getByText('Failed', { exact: true })).toHaveCount(0)
  await expect(page.getByRole('option').filter({ hasText: tooBig })).toHaveCount(0)
  await expect(page.getByRole('option').filter({ hasText: alsoTooBig })).toHaveCount(0)
  await expect(pendingButton(page)).toHaveText('All changes saved')

  // The service has the file that fits, once, and neither refused one.
  const names = ((await service.v3().get('/files')).body as { name: string }[]).map((f) => f.name)
  expect(names.filter((n) => n === fits)).toHaveLength(1)
  expect(names).not.toContain(tooBig)
  expect(names).not.toContain(alsoTooBig)
})
