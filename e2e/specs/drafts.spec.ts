// A person's text is never lost: every draft (a health note, a comment, a
// reply, an epic's description, the new-epic dialog, a doc being written)
// survives Escape, going elsewhere and a reload, until it is sent or
// discarded on purpose; Ctrl+Enter sends; text past the service's limit is
// refused before anything is queued.
import type { Page } from '@playwright/test'
import { epicRow, expect, goTo, pendingButton, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

async function openNewest(page: Page, name: string): Promise<void> {
  await goTo(page, 'Epics')
  await epicRow(page, name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(name)
}

test('drafts survive Escape, leaving and a reload, and go once sent or discarded', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = await v4All(service.v4(), '/epics')
  const target = epics.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  await openNewest(page, target.name)

  // A health update: a status picked with the arrow keys, a note, then Escape takes the window back to the list.
  await page.getByRole('button', { name: 'Update health' }).click()
  const statuses = page.getByRole('radiogroup', { name: 'Health status' })
  await expect(statuses.getByRole('radio', { checked: true })).toBeFocused()
  await page.keyboard.press('ArrowRight')
  const picked = statuses.getByRole('radio', { checked: true })
  await expect(picked).toBeFocused()
  const pickedName = (await picked.textContent())!.trim()
  await page.getByRole('textbox', { name: 'What is the health about?' }).fill('Vendor late, two weeks at risk')
  // A comment and an edit of the description, half written.
  await page.getByRole('textbox', { name: 'New comment' }).fill('Half a thought about the rollout')
  await page.getByRole('button', { name: /^Edit/ }).first().click()
  await page.getByRole('textbox', { name: 'Description' }).fill('A new description, not saved yet')
  await page.getByRole('radio', { name: pickedName }).focus()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveCount(0)

  // Back, and after a reload: all three as they were left.
  for (const again of ['back', 'reload'] as const) {
    if (again === 'reload') await page.reload()
    await openNewest(page, target.name)
    await expect(page.getByRole('textbox', { name: 'What is the health about?' })).toHaveValue('Vendor late, two weeks at risk')
    await expect(page.getByRole('radiogroup', { name: 'Health status' }).getByRole('radio', { checked: true })).toHaveText(pickedName)
    await expect(page.getByRole('textbox', { name: 'New comment' })).toHaveValue('Half a thought about the rollout')
    await expect(page.getByRole('textbox', { name: 'Description' })).toHaveValue('A new description, not saved yet')
  }

  // Ctrl+Enter sends the health update; its draft is gone, and so is the comment's once sent.
  await page.getByRole('textbox', { name: 'What is the health about?' }).press('Control+Enter')
  await expect(page.getByRole('textbox', { name: 'What is the health about?' })).toHaveCount(0)
  await expect(page.getByText('Vendor late, two weeks at risk')).toBeVisible()
  await page.getByRole('textbox', { name: 'New comment' }).press('Control+Enter')
  await expect(page.getByRole('article', { name: /^Comment/ }).filter({ hasText: 'Half a thought about the rollout' })).toBeVisible()
  await expect(page.getByRole('textbox', { name: 'New comment' })).toHaveValue('')
  // Cancel discards the description's draft on purpose.
  await page.getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByRole('textbox', { name: 'Description' })).toHaveCount(0)
  await page.reload()
  await openNewest(page, target.name)
  await expect(page.getByRole('textbox', { name: 'Description' })).toHaveCount(0)
  await expect(page.getByRole('textbox', { name: 'New comment' })).toHaveValue('')
  await expect(page.getByRole('textbox', { name: 'What is the health about?' })).toHaveCount(0)
})

test('an epic name typed and not saved is kept through a reload, then saved or discarded on purpose', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = await v4All(service.v4(), '/epics')
  const target = epics.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  const nameOnService = async () => ((await service.v3().get(`/epics/${target.id}`)).body as { name: string }).name
  const field = page.getByRole('textbox', { name: 'Epic name' })
  const kept = page.getByRole('status').filter({ hasText: 'This name is not saved yet.' })

  // Escape in the field puts the name back and keeps nothing.
  await openNewest(page, target.name)
  await field.fill(`${target.name}, typed then escaped`)
  await field.press('Escape')
  await expect(field).toHaveValue(target.name)
  await expect(kept).toHaveCount(0)
  await goTo(page, 'Epics')

  for (const then of ['Discard', 'Save name'] as const) {
    await openNewest(page, target.name)
    const typed = `${target.name}, renamed before a reload (${then})`
    // Typed, and the window reloads before the field is left: nothing was sent.
    await field.fill(typed)
    await page.reload()
    await goTo(page, 'Epics')
    await epicRow(page, target.name).first().click()
    await expect(field).toHaveValue(typed)
    await expect(kept).toBeVisible()
    expect(await nameOnService()).toBe(target.name)
    if (then === 'Discard') {
      await page.setViewportSize({ width: 800, height: 600 })
      await screens(page, info, 'epic-name-kept')
    }

    await kept.getByRole('button', { name: then }).click()
    await expect(kept).toHaveCount(0)
    if (then === 'Discard') {
      await expect(field).toHaveValue(target.name)
      await expect(pendingButton(page)).toHaveText('All changes saved')
      expect(await nameOnService()).toBe(target.name)
    } else {
      await expect(field).toHaveValue(typed)
      await expect.poll(nameOnService, { timeout: 30_000 }).toBe(typed)
      // Saved: nothing is kept for a reload to show again.
      await page.reload()
      await goTo(page, 'Epics')
      await epicRow(page, typed).first().click()
      await expect(field).toHaveValue(typed)
      await expect(kept).toHaveCount(0)
    }
    await goTo(page, 'Epics')
  }
})

