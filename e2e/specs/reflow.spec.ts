// Text at 200% and reflow (WCAG 1.4.4, 1.4.10). Outpost zooms the whole window
// (View > Zoom In, Ctrl+=): a 1280 x 800 window at 200% lays out as 640 x 400
// CSS px at twice the pixels, and at 400% as 320 px wide. At both, on every
// main screen: nothing runs off the side (the page and its panes scroll only
// up and down), and what a person needs there (its controls, the open item's
// name and actions) is on screen once scrolled to, inside the window and
// not covered; the status bar's words are whole.
import type { Locator } from '@playwright/test'
import { expectReachable, sidewaysOverflow } from '../fixtures/a11y.ts'
import { epicRow, expect, goTo, pendingButton, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

const ZOOMS = [
  { zoom: '200%', viewport: { width: 640, height: 400 } },
  { zoom: '400%', viewport: { width: 320, height: 480 } },
]

for (const { zoom, viewport } of ZOOMS) {
  test.describe(`a 1280 px window at ${zoom} (${viewport.width} x ${viewport.height} CSS px)`, () => {
    test.use({ viewport, deviceScaleFactor: 2 })

    test('every main screen reflows: nothing runs off the side, nothing a person needs is lost', async ({ service, outpost }, info) => {
      test.setTimeout(120_000)
      const page = await outpost.open()
      const tag = `zoom-${viewport.width}x${viewport.height}`
      const found: string[] = []
      const check = async (what: string, controls: Locator[]) => {
        for (const line of await sidewaysOverflow(page)) found.push(`${what}: ${line} runs off the side`)
        // The status bar's words whole, not cut short ("Synce…"); words only for screen readers are 1 px wide on purpose.
        const cut = await page.evaluate(() =>
          Array.from(document.querySelectorAll<HTMLElement>('footer *'))
            .filter((el) => el.checkVisibility() && el.clientWidth > 1 && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
            .map((el) => `“${el.textContent?.trim()}”`),
        )
        for (const words of cut) found.push(`${what}: the status bar cuts ${words} short`)
        for (const control of controls) await expectReachable(control)
      }
      await check('sign-in', [page.getByLabel('Service address'), page.getByLabel('API token'), page.getByRole('button', { name: 'Sign in' })])
      await signIn(page, service)
      await waitForBootstrap(page)
      const [epic] = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
      const content = page.getByRole('main', { name: 'Content' })
      const nav = page.getByRole('navigation', { name: 'Outpost' })
      const always = [nav.getByRole('link', { name: 'Epics', exact: true }), nav.getByRole('link', { name: 'Settings', exact: true }), pendingButton(page)]

      await check('epics', [
        content.getByRole('searchbox', { name: 'Search epics' }),
        content.getByRole('button', { name: 'New epic' }),
        content.getByRole('button', { name: 'Objective', exact: true }),
        epicRow(page, epic.name).first(),
        ...always,
      ])
      await screens(page, info, `${tag}-epics`)
      await epicRow(page, epic.name).first().click()
      await check('an epic', [
        content.getByRole('textbox', { name: 'Epic name' }),
        content.getByRole('button', { name: 'Archive' }),
        content.getByRole('button', { name: 'Delete', exact: true }).first(),
        content.getByRole('complementary', { name: 'Epic properties' }).getByRole('button', { name: /^Epic state/ }),
        content.getByRole('button', { name: 'Update health' }),
        content.getByRole('textbox', { name: 'New comment' }),
      ])
      await expect(content.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
      await content.getByRole('textbox', { name: 'Epic name' }).scrollIntoViewIfNeeded()
      await screens(page, info, `${tag}-epic`)

      await goTo(page, 'Docs')
      await check('docs', [
        content.getByRole('searchbox', { name: 'Search docs' }),
        content.getByRole('button', { name: 'New doc', exact: true }),
        content.getByRole('listbox', { name: /^Docs/ }).getByRole('option').first(),
      ])
      await content.getByRole('listbox', { name: /^Docs/ }).getByRole('option').first().click()
      await check('a doc', [
        content.getByRole('heading', { level: 1 }).first(),
        content.getByRole('button', { name: 'Edit', exact: true }),
        content.getByRole('button', { name: 'Delete doc' }),
      ])
      await screens(page, info, `${tag}-doc`)

      await goTo(page, 'Files')
      const layout = content.getByRole('radiogroup', { name: 'Layout' })
      await check('files', [
        content.getByRole('searchbox', { name: 'Search files' }),
        content.getByRole('button', { name: 'Upload' }),
        content.getByRole('button', { name: 'Add link' }),
        layout.getByRole('radio', { name: 'List' }),
        content
          .getByRole('listbox', { name: /^Files/ })
          .getByRole('option')
          .first(),
      ])
      await screens(page, info, `${tag}-files`)

      for (const screen of ['Objectives', 'Categories', 'Teams'] as const) {
        await goTo(page, screen)
        const tabs = content.getByRole('navigation', { name: 'What to browse' })
        const first = content.getByRole('listbox', { name: screen.toLowerCase() }).getByRole('option').first()
        await check(screen, [tabs.getByRole('link', { name: 'Objectives' }), tabs.getByRole('link', { name: 'Teams' }), first])
        // The chosen one's details are on the screen too, not squeezed to nothing beside the list.
        const name = ((await first.locator('.name').textContent()) ?? '').trim()
        await first.click()
        const details = content.getByRole('region', { name: /details$/ })
        await check(`${screen}, one open`, [details.getByRole('heading', { name, level: 2 })])
        expect((await details.boundingBox())?.width ?? 0, `${screen}: the details have the screen's width`).toBeGreaterThanOrEqual(viewport.width / 2)
        if (screen === 'Objectives') await screens(page, info, `${tag}-objective`)
      }

      await goTo(page, 'Settings')
      await check('settings', [content.getByRole('heading', { name: 'Settings', level: 1 }), content.getByRole('button', { name: 'Sign out' })])
      expect(found).toEqual([])
    })
  })
}
