// Defects a new user found, each as the person meets it.
import { epicRow, expect, goTo, openPendingPanel, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('the epic list: a long name is cut with its whole text on hover, the row keeps its chips and date; an empty search reads right', async ({
  service,
  outpost,
}) => {
  const long = `A very long epic name that goes on ${'and on '.repeat(30)}until the end`.slice(0, 250)
  const made = (await service.v4().post('/epics', { name: long, team_ids: [] })).body
  expect(made.name).toBe(long)
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const row = epicRow(page, long).first()
  await expect(row).toBeVisible()
  await expect(row.locator('.name')).toHaveAttribute('title', long)
  // The date is still inside the row, at its right end.
  const rowBox = (await row.boundingBox())!
  const updated = (await row.locator('.updated').boundingBox())!
  expect(updated.x + updated.width).toBeLessThanOrEqual(rowBox.x + rowBox.width)
  expect(updated.width).toBeGreaterThan(20)

  await page.getByRole('searchbox').first().fill('zzqqxxnothing')
  await expect(page.getByText('Nothing matches “zzqqxxnothing” among active epics.')).toBeVisible()
})

test('markdown tables keep their column alignment in the doc reader and the editor preview', async ({ service, outpost }) => {
  const content = '# Prices\n\n| Item | Price |\n|:-----|------:|\n| Tea | 3.50 |\n| Cake | 12.00 |\n'
  const doc = (await service.v4().post('/documents', { title: 'Price list', content, content_format: 'markdown' })).body
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await page.goto(`${page.url().split('#')[0]}#/docs/${doc.id}`)
  const price = page.locator('.prose td').filter({ hasText: '12.00' }).first()
  await expect(price).toBeVisible()
  // Looked up at each try: the reader renders the doc again when its details come (opening it loads them), and a
  // cell read as it is replaced has no style at all.
  await expect(price).toHaveCSS('text-align', /right$/)
  await page.keyboard.press('e')
  const preview = page.locator('.preview td, .prose td').filter({ hasText: '3.50' }).last()
  await expect(preview).toBeVisible()
  // Asked again until it holds: the reader's cell may be the last one found while the editor replaces it.
  await expect.poll(() => preview.evaluate((td) => getComputedStyle(td).textAlign)).toMatch(/right$/)
})

test('the state picker is a single choice in the workflow’s order', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const states = (await v4All(service.v4(), '/epic-workflow/states')).sort((a, b) => a.position - b.position)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
  await goTo(page, 'Epics')
  await epicRow(page, epics[0].name).first().click()
  await page.getByRole('button', { name: 'Epic state' }).click()
  const picker = page.getByRole('listbox', { name: 'Epic state' })
  await expect(picker).toHaveAttribute('aria-multiselectable', 'false')
  await expect(picker.getByRole('checkbox')).toHaveCount(0)
  await expect(picker.getByRole('option')).toHaveText(states.map((s) => new RegExp(s.name)))
})

test('an epic changed offline comes first among the last updated, as it was changed last', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const epics = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
  const older = epics[5]
  await service.stop()
  await epicRow(page, older.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill(`${older.name} (renamed offline)`)
  await name.press('Enter')
  await page.keyboard.press('Escape')
  await expect(
    page
      .getByRole('listbox', { name: /^Epics/ })
      .getByRole('option')
      .first(),
  ).toContainText(`${older.name} (renamed offline)`)
})

test('rich text pasted into a doc becomes Markdown, with no tags and no script text', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Docs')
  await page.getByRole('button', { name: 'New doc', exact: true }).click()
  const content = page.getByRole('form', { name: 'New doc' }).getByRole('textbox', { name: 'Doc content' })
  await content.focus()
  await content.evaluate((el) => {
    const data = new DataTransfer()
    data.setData(
      'text/html',
      '<h2>Plan</h2><p>Ship the <b>offline</b> editor <a href="https://example.com">soon</a>.</p><script>alert("pasted")</script><ul><li>one</li><li>two</li></ul>',
    )
    data.setData('text/plain', 'Plan Ship the offline editor soon. one two')
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
  })
  await expect(content).toHaveValue(/## Plan/)
  const value = await content.inputValue()
  expect(value).toContain('**offline**')
  expect(value).toContain('[soon](https://example.com)')
  expect(value).toMatch(/- +one/)
  expect(value).not.toMatch(/<[a-z]/i)
  expect(value).not.toContain('alert')
})

