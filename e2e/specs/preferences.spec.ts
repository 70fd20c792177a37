// The system's display preferences, as Playwright emulates them: with
// "reduce motion" nothing on the screens moves (panels, the palette, the
// download's bar and spinners stand still); with forced colours (Windows high
// contrast) every Tab stop still shows its ring, an epic's state icon still
// tells not started, started and done apart, and the chosen segment of a
// switch still shows which it is.
import type { Page } from '@playwright/test'
import { inkOf, tabTour } from '../fixtures/a11y.ts'
import { epicRow, expect, goTo, openPendingPanel, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

/** The animations and transitions that move now: running, and longer than a frame. */
async function moving(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    document
      .getAnimations()
      .filter((a) => a.playState === 'running' && Number(a.effect?.getComputedTiming().duration ?? 0) > 16)
      .map((a) => {
        const target = (a.effect as KeyframeEffect | null)?.target as Element | null
        return `${(a as CSSAnimation).animationName ?? (a as CSSTransition).transitionProperty ?? 'animation'} on ${target?.tagName.toLowerCase()}.${String(target?.className).split(' ')[0]}`
      }),
  )
}

test('with reduce motion, nothing moves: the first download, the pending panel, the palette, a dialog', async ({ service, outpost }) => {
  const page = await outpost.open()
  await page.emulateMedia({ reducedMotion: 'reduce' })
  const found: string[] = []
  const look = async (what: string) => {
    for (const line of await moving(page)) found.push(`${what}: ${line}`)
  }
  await page.getByLabel('Service address').fill(service.baseUrl)
  await page.getByLabel('API token').fill(service.tokens.admin)
  await page.getByRole('button', { name: 'Sign in' }).click()
  // While the first download runs: its bar and spinner.
  await expect(page.getByRole('heading', { name: 'Epics', level: 1 })).toBeVisible()
  await look('the first download')
  await waitForBootstrap(page)
  await openPendingPanel(page)
  await look('the pending panel opening')
  await page.getByRole('button', { name: 'Close pending changes' }).click()
  await page.keyboard.press('Control+k')
  await expect(page.getByRole('dialog', { name: 'Command palette' })).toBeVisible()
  await look('the palette opening')
  await page.keyboard.press('Escape')
  await page.getByRole('button', { name: 'New epic' }).first().click()
  await expect(page.getByRole('dialog', { name: 'New epic' })).toBeVisible()
  await look('a dialog opening')
  await page.getByRole('dialog', { name: 'New epic' }).getByRole('button', { name: 'Cancel' }).hover()
  await look('a button hovered')
  expect(found).toEqual([])
})

test.describe('in forced colours (Windows high contrast)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    test(`${scheme}: every Tab stop shows its ring; state icons and the chosen segment stay told apart`, async ({ service, outpost }) => {
      test.setTimeout(150_000)
      const page = await outpost.open()
      await page.emulateMedia({ forcedColors: 'active', colorScheme: scheme })
      await signIn(page, service)
      await waitForBootstrap(page)
      const found: string[] = []
      const tour = async (where: string) => {
        for (const stop of await tabTour(page))
          if (stop.ring < Math.min(stop.box.width, 1000) + Math.min(stop.box.height, 700))
            found.push(`${where}: ${stop.what} shows no ring (${stop.ring} pixels change)`)
      }
      await tour('epics')

      // The three shapes of a state icon: a ring, a half disc in it, a full disc with a tick.
      const list = page.getByRole('listbox', { name: /^Epics/ })
      const [unstarted, started, done] = await Promise.all(['unstarted', 'started', 'done'].map((shape) => inkOf(list.locator(`.state.${shape}`).first())))
      expect(started, 'a started state is drawn fuller than one not started').toBeGreaterThan(unstarted * 1.3)
      expect(done, 'a done state is drawn fuller than a started one').toBeGreaterThan(started * 1.2)

      // The chosen segment ("Active") against one not chosen ("Archived"), per pixel of each.
      const archived = page.getByRole('radiogroup', { name: 'Archived epics' })
      const chosen = archived.getByRole('radio', { checked: true })
      const other = archived.getByRole('radio', { checked: false }).first()
      const area = async (l: typeof chosen) => ((b) => (b ? b.width * b.height : 1))(await l.boundingBox())
      expect((await inkOf(chosen)) / (await area(chosen)), 'the chosen segment is marked').toBeGreaterThan((2 * (await inkOf(other))) / (await area(other)))

      const [epic] = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
      await epicRow(page, epic.name).first().click()
      await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(epic.name)
      await tour('an epic')
      await goTo(page, 'Files')
      await tour('files')
      expect(found).toEqual([])
    })
  }
})