test('the new-epic dialog and a new doc keep what was written; a name or title past the limit is refused before anything is queued', async ({
  service,
  outpost,
}) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  await page.getByRole('button', { name: 'New epic' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'New epic' })
  await dialog.getByRole('textbox', { name: 'Name' }).fill('x'.repeat(257))
  await expect(dialog.getByText('257 characters: the service takes names of up to 256.')).toBeVisible()
  await expect(dialog.getByRole('button', { name: 'Create epic' })).toBeDisabled()
  await dialog.getByRole('textbox', { name: 'Name' }).press('Enter')
  await expect(pendingButton(page)).toHaveText('All changes saved')
  await dialog.getByRole('textbox', { name: 'Name' }).fill('Roadmap for the offline editor')
  await dialog.getByRole('textbox', { name: 'Description' }).fill('Why, what and when.')
  await page.keyboard.press('Escape')
  await expect(dialog).toHaveCount(0)
  await page.reload()
  await page.getByRole('button', { name: 'New epic' }).first().click()
  await expect(dialog.getByRole('textbox', { name: 'Name' })).toHaveValue('Roadmap for the offline editor')
  await expect(dialog.getByRole('textbox', { name: 'Description' })).toHaveValue('Why, what and when.')
  await dialog.getByRole('textbox', { name: 'Description' }).press('Control+Enter')
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue('Roadmap for the offline editor')

  // A new doc, half written, left for the epics and found again after a reload.
  await goTo(page, 'Docs')
  await page.getByRole('button', { name: 'New doc', exact: true }).click()
  const editor = page.getByRole('form', { name: 'New doc' })
  await editor.getByRole('textbox', { name: 'Title' }).fill('T'.repeat(257))
  await expect(editor.getByText('Titles are up to 256 characters; this one has 257.')).toBeVisible()
  await expect(editor.getByRole('button', { name: 'Create doc' })).toBeDisabled()
  await editor.getByRole('textbox', { name: 'Title' }).fill('Field notes')
  await editor.getByRole('textbox', { name: 'Doc content' }).fill('# Field notes\n\nWritten on the road.')
  await goTo(page, 'Epics')
  await page.reload()
  await goTo(page, 'Docs')
  await page.getByRole('button', { name: 'New doc', exact: true }).click()
  await expect(editor.getByRole('textbox', { name: 'Title' })).toHaveValue('Field notes')
  await expect(editor.getByRole('textbox', { name: 'Doc content' })).toHaveValue('# Field notes\n\nWritten on the road.')
  await editor.getByRole('button', { name: 'Create doc' }).click()
  await expect(page.getByRole('heading', { name: 'Field notes', level: 1 })).toBeVisible()
})

test('an epic name whose save is refused as the user leaves the epic is there, not saved, on return', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = await v4All(service.v4(), '/epics')
  const target = epics.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  const field = page.getByRole('textbox', { name: 'Epic name' })
  const kept = page.getByRole('status').filter({ hasText: 'This name is not saved yet.' })

  // The main side cannot keep changes in its journal for a moment (its disk refused): every save is refused.
  const table = outpost.host.side.table
  const append = table['outpost:journal.append']
  table['outpost:journal.append'] = async () => {
    throw new Error('ENOSPC: no space left on device')
  }
  await openNewest(page, target.name)
  const typed = `${target.name}, typed as the disk filled`
  await field.fill(typed)
  // Leaving the epic saves the name: refused, and said so.
  await goTo(page, 'Docs')
  await expect(page.getByRole('region', { name: 'Notifications' })).toContainText('could not keep the change in its journal')
  table['outpost:journal.append'] = append

  // Back on the epic: the name typed, not saved, with the way to save it.
  await openEpic(page, target.name)
  await expect(field).toHaveValue(typed)
  await expect(kept).toBeVisible()
  expect(((await service.v3().get(`/epics/${target.id}`)).body as { name: string }).name).toBe(target.name)
  await kept.getByRole('button', { name: 'Save name' }).click()
  await expect(kept).toHaveCount(0)
  await expect.poll(async () => ((await service.v3().get(`/epics/${target.id}`)).body as { name: string }).name, { timeout: 15_000 }).toBe(typed)
})

/** Opens an epic from the list by the name the list shows (the service's, while a typed one is not saved). */
async function openEpic(page: Page, name: string): Promise<void> {
  await goTo(page, 'Epics')
  await epicRow(page, name).first().click()
}
