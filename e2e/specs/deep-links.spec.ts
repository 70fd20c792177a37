// Links to an epic or a doc open it in Outpost: "Copy link" copies the
// service's address of an epic (or Outpost's own link to a doc), which pasted
// into the palette or a search opens the item; outpost:// links the OS hands
// the main side reach the window; the browser host takes them as
// #/open/<link>; a link to a workspace Outpost is not signed in to says so; a
// link taken by a window that went away before opening it is given back at
// once.
import { epicRow, expect, goTo, signIn, test, v4All, waitForBootstrap, type LocalService, type OutpostApp } from '../fixtures/outpost.ts'
import { LINK_LOAN_MS } from '../../src-main/shell/link-inbox.ts'

test.use({ permissions: ['clipboard-read', 'clipboard-write'] })

test('Copy link, then paste it into the palette or a search: the epic or the doc opens', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
  const [first, second] = epics
  const name = page.getByRole('textbox', { name: 'Epic name' })

  await epicRow(page, second.name).first().click()
  await expect(name).toHaveValue(second.name)
  await page.getByRole('button', { name: 'Copy link' }).click()
  await expect(page.getByRole('region', { name: 'Notifications' }).getByText('Link to the epic copied')).toBeVisible()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  expect(copied).toBe(second.app_url)

  // Pasted into the palette: one thing to do, open it.
  await goTo(page, 'Epics')
  await epicRow(page, first.name).first().click()
  await expect(name).toHaveValue(first.name)
  await page.keyboard.press('Control+k')
  const box = page.getByLabel('Search or run a command', { exact: true })
  await box.press('Control+v')
  const palette = page.getByRole('dialog').filter({ has: page.getByRole('combobox') })
  await expect(palette.getByRole('option')).toHaveCount(1)
  await expect(palette.getByRole('option').first()).toContainText(`Open epic ${second.id}`)
  await box.press('Enter')
  await expect(name).toHaveValue(second.name)

  // A doc's link (Outpost's own) pasted into the epic list's search opens the doc, and leaves the search as it was.
  const doc = (await v4All(service.v4(), '/documents'))[0]
  await goTo(page, 'Docs')
  await page.getByRole('option').filter({ hasText: doc.title }).first().click()
  await expect(page.getByRole('heading', { name: doc.title, level: 1 })).toBeVisible()
  await page.getByRole('button', { name: 'Copy link' }).click()
  const docLink = await page.evaluate(() => navigator.clipboard.readText())
  expect(docLink).toBe(`outpost://${service.running.workspace}/doc/${doc.id}`)
  await goTo(page, 'Epics')
  const search = page.getByLabel('Search epics', { exact: true })
  await search.focus()
  await search.press('Control+v')
  await expect(page.getByRole('heading', { name: doc.title, level: 1 })).toBeVisible()
  await goTo(page, 'Epics')
  await expect(search).toHaveValue('')
})

test('an outpost:// link the OS hands over opens in the window; the browser host takes one in its address; another workspace’s link says so', async ({
  service,
  outpost,
}) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived)
  const name = page.getByRole('textbox', { name: 'Epic name' })

  // As Electron's second-instance and open-url do: the main side keeps it, the window takes it.
  expect(outpost.host.side.links.push(`outpost://${service.running.workspace}/epic/${epics[3].id}`)).toBe(true)
  await expect(name).toHaveValue(epics[3].name)

  // The browser host's form: #/open/<link>; the address goes back to a screen's.
  await page.evaluate((link) => (window.location.hash = `#/open/${encodeURIComponent(link)}`), `outpost://${service.running.workspace}/epic/${epics[4].id}`)
  await expect(name).toHaveValue(epics[4].name)
  expect(await page.evaluate(() => window.location.hash)).not.toContain('open')

  // A workspace Outpost has no account for: said, nothing else changes.
  await page.keyboard.press('Control+k')
  await page.getByLabel('Search or run a command', { exact: true }).fill('outpost://elsewhere/epic/1')
  await page.keyboard.press('Enter')
  await expect(
    page
      .getByRole('region', { name: 'Notifications' })
      .getByText('That link is to the workspace “elsewhere”, which Outpost is not signed in to', { exact: false }),
  ).toBeVisible()
  await expect(name).toHaveValue(epics[4].name)
})

/** Signed in and synced once, then no window open (as the app launched by a link): the epic at `index`. */
async function noWindowOpen({ service, outpost }: { service: LocalService; outpost: OutpostApp }, index: number) {
  const first = await outpost.open()
  await signIn(first, service)
  await waitForBootstrap(first)
  const epic = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived)[index]
  await outpost.close(first)
  // A closed page's sockets go a moment after it, and until then the main side tells it of a link too.
  await expect.poll(() => outpost.host.host.connections()).toBe(0)
  return epic
}

test('a link that arrived before the window opened is opened once it does', async ({ service, outpost }) => {
  // The app launched by a link: the main side has it before any window listens.
  const epic = await noWindowOpen({ service, outpost }, 5)
  outpost.host.side.links.push(`outpost://${service.running.workspace}/epic/${epic.id}`)
  const page = await outpost.open()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
})

test('a link that arrives as its window closes is opened once: by that window if it said so before it went, else by the next', async ({ service, outpost }) => {
  const first = await outpost.open()
  await signIn(first, service)
  await waitForBootstrap(first)
  const epic = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived)[6]
  const link = `outpost://${service.running.workspace}/epic/${epic.id}`
  // Which window says it opened the link (the main side then forgets it).
  const table = outpost.host.side.table
  const opened = table['outpost:links.opened']
  const openedBy: string[] = []
  table['outpost:links.opened'] = async (request, from) => {
    openedBy.push(from ?? 'nobody')
    return opened(request, from)
  }
  // The window closes as the link comes: it may be gone before it hears, take it and go before it opens it, or open it
  // and say so just before it goes.
  const closing = outpost.close(first)
  outpost.host.side.links.push(link)
  await closing
  await expect.poll(() => outpost.host.host.connections()).toBe(0)
  // Nothing is left lent to a window that is gone: given back at once (not after the loan's time), or done with.
  expect(outpost.host.side.links.lent()).toEqual([])
  const saidBeforeGoing = openedBy.length

  const page = await outpost.open()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  if (saidBeforeGoing === 0) {
    await expect(name).toHaveValue(epic.name, { timeout: LINK_LOAN_MS / 3 })
    await expect.poll(() => openedBy).toHaveLength(1)
  } else {
    await expect(page.getByRole('listbox', { name: /^Epics/ })).toBeVisible()
    await expect(name).toHaveCount(0)
  }
  // Opened once: nothing waiting or lent (it would open the epic again over the docs).
  await goTo(page, 'Docs')
  expect(outpost.host.side.links.lent()).toEqual([])
  expect(outpost.host.side.links.take()).toEqual([])
  expect(openedBy).toHaveLength(1)
})