test('Settings lists the main keys with this platform’s modifier', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Settings')
  const keys = page.getByRole('region', { name: 'Keyboard' }).or(page.locator('section[aria-labelledby="keys-title"]'))
  await expect(keys.getByText('Command palette and search everything')).toBeVisible()
  await expect(keys.locator('kbd').filter({ hasText: 'Ctrl' }).first()).toBeVisible()
  await expect(keys).not.toContainText('⌘')
  await keys.scrollIntoViewIfNeeded()
  await page.screenshot({ path: info.outputPath('settings-keys.png') })
})

test('Browse: one main landmark, segments of one width, and a progress bar that says what its parts are', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Objectives')
  // The screen comes in its own chunk: its tabs and rows are measured once they are there.
  await expect(page.locator('.tabs').getByRole('link', { name: /^(Objectives|Categories|Teams)$/ })).toHaveCount(3)
  await expect(page.locator('.row .progress').first()).toBeVisible()
  await expect(page.getByRole('main')).toHaveCount(1)
  const widths = await page
    .getByRole('link', { name: /^(Objectives|Categories|Teams)$/ })
    .evaluateAll((links) => links.filter((a) => a.closest('.tabs')).map((a) => Math.round(a.getBoundingClientRect().width)))
  expect(widths).toHaveLength(3)
  expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1)
  // A bar with an in-progress part says so beside it; one without does not.
  const rows = await page.locator('.row').evaluateAll((els) =>
    els
      .filter((r) => r.querySelector('.progress'))
      .map((r) => ({
        started: parseFloat((r.querySelector('.progress .started') as HTMLElement).style.width),
        text: r.querySelector('.pct')?.textContent ?? '',
      })),
  )
  expect(rows.length).toBeGreaterThan(0)
  for (const row of rows) expect(/ in progress$/.test(row.text), row.text).toBe(row.started > 0)
})

test('at 800 × 600 with the panel open, notices stack as one column of one width, clear of the rail, the panel and each other', async ({
  service,
  outpost,
}, info) => {
  const page = await outpost.open()
  await page.setViewportSize({ width: 800, height: 600 })
  await signIn(page, service)
  await waitForBootstrap(page)
  const epic = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  const panel = await openPendingPanel(page)
  await epicRow(page, epic.name).first().click()
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
  // Three notices of different lengths at once. With the pointer over the newest (the stack grows upwards), none goes
  // while the next writes are made from the keyboard, however long they take.
  const region = page.getByRole('region', { name: 'Notifications' })
  const shown = region.getByRole('status')
  // Exact names: "Archive" would also match "Unarchive" before the button has turned.
  await page.getByRole('button', { name: 'Archive', exact: true }).click()
  await expect(shown).toHaveCount(1)
  const newest = (await shown.last().boundingBox())!
  await page.mouse.move(newest.x + newest.width / 2, newest.y + newest.height - 4)
  await page.getByRole('button', { name: 'Unarchive', exact: true }).press('Enter')
  await page.getByRole('button', { name: 'Archive', exact: true }).press('Enter')
  await expect(shown).toHaveCount(3)
  const boxes = await shown.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON() as DOMRect))
  const rail = (await page.getByRole('navigation', { name: 'Outpost' }).boundingBox())!
  const panelBox = (await panel.boundingBox())!
  for (const b of boxes) {
    expect(Math.round(b.width), 'one width').toBe(Math.round(boxes[0].width))
    expect(b.x, 'clear of the rail').toBeGreaterThanOrEqual(rail.x + rail.width)
    expect(b.x + b.width, 'clear of the panel').toBeLessThanOrEqual(panelBox.x)
  }
  for (let i = 1; i < boxes.length; i++) expect(boxes[i].y, 'below the one before').toBeGreaterThanOrEqual(boxes[i - 1].y + boxes[i - 1].height)
  await page.screenshot({ path: info.outputPath('notices-small-window.png') })
  // The pointer gone, so are they, after their moment.
  await page.mouse.move(10, 10)
  await expect(shown).toHaveCount(0, { timeout: 10_000 })
  await page.getByRole('button', { name: 'Unarchive', exact: true }).click()
})

