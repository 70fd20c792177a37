// What a screen reader user relies on that axe cannot see:
// - long lists drawn a window at a time say where an option is in the whole
//   list ("3 of 90"), not in the rows drawn;
// - the live regions say each event once: the first download begun and done
//   (never its progress), offline and back, what a replay sent, a change the
//   service refused, an upload's end; a routine sync says nothing;
// - the epic list, an epic and a doc read as they should (ARIA snapshots,
//   reviewed as heard).
import type { Locator, Page } from '@playwright/test'
import { heardIn, recordLiveRegions } from '../fixtures/a11y.ts'
import {
  dropFiles,
  epicRow,
  expect,
  expectOffline,
  expectOnline,
  goTo,
  pendingButton,
  renameEpic,
  signIn,
  test,
  waitForBootstrap,
} from '../fixtures/outpost.ts'

/** Each option's place and the list's size, as a screen reader reads them. */
async function places(options: Locator): Promise<{ at: number; of: number }[]> {
  return options.evaluateAll((els) => els.map((el) => ({ at: Number(el.getAttribute('aria-posinset')), of: Number(el.getAttribute('aria-setsize')) })))
}

/** The drawn options say their places in the whole list: consecutive, from `first`, all of `total`. */
async function expectPlaces(options: Locator, first: number, total: number): Promise<void> {
  const seen = await places(options)
  expect(seen.length, 'some rows are drawn').toBeGreaterThan(0)
  expect(seen.length, 'only a window of the list is drawn').toBeLessThan(total)
  expect(seen).toEqual(seen.map((_, i) => ({ at: first + i, of: total })))
}

// Big enough that a list draws only a window of it; small enough that the search index never vacuums (see the report).
const SEED = { epics: 90, docs: 45, files: 0 }

test.describe(`a workspace of ${SEED.epics} epics and ${SEED.docs} docs`, () => {
  test.use({ serviceOptions: { seed: SEED } })

  test('the long lists say where an option is in the whole list, not in the rows drawn', async ({ service, outpost }) => {
    test.setTimeout(150_000)
    const page = await outpost.open()
    await signIn(page, service)
    await waitForBootstrap(page)
    const epics = ((await service.v3().get('/epics')).body as { archived: boolean }[]).filter((e) => !e.archived).length

    const list = page.getByRole('listbox', { name: /^Epics/ })
    const rows = list.getByRole('option')
    // The list is read from the cache a part at a time after the download: all of it, then.
    await expect(rows.first()).toHaveAttribute('aria-setsize', String(epics))
    await expectPlaces(rows, 1, epics)
    // At the end of the list: the last drawn row is the last of all.
    await list.focus()
    await page.keyboard.press('End')
    await expect(rows.last()).toHaveAttribute('aria-posinset', String(epics))
    await expectPlaces(rows, Number(await rows.first().getAttribute('aria-posinset')), epics)
    // A search: the places are among what it found.
    // A number from an epic's name ("Epic 1521"): the epics that have it.
    const word = ((await rows.first().locator('.name').textContent()) ?? '').split(' ').at(-1)!
    await page.getByRole('searchbox', { name: 'Search epics' }).fill(word)
    // Heard as "12 of 90 epics" (the word is for a screen reader only).
    const count = page.getByText(new RegExp(`^[\\d,]+ of ${epics.toLocaleString('en')} epics$`))
    await expect(count).toBeVisible()
    const found = Number((await count.textContent())!.split(' of ')[0].replace(/\D/g, ''))
    expect(found).toBeLessThan(epics)
    await expect(rows.first()).toHaveAttribute('aria-setsize', String(found))

    await goTo(page, 'Docs')
    // Those not archived: as many as the list's name says.
    const docList = page.getByRole('listbox', { name: /^Docs, \d+ shown$/ })
    const docs = docList.getByRole('option')
    await expect(docs.first()).toBeVisible()
    const shown = Number((await docList.getAttribute('aria-label'))!.replace(/\D/g, ''))
    expect(shown).toBeGreaterThan(30)
    await expectPlaces(docs, 1, shown)

    // A picker's options say their place among all it offers (it draws 100 at most: type to find the rest).
    await docs.first().click()
    await page.getByRole('button', { name: /^Link (to an )?epic$/ }).click()
    const picker = page.getByRole('listbox', { name: 'Link to an epic' }).getByRole('option')
    await expect(picker.first()).toHaveAttribute('aria-setsize', String(epics))
    await expect(picker.last()).toHaveAttribute('aria-posinset', String(await picker.count()))
  })
})

/** How many of the things said hold these words. */
const times = (heard: string[], words: string) => heard.filter((text) => text.includes(words)).length

/** Gathers what the page's live regions say until these words are among it (they come a moment after what shows them). */
async function hear(page: Page, heard: string[], words: string): Promise<void> {
  await expect.poll(async () => (heard.push(...(await heardIn(page))), heard.join('\n'))).toContain(words)
}

