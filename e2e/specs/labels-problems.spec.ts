// Three things a person meets on an epic and in the status bar:
// - a label created by name from the epic's label picker, online and offline:
//   it shows at once, and the service ends up with the label once and the epic
//   carrying it; a name past the limit is refused before anything is queued;
// - a record in the local database Outpost cannot read (corrupt, or another
//   program's) is told in the status bar, listed in a dialog, and can be hidden
//   or removed (after a question saying what that does);
// - comments always show who wrote them once known, and a clear placeholder
//   (never a "?") while they are not.
import type { Page } from '@playwright/test'
import {
  epicRow,
  expect,
  expectOffline,
  expectOnline,
  goTo,
  pendingButton,
  screens,
  signIn,
  spoil,
  statusBar,
  test,
  v4All,
  waitForBootstrap,
  type LocalService,
} from '../fixtures/outpost.ts'

interface LabelV3 {
  id: number
  name: string
}

const labelsOn = async (service: LocalService, epicId: number): Promise<number[]> =>
  ((await service.v3().get(`/epics/${epicId}`)).body as { label_ids: number[] }).label_ids

/** Epics the service has, open ones first by most recently updated. */
async function openEpics(service: LocalService): Promise<{ id: number; name: string }[]> {
  const epics = await v4All(service.v4(), '/epics')
  return epics.filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
}

/** Opens an epic from the list, as a person clicks. */
async function openEpic(page: Page, name: string) {
  await goTo(page, 'Epics')
  await epicRow(page, name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(name)
}

/** Opens the label picker of the epic on screen and types a name. */
async function typeLabel(page: Page, name: string) {
  const trigger = page.getByRole('button', { name: 'Labels' })
  if ((await trigger.getAttribute('aria-expanded')) !== 'true') await trigger.click()
  const filter = page.getByRole('combobox', { name: 'Filter Labels' })
  await filter.fill(name)
  return { trigger, filter, list: page.getByRole('listbox', { name: 'Labels' }) }
}

test('a label created by name on an epic, online and offline, reaches the service once', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const [first, second, third] = await openEpics(service)
  const before = (await service.v3().get('/labels')).body as LabelV3[]

  // ---- online ----
  await openEpic(page, first.name)

  // A name that exists, in another case, is picked, not created again.
  const existing = before[0]
  let picker = await typeLabel(page, existing.name.toUpperCase())
  await expect(picker.list.getByRole('option', { name: existing.name, exact: true })).toBeVisible()
  await expect(picker.list.getByRole('option', { name: /^Create label/ })).toHaveCount(0)

  // A name past the service's limit is refused here, before anything is queued.
  picker = await typeLabel(page, 'x'.repeat(129))
  const tooLong = picker.list.getByRole('option', { name: /^Create label/ })
  await expect(tooLong).toHaveAttribute('aria-disabled', 'true')
  await expect(page.getByText('Label names can have at most 128 characters; this one has 129.')).toBeVisible()
  await picker.filter.press('Enter')
  await expect(page.getByText('Label names can have at most 128 characters; this one has 129.')).toBeVisible()
  await screens(page, info, 'label-too-long')

  // A new name: "Create label “…”", and the epic carries it at once.
  const online = 'Quarterly planning'
  picker = await typeLabel(page, online)
  await expect(picker.list.getByRole('option', { name: `Create label “${online}”` })).toBeVisible()
  await screens(page, info, 'label-create')
  await picker.list.getByRole('option', { name: `Create label “${online}”` }).click()
  await expect(picker.trigger).toContainText(online)
  await screens(page, info, 'label-created')
  await page.keyboard.press('Escape')
  await expect(pendingButton(page)).toHaveText('All changes saved', { timeout: 30_000 })

  const afterOnline = (await service.v3().get('/labels')).body as LabelV3[]
  const made = afterOnline.filter((l) => l.name === online)
  expect(made).toHaveLength(1)
  expect(await labelsOn(service, first.id)).toContain(made[0].id)
  // The over-long name never reached the service.
  expect(afterOnline).toHaveLength(before.length + 1)

  // ---- offline ----
  await service.stop()
  await openEpic(page, second.name)
  const offline = 'Offline triage'
  picker = await typeLabel(page, offline)
  await picker.filter.press('Enter')
  await expect(picker.trigger).toContainText(offline)
  await page.keyboard.press('Escape')
  await expectOffline(page)
  await expect(pendingButton(page)).toHaveText(/pending/)

  // The label made offline is there to pick on another epic before the service has it.
  await openEpic(page, third.name)
  picker = await typeLabel(page, offline.toUpperCase())
  await expect(picker.list.getByRole('option', { name: /^Create label/ })).toHaveCount(0)
  await picker.list.getByRole('option', { name: offline, exact: true }).click()
  await expect(picker.trigger).toContainText(offline)
  await page.keyboard.press('Escape')

  // Back online: replayed once; both epics carry the one new label.
  await service.start()
  outpost.networkChanged()
  await expectOnline(page)
  await expect(pendingButton(page)).toHaveText('All changes saved', { timeout: 30_000 })
  const afterOffline = (await service.v3().get('/labels')).body as LabelV3[]
  const madeOffline = afterOffline.filter((l) => l.name === offline)
  expect(madeOffline).toHaveLength(1)
  expect(afterOffline).toHaveLength(before.length + 2)
  expect(await labelsOn(service, second.id)).toContain(madeOffline[0].id)
  expect(await labelsOn(service, third.id)).toContain(madeOffline[0].id)
  // The chip names the label, now under its service id.
  await expect(page.getByRole('button', { name: 'Labels' })).toContainText(offline)
})

