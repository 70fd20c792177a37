// An epic's health before the epic was ever opened online: the bootstrap's
// epic pages carry health slims (status and times, no author, no note), so the
// Health section says when it was updated and that who did it comes later,
// never "?" or an empty "by"; opened online, the author's name and the note
// show, as the service has them.
import { expect, statusBar, test, waitForBootstrap, signIn, v4All } from '../fixtures/outpost.ts'

test('health shows when it was updated without a name until the epic is opened online, then who set it', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  // An epic with a health update that has a note and an author (what its details bring).
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived && e.healths.entities.length > 0)
  const members = new Map(((await service.v3().get('/members')).body as { id: string; profile: { name: string } }[]).map((m) => [m.id, m.profile.name]))
  let target: { id: number; name: string } | undefined
  let current: { author_id: string; text: string; status: string } | undefined
  for (const e of epics) {
    const h = (await service.v3().get(`/epics/${e.id}/health`)).body
    if (h.author_id && members.has(h.author_id) && h.text) {
      target = e
      current = h
      break
    }
  }
  if (!target || !current) throw new Error('the demo workspace has no epic with a health note')
  const author = members.get(current.author_id) as string

  // Offline: the epic opens from the cache, its details cannot come.
  await service.stop()
  await page.evaluate((id) => (window.location.hash = `#/epics/${id}`), target.id)
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(target.name)
  const health = page.getByRole('region', { name: 'Health' })
  await expect(health.getByText(current.status, { exact: true })).toBeVisible()
  await expect(health.getByText(/^Updated /)).toBeVisible()
  await expect(health.getByText('Who updated the health, and the notes, show once this epic has been opened online.')).toBeVisible()
  await expect(health).not.toContainText(author)
  await expect(health).not.toContainText('?')
  await expect(health).not.toContainText(/\bby\b/)

  // Online again, the epic opened anew: who set it, and its note, as the service has them.
  await service.start()
  outpost.networkChanged()
  await expect(statusBar(page).getByText('Online', { exact: true })).toBeVisible()
  await page.getByRole('button', { name: 'Epics', exact: true }).click()
  await page.evaluate((id) => (window.location.hash = `#/epics/${id}`), target.id)
  await expect(health.getByText(author, { exact: true })).toBeVisible()
  await expect(health.getByText(current.text, { exact: true })).toBeVisible()
  await expect(health.getByText(/^Updated /)).toHaveCount(0)
  await expect(health.getByText('Who updated the health, and the notes, show once this epic has been opened online.')).toHaveCount(0)
})
