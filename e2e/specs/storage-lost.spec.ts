// The browser's storage lost with changes still unsent (IndexedDB wiped by an
// update, a downgrade, a profile reset): the main side's journal of queued
// changes brings them back when the app opens again, the user is told, and
// each reaches the service exactly once when the network is back. The
// journal, a file in the host's data folder, never holds the token.
import { readdirSync, readFileSync } from 'node:fs'
import type { Page } from '@playwright/test'
import { dispatch } from '../../src-main/ipc/dispatch.ts'
import { epicRow, expect, openPendingPanel, pendingButton, signIn, test, waitForBootstrap, type LocalService } from '../fixtures/outpost.ts'

const activeEpics = async (service: LocalService) =>
  ((await service.v3().get('/epics')).body as { id: number; name: string; archived: boolean; updated_at: string }[])
    .filter((e) => !e.archived)
    .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

async function openEpic(page: Page, name: string) {
  await epicRow(page, name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(name)
}

test('changes pending when the browser’s storage is lost are restored from the journal, told, and reach the service once', async ({
  service,
  outpost,
}, info) => {
  let page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const [one, two] = await activeEpics(service)
  const renamed = `${one.name} (before the storage was lost)`
  const created = 'Made before the storage was lost'
  const comment = 'Written before the storage was lost.'
  const token = service.tokens.admin

  await service.stop()
  await openEpic(page, one.name)
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill(renamed)
  await name.press('Enter')
  await page.keyboard.press('Escape')
  await openEpic(page, two.name)
  await page.getByRole('textbox', { name: 'New comment' }).fill(comment)
  await page.getByRole('button', { name: 'Comment', exact: true }).click()
  await expect(page.getByRole('article', { name: /^Comment/ }).filter({ hasText: comment })).toBeVisible()
  await page.keyboard.press('Escape')
  await page.getByRole('button', { name: 'New epic' }).first().click()
  const dialog = page.getByRole('dialog', { name: 'New epic' })
  await dialog.getByLabel('Name').fill(created)
  await dialog.getByRole('button', { name: 'Create epic' }).click()
  await expect(dialog).toBeHidden()
  await expect(pendingButton(page)).toContainText('3')

  // The window closes, and the profile's IndexedDB is wiped: every database of the app's origin deleted.
  const origin = new URL(page.url()).origin
  await outpost.close(page)
  const wiper = await outpost.context.newPage()
  await wiper.goto(`${origin}/storage-wiped`)
  const deleted = await wiper.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name!).filter(Boolean)
    for (const n of names) {
      await new Promise<void>((resolve, reject) => {
        const request = indexedDB.deleteDatabase(n)
        request.onsuccess = () => resolve()
        request.onerror = () => reject(request.error)
        request.onblocked = () => reject(new Error(`${n} is still open`))
      })
    }
    return { names, left: (await indexedDB.databases()).length }
  })
  expect(deleted.names.some((n) => n.startsWith('outpost:'))).toBe(true)
  expect(deleted.left).toBe(0)
  await wiper.close()

  // Opened again, still offline: the three changes are back, and the user is told what happened.
  page = await outpost.open()
  const strip = page.getByRole('status').filter({ hasText: 'local storage was lost' })
  await expect(strip).toContainText('3 unsent changes were restored from its journal and will be sent when you are back online', { timeout: 20_000 })
  await expect(pendingButton(page)).toContainText('3')
  const panel = await openPendingPanel(page)
  await expect(panel).toContainText(created)
  await page.keyboard.press('Escape')

  // The journal is a file of the host's data folder: it holds the changes, never the token.
  const journalDir = info.outputPath('host', 'journal')
  const journals = readdirSync(journalDir).map((f) => readFileSync(`${journalDir}/${f}`, 'utf8'))
  expect(journals.join('')).toContain(comment)
  expect(journals.join('')).not.toContain(token)

  // Back online: each change reaches the service once.
  await service.start()
  outpost.networkChanged()
  await expect.poll(async () => (await activeEpics(service)).find((e) => e.id === one.id)?.name, { timeout: 30_000 }).toBe(renamed)
  await expect.poll(async () => (await activeEpics(service)).filter((e) => e.name === created).length, { timeout: 30_000 }).toBe(1)
  await expect
    .poll(async () => ((await service.v3().get(`/epics/${two.id}/comments`)).body as { text: string }[]).filter((c) => c.text === comment).length, {
      timeout: 30_000,
    })
    .toBe(1)
  await expect(pendingButton(page)).not.toContainText(/\d/, { timeout: 15_000 })
  // Still once after the sync that follows, and nothing left open in the journal.
  await expect(epicRow(page, created)).toHaveCount(1, { timeout: 30_000 })
  expect((await activeEpics(service)).filter((e) => e.name === created)).toHaveLength(1)
  await expect
    .poll(
      () =>
        readdirSync(journalDir)
          .map((f) => readFileSync(`${journalDir}/${f}`, 'utf8'))
          .join('')
          .includes('"confirmed"'),
      { timeout: 15_000 },
    )
    .toBe(true)
  const side = outpost.host.side
  await expect
    .poll(async () => await dispatch(side.table, 'outpost:journal.read', { accountId: side.accounts.current()!.id }), { timeout: 15_000 })
    .toMatchObject({
      ok: true,
      value: { entries: [] },
    })

  await strip.getByRole('button', { name: 'Dismiss' }).click()
  await expect(strip).toBeHidden()
})
