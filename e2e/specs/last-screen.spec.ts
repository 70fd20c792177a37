// A start paints the window's last screen before the app is evaluated
// (first-paint/screen-copy.ts): a copy of the plain epic list, kept in localStorage,
// inert and hidden from assistive technology, which the mounting app replaces
// in the same task. Only the plain list is kept; a changed copy, or a start at
// another screen, paints nothing.
import type { Page } from '@playwright/test'
import { expect, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

interface Seen {
  painted: boolean
  /** A frame was drawn with the copy in the document. */
  framed: boolean
  inert: boolean
  hidden: boolean
  rowText: string
  /** The copy and the live list were in the document together when the page's observers ran. */
  together: boolean
  removed: boolean
  /** The first frame without the copy had the live sidebar and status bar (the app mounted whole in the copy's place). */
  whole: boolean
}

/** Installed before the page's scripts: what became of the last screen's copy. */
function recordLastScreen(): void {
  const seen: Seen = { painted: false, framed: false, inert: false, hidden: false, rowText: '', together: false, removed: false, whole: false }
  ;(window as unknown as { __lastScreen: Seen }).__lastScreen = seen
  new MutationObserver(() => {
    const copy = document.querySelector<HTMLElement>('.last-screen')
    if (copy && !seen.painted) {
      seen.painted = true
      seen.inert = copy.inert
      seen.hidden = copy.getAttribute('aria-hidden') === 'true'
      seen.rowText = copy.querySelector('[id^="last-screen-epic-row-"]')?.textContent ?? ''
      requestAnimationFrame(() => (seen.framed = copy.isConnected))
    }
    if (seen.painted && !copy && !seen.removed) {
      seen.removed = true
      requestAnimationFrame(
        () => (seen.whole = !!document.querySelector('nav[aria-label="Outpost"]') && !!document.querySelector('footer[aria-label="Status"]')),
      )
    }
    if (copy && document.querySelector('[id^="epic-row-"]')) seen.together = true
  }).observe(document, { childList: true, subtree: true })
}

const seenOf = (page: Page) => page.evaluate(() => (window as unknown as { __lastScreen: Seen }).__lastScreen)

/** The kept copy's key and value. */
const keptCopy = (page: Page) =>
  page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => k.startsWith('outpost:last-screen:'))
    return key ? { key, value: localStorage.getItem(key)! } : undefined
  })

async function signedInWithCopy(page: Page, service: Parameters<typeof signIn>[1]) {
  await signIn(page, service)
  await waitForBootstrap(page)
  await expect.poll(async () => (await keptCopy(page))?.value ?? '', { timeout: 15_000 }).toContain('last-screen-epic-row-')
  return (await keptCopy(page))!
}

test('a reopened window paints its last epic list before the app runs, and the app replaces it', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  const { value } = await signedInWithCopy(page, service)
  const newest = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]

  // The copy is cleaned as it is kept: its ids are its own, nothing in it loads or runs.
  const { html } = JSON.parse(value) as { html: string }
  expect(html).toContain(newest.name)
  expect(html).not.toMatch(/\sid="epic-row-/)
  expect(html).not.toMatch(/<(script|img|iframe)\b|\son[a-z]+=/i)

  await page.addInitScript(recordLastScreen)
  // The app's code held back: the window shows the copy alone (a screenshot to look at), then the app.
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/assets\/app-[^/]*\.js$/, async (route) => {
    await held
    await route.continue()
  })
  await page.reload({ waitUntil: 'commit' })
  await expect(page.locator('.last-screen').getByText(newest.name).first()).toBeVisible()
  // It says nothing of the present, which may have changed since (online, last synced): the live status bar does.
  const copiedStatus = page.locator('.last-screen footer[aria-label="Status"]')
  await expect(copiedStatus).toBeVisible()
  await expect(copiedStatus.locator('[data-now]').first()).toBeAttached()
  for (const now of await copiedStatus.locator('[data-now]').all()) await expect(now).toBeHidden()
  await expect(copiedStatus.getByText(/Online|Offline|Synced/).filter({ visible: true })).toHaveCount(0)
  await page.screenshot({ path: info.outputPath('last-screen-copy.png') })
  expect((await seenOf(page)).removed).toBe(false)
  release()
  await expect(page.getByRole('option').filter({ hasText: newest.name }).first()).toBeVisible()
  await expect(page.getByRole('contentinfo', { name: 'Status' }).getByText(/^Synced (just now|\d)/)).toBeVisible()
  await page.screenshot({ path: info.outputPath('last-screen-live.png') })
  const seen = await seenOf(page)
  expect(seen).toMatchObject({ painted: true, framed: true, inert: true, hidden: true, together: false, removed: true, whole: true })
  expect(seen.rowText).toContain(newest.name)
  // Gone once the app is up: no copy, no id twice.
  expect(await page.locator('.last-screen').count()).toBe(0)
  const ids = await page.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id))
  expect(new Set(ids).size).toBe(ids.length)
  expect(await page.evaluate(() => performance.getEntriesByName('outpost:last-screen').length)).toBe(1)
})

test('only the plain list is kept, and a changed copy or another screen paints nothing', async ({ service, outpost }) => {
  const page = await outpost.open()
  const { key, value } = await signedInWithCopy(page, service)

  // With the palette open, or a search typed, the screen is not what a start shows: the copy stays as it was.
  await page.keyboard.press('Control+k')
  await expect(page.getByLabel('Search or run a command', { exact: true })).toBeVisible()
  await page.waitForTimeout(2_500)
  await page.keyboard.press('Escape')
  await page.getByLabel('Search epics', { exact: true }).fill('epic')
  await page.waitForTimeout(2_500)
  expect((await keptCopy(page))?.value).toBe(value)
  await page.getByLabel('Search epics', { exact: true }).fill('')
  // Nor with another sort: a start lists the latest updated first.
  const sort = page.getByRole('combobox', { name: /sort/i })
  await sort.selectOption({ label: 'Name' })
  await page.waitForTimeout(2_500)
  expect((await keptCopy(page))?.value).toBe(value)
  await sort.selectOption({ label: 'Last updated' })

  await page.addInitScript(recordLastScreen)

  // A start at another screen does not paint the epic list.
  await page.evaluate(() => (location.hash = '#/docs'))
  await page.reload()
  await expect(page.getByRole('heading', { name: 'Docs' })).toBeVisible()
  expect((await seenOf(page)).painted).toBe(false)

  // A copy changed since it was kept (here: an image that would run script) is not painted, and nothing in it runs.
  // It is changed as the next page starts, once: the page going away keeps its own screen.
  const tampered = JSON.stringify({ ...JSON.parse(value), html: `<img src="/nothing.png" onerror="window.__ran = true">${JSON.parse(value).html}` })
  await page.addInitScript(
    ([k, v]) => {
      if (sessionStorage.getItem('tampered')) return
      sessionStorage.setItem('tampered', 'yes')
      localStorage.setItem(k, v)
    },
    [key, tampered],
  )
  await page.evaluate(() => (location.hash = '#/epics'))
  const requested: string[] = []
  page.on('request', (request) => requested.push(request.url()))
  await page.reload()
  await expect(page.locator('[id^="epic-row-"]').first()).toBeVisible()
  expect((await seenOf(page)).painted).toBe(false)
  expect(await page.evaluate(() => (window as unknown as { __ran?: boolean }).__ran)).toBeUndefined()
  expect(requested.filter((url) => url.includes('nothing.png'))).toEqual([])
})