test('in the one-column layout, the dot of a name not yet synced is inside the window', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await page.setViewportSize({ width: 800, height: 600 })
  await signIn(page, service)
  await waitForBootstrap(page)
  const epic = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
  await service.stop()
  await epicRow(page, epic.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await name.fill(`${epic.name} (renamed offline)`)
  await name.press('Enter')
  const dot = page.getByTitle('Changed here; not yet confirmed by the service').first()
  await expect(dot).toBeVisible()
  const [dotBox, mainBox, nameBox] = [(await dot.boundingBox())!, (await page.getByRole('main').boundingBox())!, (await name.boundingBox())!]
  expect(dotBox.x, 'the whole dot is inside the screen').toBeGreaterThanOrEqual(mainBox.x + 2)
  expect(dotBox.x + dotBox.width, 'left of the name').toBeLessThanOrEqual(nameBox.x)
  await page.screenshot({ path: info.outputPath('pending-dot-one-column.png') })
})

test('in a list row’s avatar stack every person’s initials are whole, the first person’s on top', async ({ service, outpost }, info) => {
  const members = (await service.v3().get('/members')).body as { id: string; profile: { name: string } }[]
  const owners = members.slice(0, 3).map((m) => m.id)
  const epic = (await service.v3().post('/epics', { name: 'Owned by three people', owner_ids: owners })).body
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const row = epicRow(page, epic.name).first()
  await expect(row).toBeVisible()
  const avatars = row.locator('.owners .avatar:not(.vacant)')
  await expect(avatars).toHaveCount(3)
  // Each avatar's letters, left and right ends of its text: the avatar itself is what is on top there.
  const covered = await avatars.evaluateAll((els) =>
    els.flatMap((el) => {
      const range = document.createRange()
      range.selectNodeContents(el)
      const text = range.getBoundingClientRect()
      const y = text.top + text.height / 2
      return [text.left + 1, text.right - 1]
        .filter((x) => !el.contains(document.elementFromPoint(x, y)))
        .map((x) => `${el.textContent?.trim()} at x ${x.toFixed(0)}`)
    }),
  )
  expect(covered, 'letters under another avatar').toEqual([])
  const order = await avatars.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().left))
  const initials = await avatars.allTextContents()
  const byPlace = initials
    .map((text, i) => ({ text: text.trim(), left: order[i] }))
    .sort((a, b) => a.left - b.left)
    .map((a) => a.text)
  const expected = owners
    .map((id) => members.find((m) => m.id === id)!.profile.name.split(/\s+/))
    .map((p) => (p.length === 1 ? p[0].slice(0, 2) : p[0][0] + p.at(-1)![0]).toUpperCase())
  expect(byPlace, 'in the owners’ order, left to right').toEqual(expected)
  await row.screenshot({ path: info.outputPath('avatar-stack.png') })
})

test('a doc’s linked epic with a long name: cut with an ellipsis, whole on hover, its × beside the name, not over it', async ({ service, outpost }, info) => {
  const long = `Migrate the billing pipeline to the new ledger ${'and reconcile every account '.repeat(4)}`.trim()
  const epic = (await service.v3().post('/epics', { name: long })).body
  const doc = (await service.v4().post('/documents', { title: 'Ledger notes', content: 'Notes.', content_format: 'markdown' })).body
  expect((await service.v3().put(`/documents/${doc.id}/epics/${epic.id}`)).status).toBeLessThan(300)
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await page.goto(`${page.url().split('#')[0]}#/docs/${doc.id}`)
  const related = page.getByLabel('Related epics')
  const link = related.getByRole('link', { name: long })
  await expect(link).toBeVisible()
  await expect(link).toHaveAttribute('title', long)
  const unlink = related.getByRole('button', { name: `Unlink ${long}` })
  const [linkBox, unlinkBox, areaBox] = [(await link.boundingBox())!, (await unlink.boundingBox())!, (await related.boundingBox())!]
  expect(linkBox.x + linkBox.width, 'the × after the name').toBeLessThanOrEqual(unlinkBox.x + 0.5)
  expect(unlinkBox.x + unlinkBox.width, 'the chip inside the page').toBeLessThanOrEqual(areaBox.x + areaBox.width)
  const name = link.locator('.chip-name')
  expect(await name.evaluate((el) => [getComputedStyle(el).textOverflow, el.scrollWidth > el.clientWidth])).toEqual(['ellipsis', true])
  await related.screenshot({ path: info.outputPath('linked-epic-chip.png') })
})

