// The keyboard model: an epic opened with Enter keeps the focus in the
// window; single keys act on the selected or open epic (s state, a owners,
// l labels, h health, e description, Shift+A archive), each listed under `?`
// and in the palette.
import { epicRow, expect, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('single keys act on the selected or the open epic, and the focus follows', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

  // j moves down the list; Enter opens the selected row, and the focus is in the epic, not lost.
  await expect(epicRow(page, epics[0].name).first()).toBeVisible()
  await page.keyboard.press('j')
  await page.keyboard.press('Enter')
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toBeVisible()
  await expect(page.getByRole('article', { name: await name.inputValue() })).toBeFocused()

  // s opens the state picker of the open epic.
  await page.keyboard.press('s')
  await expect(page.getByRole('listbox', { name: 'Epic state' })).toBeVisible()
  await page.keyboard.press('Escape')
  // h opens the health update with its statuses focused.
  await page.keyboard.press('h')
  await expect(page.getByRole('radiogroup', { name: 'Health status' }).getByRole('radio', { checked: true })).toBeFocused()
  await page.getByRole('button', { name: 'Discard' }).click()
  // Shift+A archives it; again, unarchives.
  await page.getByRole('article').first().focus()
  await page.keyboard.press('Shift+A')
  await expect(page.getByText('This epic is archived')).toBeVisible()
  await page.keyboard.press('Shift+A')
  await expect(page.getByText('This epic is archived')).toHaveCount(0)

  // From the list: the selected row opens and the key acts there (a: owners).
  await page.keyboard.press('Escape')
  await expect(name).toHaveCount(0)
  await page.keyboard.press('k')
  await page.keyboard.press('a')
  await expect(page.getByRole('listbox', { name: 'Owners' })).toBeVisible()
  await page.keyboard.press('Escape')

  // Listed under ? (with j, k, o, e, u) and in the palette, where the command does it too.
  await page.keyboard.press('?')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  for (const what of [
    'Next row of a list',
    'Previous row of a list',
    'Open the selected row',
    'Edit the open doc',
    'Upload files',
    'Change the epic’s state',
    'Assign owners',
    'Change labels',
    'Update health',
    'Archive or unarchive',
  ]) {
    await expect(palette.getByRole('option').filter({ hasText: what }).first()).toBeVisible()
  }
  await page.keyboard.press('Escape')
  await page.keyboard.press('Control+k')
  await page.keyboard.type('Change labels')
  await expect(palette.getByRole('option').first()).toContainText('Change labels')
  await page.keyboard.press('Enter')
  await expect(page.getByRole('listbox', { name: 'Labels' })).toBeVisible()
})
