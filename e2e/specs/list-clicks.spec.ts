// A row clicked the moment a list stops scrolling opens. The lists are
// virtual (virtua), which turns pointer events off on the rows while a list
// scrolls and for ~150 ms after; a click then (a wheel turned and a row
// clicked at once, a trackpad's glide stopped by the click, a row scrolled
// into view and clicked) went to the list, not the row, and was lost.
import type { Locator, Page } from '@playwright/test'
import { expect, goTo, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

/**
 * Turns the mouse wheel over `list` and, as soon as it has scrolled, clicks the
 * row then under the pointer (the list's middle), as a person's mouse does: no
 * waiting for the list to settle. Returns the row's title (its `titleSelector` part).
 */
async function scrollAndClickAtOnce(page: Page, list: Locator, titleSelector: string): Promise<string> {
  const box = (await list.boundingBox())!
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  const scroller = list.locator(':scope > div').first()
  const before = await scroller.evaluate((element) => element.scrollTop)
  await page.mouse.wheel(0, 240)
  await expect.poll(() => scroller.evaluate((element) => element.scrollTop), { intervals: [5] }).toBeGreaterThan(before)
  const row = await list.evaluate((element, titleSelector) => {
    const middle = element.getBoundingClientRect().top + element.clientHeight / 2
    const found = [...element.querySelectorAll<HTMLElement>('[role="option"]')].find((option) => {
      const rect = option.getBoundingClientRect()
      return rect.top <= middle && middle < rect.bottom
    })!
    const rect = found.getBoundingClientRect()
    return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2, title: found.querySelector(titleSelector)?.textContent?.trim() ?? '' }
  }, titleSelector)
  await page.mouse.click(row.x, row.y)
  expect(row.title).not.toBe('')
  return row.title
}

test('an epic or a doc clicked as its list stops scrolling opens', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const epics = page.getByRole('listbox', { name: /^Epics/ })
  await expect(epics.getByRole('option').first()).toBeVisible()
  const epic = await scrollAndClickAtOnce(page, epics, '.name')
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic)

  await goTo(page, 'Docs')
  const docs = page.getByRole('listbox', { name: /^Docs/ })
  await expect(docs.getByRole('option').first()).toBeVisible()
  const doc = await scrollAndClickAtOnce(page, docs, '.doc-title')
  await expect(page.getByRole('heading', { name: doc, level: 1 })).toBeVisible()
})