test('“New doc” is the same button as “New epic”: same height and text size', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const measure = (name: string) =>
    page
      .getByRole('button', { name, exact: true })
      .first()
      .evaluate((el) => ({ height: Math.round(el.getBoundingClientRect().height), font: getComputedStyle(el).fontSize }))
  const epic = await measure('New epic')
  await goTo(page, 'Docs')
  expect(await measure('New doc')).toEqual(epic)
})

/** Holds every IndexedDB open of the page for `ms` (as a slow disk would), the request's events passed on after. */
/** Holds every IndexedDB open of the page until the test calls `window.releaseCacheOpen()`; opens after that go straight through. */
function holdCacheOpen(): void {
  const open = IDBFactory.prototype.open
  const held: (() => void)[] = []
  let released = false
  ;(window as unknown as { releaseCacheOpen: () => void }).releaseCacheOpen = () => {
    released = true
    for (const start of held.splice(0)) start()
  }
  IDBFactory.prototype.open = function (this: IDBFactory, ...args: [string, number?]) {
    if (released) return open.apply(this, args)
    const handlers: Record<string, ((event: Event) => void) | null> = {}
    let real: IDBOpenDBRequest | undefined
    const relay = (type: string) => (event: Event) => handlers[type]?.call(proxy, event)
    const proxy = new Proxy({} as IDBOpenDBRequest, {
      get: (_, key) => {
        if (typeof key === 'string' && key.startsWith('on')) return handlers[key.slice(2)] ?? null
        if (key === 'addEventListener' || key === 'removeEventListener') return () => undefined
        if (key === 'readyState') return real?.readyState ?? 'pending'
        const value = real ? Reflect.get(real, key) : undefined
        return typeof value === 'function' ? value.bind(real) : value
      },
      set: (_, key, value) => {
        if (typeof key === 'string' && key.startsWith('on')) handlers[key.slice(2)] = value
        return true
      },
    })
    held.push(() => {
      real = open.apply(this, args)
      for (const type of ['success', 'error', 'blocked', 'upgradeneeded']) (real as unknown as Record<string, unknown>)[`on${type}`] = relay(type)
    })
    return proxy
  }
}

test('while the cache opens: the status bar says so with no ✓, and the list’s placeholder rows are the rows’ own height', async ({
  service,
  outpost,
}, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const rowHeight = (await epicRow(page, /./).first().boundingBox())!.height
  // No copy of the last screen nor saved rows to paint first (the page going away keeps them: cleared as the next starts).
  await page.addInitScript(() => localStorage.clear())
  await page.addInitScript(holdCacheOpen)
  await page.reload()
  const status = page.getByRole('contentinfo', { name: 'Status' })
  await expect(status.getByText('Opening the cache…')).toBeVisible()
  await expect(status.locator('.item.sync .spin')).toBeVisible()
  expect(await status.locator('.item.sync > svg').count(), 'no ✓ beside it').toBe(0)
  const bones = page.locator('.skeleton .bone-row')
  await expect(bones.first()).toBeVisible()
  const boxes = await bones.evaluateAll((els) => els.slice(0, 3).map((el) => el.getBoundingClientRect().top))
  expect(boxes[1] - boxes[0]).toBe(rowHeight)
  expect(boxes[2] - boxes[1]).toBe(rowHeight)
  await page.screenshot({ path: info.outputPath('opening-the-cache.png') })
  await page.evaluate(() => (window as unknown as { releaseCacheOpen: () => void }).releaseCacheOpen())
  await expect(epicRow(page, /./).first()).toBeVisible({ timeout: 15_000 })
  await expect(status.getByText(/^Synced (just now|\d)/)).toBeVisible()
})