test.describe(`a workspace of ${SEED.epics} epics`, () => {
  test.use({ serviceOptions: { seed: SEED } })

  test('its first download is said done, once, and nothing of its progress', async ({ service, outpost }) => {
    const page = await outpost.open()
    await page.addInitScript(recordLiveRegions)
    await page.reload()
    await signIn(page, service)
    await waitForBootstrap(page)
    const heard: string[] = []
    await hear(page, heard, 'Workspace downloaded.')
    // Begun (unless it was done before the status bar looked: a small workspace downloads in a moment), then done.
    expect(times(heard, 'Downloading the workspace to this computer.'), heard.join('\n')).toBeLessThanOrEqual(1)
    expect(times(heard, 'Workspace downloaded.'), heard.join('\n')).toBe(1)
    // Its kinds one after the other, the epics a page at a time, the list's count as it fills: none of it read out.
    expect(
      heard.filter((text) => /\d/.test(text)),
      'no numbers while it downloads',
    ).toEqual([])
  })
})

test.describe('with a service that takes files of 4 KB at most', () => {
  test.use({ serviceOptions: { seed: 'demo', maxFileBytes: 4096 } })

  test('the live regions say each event once: offline and back, a replay, a refusal, an upload’s end; a routine sync says nothing', async ({
    service,
    outpost,
  }) => {
    const page = await outpost.open()
    await page.addInitScript(recordLiveRegions)
    await page.reload()
    await signIn(page, service)
    await waitForBootstrap(page)
    let heard: string[] = []
    await hear(page, heard, 'Workspace downloaded.')

    // A routine sync, bringing someone else's change: nothing said.
    const [first] = ((await service.v3().get('/epics')).body as { id: number; name: string; archived: boolean }[]).filter((e) => !e.archived)
    const theirs = `${first.name}, renamed by someone else`
    await service.v3(service.tokens.member).put(`/epics/${first.id}`, { name: theirs })
    outpost.host.side.schedule.now('focus')
    await expect(epicRow(page, theirs)).toHaveCount(1, { timeout: 20_000 })
    expect(await heardIn(page)).toEqual([])

    // Offline, a change waits; back, it is sent.
    heard = []
    await service.stop()
    await renameEpic(page, theirs, 'Renamed here, offline')
    await expectOffline(page)
    await service.start()
    outpost.networkChanged()
    await expectOnline(page)
    await expect(pendingButton(page)).toHaveText('All changes saved', { timeout: 20_000 })
    await hear(page, heard, '1 change sent.')
    expect(times(heard, 'Offline. Changes you make are kept on this computer and sent when you are back.'), heard.join('\n')).toBe(1)
    expect(times(heard, 'Back online: sending 1 change.'), heard.join('\n')).toBe(1)
    expect(times(heard, '1 change sent.'), heard.join('\n')).toBe(1)

    // A change the service refuses: said with its words.
    heard = []
    await epicRow(page, 'Renamed here, offline').click()
    const name = page.getByRole('textbox', { name: 'Epic name' })
    await name.fill('x'.repeat(257))
    await name.press('Enter')
    await expect(pendingButton(page)).toHaveText(/1 failed/)
    await hear(page, heard, 'was refused')
    expect(heard.filter((text) => text.includes('was refused'))).toEqual([
      `Edit epic “${'x'.repeat(79)}…” was refused: Too long: name must be at most 256 characters. Fix, retry or discard it in Pending changes.`,
    ])

    // Uploads: one that lands, then one the service refuses; each end said once, the refusal by the tray alone.
    heard = []
    await goTo(page, 'Files')
    await dropFiles(page, [{ name: 'notes.txt', type: 'text/plain', text: 'small enough' }])
    await expect(page.getByRole('region', { name: 'Uploads' }).getByRole('button', { name: '1 file uploaded' })).toBeVisible({ timeout: 30_000 })
    await dropFiles(page, [{ name: 'too-big.txt', type: 'text/plain', text: 'x'.repeat(5000) }])
    await expect(page.getByRole('region', { name: 'Uploads' }).getByRole('button', { name: '1 file not uploaded' })).toBeVisible({ timeout: 30_000 })
    await expect(pendingButton(page)).toHaveText(/2 failed/)
    await hear(page, heard, '“too-big.txt” was not uploaded')
    expect(times(heard, '1 file uploaded'), heard.join('\n')).toBe(1)
    expect(
      times(heard, '“too-big.txt” was not uploaded: file0 ("too-big.txt") is larger than the 4096 bytes this service accepts per file.'),
      heard.join('\n'),
    ).toBe(1)
    expect(times(heard, 'was refused'), 'a refused upload is said once, by the upload tray').toBe(0)
  })
})