test('records the app cannot read are told in the status bar and listed', async ({ service, outpost, context }, info) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  let page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const problems = () => statusBar(page).getByRole('button', { name: /could not be read/ })
  await expect(problems()).toHaveCount(0)

  // Another program's row and a corrupt epic; the app notices them when it starts.
  await spoil(page, 'epics', [
    { id: 990_001, name: 42, archived: 'no' },
    { id: 'foreign-1', app: 'someone else', value: { nested: true } },
  ])
  await outpost.close(page)
  page = await outpost.open()
  await waitForBootstrap(page)
  await expect(problems()).toHaveText('2 records could not be read')
  // The rest of the app works: the epic list shows, without the spoilt rows.
  await expect(
    page
      .getByRole('listbox', { name: /^Epics/ })
      .getByRole('option')
      .first(),
  ).toBeVisible()

  await problems().click()
  const dialog = page.getByRole('dialog', { name: '2 records could not be read' })
  await expect(dialog).toBeVisible()
  const items = dialog.getByRole('list', { name: 'Unreadable records' }).getByRole('listitem')
  await expect(items).toHaveCount(2)
  await expect(items.filter({ hasText: '990001' })).toContainText('Epic')
  await expect(items.filter({ hasText: '990001' })).toContainText('name is not a string')
  await expect(items.filter({ hasText: 'foreign-1' })).toContainText('name is missing')
  await expect(items.first().getByText(/^found /)).toBeVisible()
  await screens(page, info, 'data-problems')

  await dialog.getByRole('button', { name: 'Copy details' }).click()
  await expect(page.getByText('Details copied')).toBeVisible()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  expect(copied).toContain('epics  990001  name is not a string')
  expect(copied).toContain('epics  foreign-1  name is missing')

  // Hidden until something new turns up, also after a restart.
  await dialog.getByRole('button', { name: 'Hide until something new' }).click()
  await expect(dialog).toBeHidden()
  await expect(problems()).toHaveCount(0)
  await spoil(page, 'docs', [{ id: 'not-a-doc', title: null }])
  await outpost.close(page)
  page = await outpost.open()
  await waitForBootstrap(page)
  await expect(problems()).toHaveText('1 record could not be read')
  await problems().click()
  // The dialog lists all three; Escape closes it and focus goes back to the button.
  await expect(page.getByRole('dialog', { name: '3 records could not be read' }).getByRole('listitem')).toHaveCount(3)
  await page.keyboard.press('Escape')
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(problems()).toBeFocused()

  // A queued change another program left; then all of them removed, after a question that says what goes.
  await spoil(page, 'outbox', [{ kind: 'spaceship', op: 'launch', payload: 'garbage' }])
  await outpost.close(page)
  page = await outpost.open()
  await waitForBootstrap(page)
  await expect(problems()).toHaveText('2 records could not be read')
  await problems().click()
  const all = page.getByRole('dialog', { name: '4 records could not be read' })
  await expect(all.getByRole('listitem')).toHaveCount(4)
  await all.getByRole('button', { name: 'Remove these records' }).click()
  const question = page.getByRole('alertdialog', { name: 'Remove 4 unreadable records from this computer?' })
  await expect(question).toContainText('3 damaged copies of the service’s data are deleted from this computer’s cache. Nothing changes on the service')
  await expect(question).toContainText('1 queued change Outpost cannot read is deleted for good.')
  await screens(page, info, 'data-problems-remove')
  // Cancel leaves everything where it was.
  await question.getByRole('button', { name: 'Cancel' }).click()
  await expect(question).toBeHidden()
  await expect(all.getByRole('button', { name: 'Remove these records' })).toBeFocused()
  await expect(all.getByRole('listitem')).toHaveCount(4)
  await all.getByRole('button', { name: 'Remove these records' }).click()
  await question.getByRole('button', { name: 'Remove records' }).click()
  await expect(page.getByText('Removed 4 unreadable records')).toBeVisible()
  await expect(page.getByRole('dialog')).toHaveCount(0)
  await expect(problems()).toHaveCount(0)

  // Gone from the database, not only from view: a restart finds none, and the app works.
  expect(await rowsIn(page, 'epics', [990_001, 'foreign-1'])).toEqual([])
  expect(await rowsIn(page, 'docs', ['not-a-doc'])).toEqual([])
  expect((await allRows(page, 'outbox')).filter((r) => (r as { kind?: unknown }).kind === 'spaceship')).toEqual([])
  await outpost.close(page)
  page = await outpost.open()
  await waitForBootstrap(page)
  await expect(
    page
      .getByRole('listbox', { name: /^Epics/ })
      .getByRole('option')
      .first(),
  ).toBeVisible()
  await expect(problems()).toHaveCount(0)
})

