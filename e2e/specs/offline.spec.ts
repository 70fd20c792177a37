// 2. Offline: the service goes away; the person edits an epic, creates one,
// comments, writes a doc and drags two files in; closes the app and opens it
// again, still offline: everything is still there, marked pending.
// 3. Back online: everything is replayed, the service has each change exactly
// once, and the pending panel empties.
import {
  dropFiles,
  epicRow,
  expect,
  expectOffline,
  expectOnline,
  goTo,
  openPendingPanel,
  pendingButton,
  screens,
  signIn,
  test,
  v4All,
  waitForBootstrap,
} from '../fixtures/outpost.ts'

test('changes made offline survive a restart and reach the service exactly once', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const before = await v4All(service.v4(), '/epics')
  const states = await v4All(service.v4(), '/epic-workflow/states')
  const target = [...before].filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  const renamed = `${target.name} (edited offline)`
  const created = 'Offline-first onboarding checklist'
  const comment = 'Written on the train, no network.'
  const docTitle = 'Notes from the plane'
  const docBody = '# Notes from the plane\n\nEverything here was **written offline**.\n\n- first point\n- second point'
  const dropped = [
    { name: 'offline-notes.txt', type: 'text/plain', text: 'notes written offline\n' },
    { name: 'offline-data.csv', type: 'text/csv', text: 'a,b\n1,2\n' },
  ]

  // The network goes away.
  await service.stop()

  // Edit an epic's name.
  await epicRow(page, target.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toHaveValue(target.name)
  await name.fill(renamed)
  await name.press('Enter')
  await expect(page.getByText('Pending sync')).toBeVisible()
  // And its state, from the workflow's picker.
  const newState = states.find((st) => st.id !== target.epic_state?.id)
  await page.getByRole('button', { name: 'Epic state' }).click()
  await page.getByRole('listbox', { name: 'Epic state' }).getByRole('option', { name: newState.name }).click()
  await expect(page.getByRole('button', { name: 'Epic state' })).toContainText(newState.name)

  // Comment on it.
  await page.getByRole('textbox', { name: 'New comment' }).fill(comment)
  await page.getByRole('button', { name: 'Comment', exact: true }).click()
  const posted = page.getByRole('article', { name: /^Comment/ }).filter({ hasText: comment })
  await expect(posted).toBeVisible()
  await expect(posted.getByText('pending', { exact: true })).toBeVisible()
  await expectOffline(page)
  await screens(page, info, 'epic-detail-offline')

  // Write a doc.
  await goTo(page, 'Docs')
  await page.getByRole('button', { name: 'New doc', exact: true }).click()
  const editor = page.getByRole('form', { name: 'New doc' })
  await editor.getByRole('textbox', { name: 'Title' }).fill(docTitle)
  await editor.getByRole('textbox', { name: 'Doc content' }).fill(docBody)
  await screens(page, info, 'doc-editor')
  await editor.getByRole('button', { name: 'Create doc' }).click()
  await expect(page.getByRole('heading', { name: docTitle, level: 1 })).toBeVisible()

  // Drag two files onto the window.
  await goTo(page, 'Files')
  await dropFiles(page, dropped)
  for (const f of dropped)
    await expect(
      page
        .getByRole('option')
        .filter({ hasText: f.name })
        .getByText(/Queued/),
    ).toBeVisible()
  await screens(page, info, 'files-offline')

  // Create an epic.
  await page.getByRole('button', { name: 'New epic' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'New epic' })
  await dialog.getByLabel('Name').fill(created)
  await screens(page, info, 'new-epic')
  await dialog.getByRole('button', { name: 'Create epic' }).click()
  await expect(dialog).toBeHidden()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(created)

  // Close the app and open it again, still offline.
  await outpost.close(page)
  const again = await outpost.open()
  await expect(again.getByRole('navigation', { name: 'Outpost' })).toBeVisible()
  await expectOffline(again)
  await expect(pendingButton(again)).toHaveText(/6 pending/)

  await expect(epicRow(again, renamed)).toBeVisible()
  await expect(epicRow(again, renamed).getByText('pending', { exact: true })).toBeVisible()
  await expect(epicRow(again, created)).toBeVisible()
  await expect(epicRow(again, created).getByText('pending', { exact: true })).toBeVisible()
  await epicRow(again, renamed).click()
  await expect(again.getByRole('button', { name: 'Epic state' })).toContainText(newState.name)
  const kept = again.getByRole('article', { name: /^Comment/ }).filter({ hasText: comment })
  await expect(kept).toBeVisible()
  await expect(kept.getByText('pending', { exact: true })).toBeVisible()

  await goTo(again, 'Docs')
  await expect(again.getByRole('option').filter({ hasText: docTitle }).getByText('pending', { exact: true })).toBeVisible()
  await goTo(again, 'Files')
  for (const f of dropped)
    await expect(
      again
        .getByRole('option')
        .filter({ hasText: f.name })
        .getByText(/Queued/),
    ).toBeVisible()

  const panel = await openPendingPanel(again)
  await expect(panel.getByRole('listitem')).toHaveCount(6)
  await expect(panel).toContainText('You are offline')
  await screens(again, info, 'pending-offline')

  // Back online: the service answers again on the same address, with the same data.
  await service.start()
  outpost.networkChanged()
  await expectOnline(again)
  await expect(panel.getByText('Everything is synced')).toBeVisible({ timeout: 30_000 })
  await expect(pendingButton(again)).toHaveText('All changes saved')
  await screens(again, info, 'pending-empty')
  for (const f of dropped) {
    await expect(again.getByRole('option').filter({ hasText: f.name })).toHaveCount(1)
    await expect(
      again
        .getByRole('option')
        .filter({ hasText: f.name })
        .getByText(/Queued/),
    ).toHaveCount(0)
  }

  // The service has each change exactly once.
  const api = service.v4()
  const epics = await v4All(api, '/epics')
  expect(epics.filter((e) => e.name === renamed)).toHaveLength(1)
  expect(epics.filter((e) => e.id === target.id)[0].name).toBe(renamed)
  expect(epics.filter((e) => e.id === target.id)[0].epic_state?.id).toBe(newState.id)
  const made = epics.filter((e) => e.name === created)
  expect(made).toHaveLength(1)
  // Created with the app's own external_id, the key that keeps a retried create from doubling.
  expect(typeof made[0].external_id).toBe('string')
  expect(epics.filter((e) => e.external_id === made[0].external_id)).toHaveLength(1)
  expect(epics.length).toBe(before.length + 1)

  const comments = (await service.v3().get(`/epics/${target.id}/comments`)).body as { text: string }[]
  const flat = (list: any[]): any[] => list.flatMap((c) => [c, ...flat(c.comments ?? [])])
  expect(flat(comments).filter((c) => c.text === comment)).toHaveLength(1)

  const docs = await v4All(api, '/documents')
  expect(docs.filter((d) => d.title === docTitle)).toHaveLength(1)

  const files = (await service.v3().get('/files')).body as { name: string }[]
  for (const f of dropped) expect(files.filter((x) => x.name === f.name)).toHaveLength(1)
})
