// An epic's stories: its progress in the list (from the stats every epic list
// carries), its stories when it is opened (name, state, type, owners, estimate),
// each a link that opens the story on the service; offline, the cached stories
// and when they were fetched, or that they have not been loaded yet.
// Screenshots: test-results/e2e/screens/stories-<size>-<screen>-{light,dark}.png.
import { epicRow, expect, expectOffline, screens, signIn, test, waitForBootstrap, type LocalService } from '../fixtures/outpost.ts'

interface ServiceEpic {
  id: number
  name: string
  archived: boolean
  updated_at: string
  stats: { num_stories_done: number; num_stories_started: number; num_stories_total: number; num_points_done: number; num_points: number }
}

/** Active epics with three stories or more, most recently updated first (the list's first rows). */
async function epicsWithStories(service: LocalService): Promise<ServiceEpic[]> {
  const all = (await fetchV3(service, '/epics')) as ServiceEpic[]
  return all.filter((e) => !e.archived && e.stats.num_stories_total >= 3).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))
}

async function fetchV3(service: LocalService, path: string): Promise<unknown> {
  return (await service.v3().get(path)).body
}

test('the list shows each epic’s progress; an opened epic lists its stories, each opening on the service', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await page.setViewportSize({ width: 1280, height: 800 })
  await signIn(page, service)
  await waitForBootstrap(page)

  const [epic] = await epicsWithStories(service)
  const { stats } = epic
  // In the list: done out of all, without a request per epic.
  const row = epicRow(page, epic.name).first()
  await expect(
    row.getByRole('img', { name: `${stats.num_stories_done} of ${stats.num_stories_total} stories done, ${stats.num_stories_started} in progress` }),
  ).toBeVisible()
  await expect(row).toContainText(`${stats.num_stories_done}/${stats.num_stories_total}`)
  await screens(page, info, 'stories-1280-list')

  await row.click()
  const section = page.getByRole('region', { name: /^Stories/ })
  const served = (
    (await fetchV3(service, `/epics/${epic.id}/stories`)) as {
      name: string
      app_url: string
      archived: boolean
      estimate: number | null
      story_type: string
      completed: boolean
      started: boolean
    }[]
  ).filter((s) => !s.archived)
  await expect(section.getByRole('listitem')).toHaveCount(served.length)
  for (const s of served) {
    const item = section.getByRole('listitem').filter({ hasText: s.name })
    const link = item.getByRole('link', { name: s.name })
    await expect(link).toHaveAttribute('href', s.app_url)
    await expect(link).toHaveAttribute('target', '_blank')
    await expect(item).toContainText(s.completed ? 'Done' : s.started ? 'In progress' : 'Not started')
    await expect(item).toContainText(s.story_type, { ignoreCase: true })
    if (s.estimate !== null) await expect(item).toContainText(`${s.estimate} pt`)
  }
  // The epic's progress, said in words beside its bar.
  await expect(section.getByRole('img', { name: new RegExp(`^${stats.num_stories_done} of ${stats.num_stories_total} stories done`) })).toBeVisible()
  await expect(section).toContainText(`${stats.num_stories_done} done`)
  if (stats.num_points > 0) await expect(section).toContainText(`${stats.num_points_done} of ${stats.num_points} points done`)
  await section.scrollIntoViewIfNeeded()
  await screens(page, info, 'stories-1280-detail')

  await page.setViewportSize({ width: 800, height: 600 })
  await section.scrollIntoViewIfNeeded()
  await screens(page, info, 'stories-800-detail')
  await page.getByRole('button', { name: 'Epics', exact: true }).click()
  await expect(epicRow(page, epic.name).first()).toBeVisible()
  await screens(page, info, 'stories-800-list')
})

test('offline, an opened epic shows its cached stories and when they were fetched; another says they are not loaded yet', async ({ service, outpost }) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)

  const [opened, never] = await epicsWithStories(service)
  const served = ((await fetchV3(service, `/epics/${opened.id}/stories`)) as { name: string; archived: boolean }[]).filter((s) => !s.archived)
  await epicRow(page, opened.name).first().click()
  const section = page.getByRole('region', { name: /^Stories/ })
  await expect(section.getByRole('listitem')).toHaveCount(served.length)
  await page.getByRole('button', { name: 'Epics', exact: true }).click()

  await service.stop()
  await expectOffline(page)

  await epicRow(page, opened.name).first().click()
  await expect(section.getByRole('listitem')).toHaveCount(served.length)
  for (const s of served) await expect(section.getByRole('link', { name: s.name })).toBeVisible()
  await expect(section).toContainText(/Fetched (just now|\d+ min ago)/)
  await page.getByRole('button', { name: 'Epics', exact: true }).click()

  await epicRow(page, never.name).first().click()
  await expect(section).toContainText('Stories not loaded yet; they load when you are online.')
  // The progress still shows: it came with the epic list.
  await expect(
    section.getByRole('img', { name: new RegExp(`^${never.stats.num_stories_done} of ${never.stats.num_stories_total} stories done`) }),
  ).toBeVisible()
})