/** Every row of a table of the workspace's IndexedDB. */
async function allRows(page: Page, table: string): Promise<unknown[]> {
  return page.evaluate(async (table) => {
    const name = (await indexedDB.databases()).map((d) => d.name).find((n) => n?.startsWith('outpost:'))
    if (!name) throw new Error('no workspace database')
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name)
      open.onsuccess = () => resolve(open.result)
      open.onerror = () => reject(open.error)
    })
    const rows = await new Promise<unknown[]>((resolve, reject) => {
      const get = db.transaction(table).objectStore(table).getAll()
      get.onsuccess = () => resolve(get.result)
      get.onerror = () => reject(get.error)
    })
    db.close()
    return rows
  }, table)
}

/** The rows of a table whose id is one of these. */
async function rowsIn(page: Page, table: string, ids: unknown[]): Promise<unknown[]> {
  return (await allRows(page, table)).filter((r) => ids.includes((r as { id?: unknown }).id))
}

test('comments show their authors, and a placeholder (never "?") until they are known', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  // An epic with a thread, never opened here: the cache knows its comments only from the epic lists.
  const epics = await openEpics(service)
  const members = new Map(((await service.v3().get('/members')).body as { id: string; profile: { name: string } }[]).map((m) => [m.id, m.profile.name]))
  const flat = (list: any[]): any[] => list.flatMap((c) => [c, ...flat(c.comments ?? [])])
  let target: { id: number; name: string } | undefined
  let thread: { text: string; author_id: string; deleted: boolean }[] = []
  for (const e of epics) {
    thread = flat((await service.v3().get(`/epics/${e.id}`)).body.comments ?? []).filter((c) => !c.deleted)
    if (thread.length >= 3 && thread.some((c) => c.author_id !== thread[0].author_id)) {
      target = e
      break
    }
  }
  if (!target) throw new Error('the demo seed has an epic with a thread')

  // Offline, the epic opens from the cache: every comment, each with a placeholder for its author.
  await service.stop()
  await openEpic(page, target.name)
  const section = page.getByRole('region', { name: /^Comments/ })
  const articles = section.getByRole('article')
  await expect(articles).toHaveCount(thread.length)
  await expect(section.getByText('Authors, replies and times show once this epic has been opened online.')).toBeVisible()
  await expect(articles.getByText('Author not loaded yet')).toHaveCount(thread.length)
  await expect(section.getByText('?', { exact: true })).toHaveCount(0)
  await expectOffline(page)
  await articles.first().scrollIntoViewIfNeeded()
  await screens(page, info, 'comments-unloaded')

  // Online again, on a slow network: while the epic's details load, the comments say so.
  await service.start()
  service.running.setFaults({ latencyMs: 4_000 })
  outpost.networkChanged()
  await expect(section.getByText('Loading who wrote what…')).toBeVisible()
  await expect(section.getByText('?', { exact: true })).toHaveCount(0)
  await articles.first().scrollIntoViewIfNeeded()
  await screens(page, info, 'comments-loading')
  service.running.setFaults({ latencyMs: 0 })

  // Then every comment names its author.
  await expectOnline(page)
  const expected = thread.map((c) => `Comment by ${members.get(c.author_id)}`).sort()
  await expect.poll(async () => (await articles.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).sort()).toEqual(expected)
  await expect(section.getByText('Author not loaded yet')).toHaveCount(0)
  await expect(section.getByText('?', { exact: true })).toHaveCount(0)
  await articles.first().scrollIntoViewIfNeeded()
  await screens(page, info, 'comments-loaded')
})
