// Notifications: a sync that brings someone else's change to an epic the user
// follows, or a comment that mentions them, shows a notification of the
// system (here the browser's) that opens the epic; many at once are one; the
// user's own changes and the bootstrap notify nothing; a setting turns them
// off; the recent ones are listed in the window.
import type { Page } from '@playwright/test'
import { epicRow, expect, goTo, pendingButton, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

test.use({ permissions: ['notifications'] })

interface Shown {
  title: string
  body: string
}

/** Records every notification the page makes (window.__shown), and lets a test click the last one (window.__click()). */
function recordNotifications(): void {
  const Real = window.Notification
  const shown: { title: string; body: string }[] = []
  const made: Notification[] = []
  class Recorded extends Real {
    constructor(title: string, options?: NotificationOptions) {
      super(title, options)
      shown.push({ title, body: options?.body ?? '' })
      made.push(this)
    }
  }
  Object.defineProperty(window, 'Notification', { value: Recorded, configurable: true, writable: true })
  const w = window as unknown as { __shown: typeof shown; __click: () => void }
  w.__shown = shown
  w.__click = () => {
    const last = made.at(-1)
    last?.onclick?.call(last, new Event('click'))
  }
}

const shownOf = (page: Page) => page.evaluate(() => (window as unknown as { __shown: Shown[] }).__shown)

test('someone else’s changes and mentions notify, once a batch, and open the epic; mine and the bootstrap do not; off is off', async ({
  service,
  outpost,
}, info) => {
  const me = (await service.v3().get('/member')).body as { id: string; mention_name: string }
  const members = (await service.v3().get('/members')).body as { id: string; profile: { name: string; mention_name: string } }[]
  const other = (await service.v3(service.tokens.member).get('/member')).body as { id: string }
  const otherName = members.find((m) => m.id === other.id)!.profile.name
  const states = (await service.v3().get('/epic-workflow')).body as { epic_states: { id: number; name: string }[] }
  const epics = ((await service.v3().get('/epics')).body as { id: number; name: string; archived: boolean; epic_state_id: number; follower_ids: string[] }[])
    .filter((e) => !e.archived)
    .slice(0, 5)
  // The user follows these five (before signing in: the bootstrap brings them, and says nothing).
  for (const e of epics) await service.v3().put(`/epics/${e.id}`, { follower_ids: [...new Set([...e.follower_ids, me.id])] })

  const page = await outpost.open()
  await page.addInitScript(recordNotifications)
  await page.reload()
  await signIn(page, service)
  await waitForBootstrap(page)
  await expect(page.getByRole('button', { name: 'Notifications' })).toBeVisible()
  expect(await shownOf(page)).toEqual([])

  // Someone else moves one: one notification, what changed in words; its click opens the epic.
  const target = epics[0]
  const done = states.epic_states.find((s) => s.id !== target.epic_state_id)!
  await service.v3(service.tokens.member).put(`/epics/${target.id}`, { epic_state_id: done.id, name: `${target.name} (renamed)` })
  outpost.host.side.schedule.now('focus')
  await expect.poll(() => shownOf(page), { timeout: 20_000 }).toHaveLength(1)
  const [first] = await shownOf(page)
  expect(first.title).toBe(`“${target.name} (renamed)” changed`)
  expect(first.body).toContain(`Renamed from “${target.name}”`)
  expect(first.body).toContain(`→ ${done.name}`)
  await expect(page.getByRole('button', { name: 'Notifications' })).toContainText('1')
  await page.evaluate(() => (window as unknown as { __click: () => void }).__click())
  await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(`${target.name} (renamed)`)
  // Opened, it is seen: no unread count left.
  await expect(page.getByRole('button', { name: 'Notifications' })).not.toContainText(/\d/)

  // Three at once: one notification that says three.
  for (const e of epics.slice(1, 4)) await service.v3(service.tokens.member).put(`/epics/${e.id}`, { deadline: '2027-01-15T12:00:00Z' })
  outpost.host.side.schedule.now('focus')
  await expect.poll(() => shownOf(page), { timeout: 20_000 }).toHaveLength(2)
  expect((await shownOf(page))[1].title).toBe('3 updates on epics you own or follow')

  // My own change, sent and synced back: nothing. The list has taken in the sync (the three changed are its top
  // rows) before an epic is picked from it: a row is drawn for another epic as the list re-sorts.
  await goTo(page, 'Epics')
  const rows = page.getByRole('listbox', { name: /^Epics/ }).getByRole('option')
  await expect.poll(async () => (await rows.allTextContents()).slice(0, 3).filter((row) => epics.slice(1, 4).some((e) => row.includes(e.name))).length).toBe(3)
  await epicRow(page, epics[4].name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toHaveValue(epics[4].name)
  await name.fill(`${epics[4].name} (mine)`)
  await name.press('Enter')
  await expect
    .poll(async () => ((await service.v3().get(`/epics/${epics[4].id}`)).body as { name: string }).name, { timeout: 20_000 })
    .toBe(`${epics[4].name} (mine)`)
  outpost.host.side.schedule.now('focus')
  await page.waitForTimeout(4_000)
  expect(await shownOf(page)).toHaveLength(2)

  // A comment that mentions me, by someone else: told when it arrives (with its epic, opened here).
  await service.v3(service.tokens.member).post(`/epics/${epics[4].id}/comments`, { text: `Can @${me.mention_name} check the rollout?` })
  await goTo(page, 'Epics')
  await epicRow(page, `${epics[4].name} (mine)`).first().click()
  await expect(name).toHaveValue(`${epics[4].name} (mine)`)
  await expect.poll(() => shownOf(page), { timeout: 20_000 }).toHaveLength(3)
  expect((await shownOf(page))[2]).toEqual({
    title: `${otherName} mentioned you on “${epics[4].name} (mine)”`,
    body: `Can @${me.mention_name} check the rollout?`,
  })

  // The list in the window has each, newest first.
  await page.getByRole('button', { name: 'Notifications' }).click()
  const panel = page.getByRole('dialog', { name: 'Notifications' })
  await expect(panel.getByRole('listitem')).toHaveCount(5)
  await expect(panel.getByRole('listitem').first()).toContainText(`${otherName} mentioned you`)
  await page.screenshot({ path: info.outputPath('notifications-panel.png') })
  await page.keyboard.press('Escape')

  // Off in Settings: listed, not shown.
  await goTo(page, 'Settings')
  await page.getByRole('checkbox', { name: /Notify me when someone else changes/ }).uncheck()
  await service.v3(service.tokens.member).put(`/epics/${epics[1].id}`, { deadline: null })
  outpost.host.side.schedule.now('focus')
  await page.getByRole('button', { name: 'Notifications' }).click()
  await expect(page.getByRole('dialog', { name: 'Notifications' }).getByRole('listitem')).toHaveCount(6, { timeout: 20_000 })
  await page.waitForTimeout(2_000)
  expect(await shownOf(page)).toHaveLength(3)
})

test('a change made in another window of the workspace is the user’s own: not notified there; someone else’s is shown once and listed in both', async ({
  service,
  outpost,
}) => {
  const me = (await service.v3().get('/member')).body as { id: string }
  // The two most recently updated (the top of the list as it opens), which the user follows.
  const epics = ((await service.v3().get('/epics')).body as { id: number; name: string; archived: boolean; updated_at: string; follower_ids: string[] }[])
    .filter((e) => !e.archived)
    .sort((x, y) => Date.parse(y.updated_at) - Date.parse(x.updated_at))
    .slice(0, 2)
  for (const e of epics) await service.v3().put(`/epics/${e.id}`, { follower_ids: [...new Set([...e.follower_ids, me.id])] })

  const a = await outpost.open()
  await a.addInitScript(recordNotifications)
  await a.reload()
  await signIn(a, service)
  await waitForBootstrap(a)
  const b = await outpost.open()
  await b.addInitScript(recordNotifications)
  await b.reload()
  await waitForBootstrap(b)

  // Renamed in window B: sent, confirmed, and shown in window A (the windows tell each other what they wrote:
  // own-writes.ts and its test).
  await epicRow(b, epics[0].name).first().click()
  const name = b.getByRole('textbox', { name: 'Epic name' })
  await name.fill(`${epics[0].name} (from the other window)`)
  await name.press('Enter')
  await expect
    .poll(async () => ((await service.v3().get(`/epics/${epics[0].id}`)).body as { name: string }).name, { timeout: 20_000 })
    .toBe(`${epics[0].name} (from the other window)`)
  await expect(pendingButton(b)).toHaveText('All changes saved')
  outpost.host.side.schedule.now('focus')
  await expect(epicRow(a, `${epics[0].name} (from the other window)`)).toHaveCount(1)

  // Then someone else changes the other epic: that one is told, and only that one (the notifications are made in
  // the order the changes arrive, so the rename was weighed before it): by one window of the two, listed in both.
  await service.v3(service.tokens.member).put(`/epics/${epics[1].id}`, { deadline: '2027-02-01T12:00:00Z' })
  outpost.host.side.schedule.now('focus')
  const shownInEither = async () => [...(await shownOf(a)), ...(await shownOf(b))]
  await expect.poll(shownInEither, { timeout: 20_000 }).toHaveLength(1)
  expect((await shownInEither())[0].title).toBe(`“${epics[1].name}” changed`)
  for (const page of [a, b]) {
    await page.getByRole('button', { name: 'Notifications' }).click()
    await expect(page.getByRole('dialog', { name: 'Notifications' }).getByRole('listitem')).toHaveCount(1)
    await expect(page.getByRole('dialog', { name: 'Notifications' }).getByRole('listitem')).toContainText(epics[1].name)
  }
  await b.waitForTimeout(2_000)
  expect(await shownInEither()).toHaveLength(1)
})
