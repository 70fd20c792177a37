// 1. Adding the workspace with a token: the sign-in screen, then the first
// download fills epics, docs and files, each visible in its screen.
import { epicRow, expect, goTo, screens, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('a workspace added with a token downloads its epics, docs and files', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await screens(page, info, 'sign-in')
  await signIn(page, service)
  await waitForBootstrap(page)

  const epics = await v4All(service.v4(), '/epics')
  const docs = await v4All(service.v4(), '/documents')
  const files = (await service.v3().get('/files')).body as { name: string }[]
  expect(epics.length).toBeGreaterThan(0)

  // Epics: the list counts every active one; a known one is there.
  const active = epics.filter((e) => !e.archived)
  await expect(page.getByRole('heading', { name: 'Epics', level: 1 })).toBeVisible()
  await expect(page.getByRole('listbox', { name: `Epics, ${active.length} shown` })).toBeVisible()
  // Newest first, as the list sorts by default.
  const newest = [...active].sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at)).slice(0, 3)
  for (const epic of newest) await expect(epicRow(page, epic.name).first()).toBeVisible()
  await screens(page, info, 'epics')

  await goTo(page, 'Docs')
  await expect(page.getByRole('listbox', { name: `Docs, ${docs.length} shown` })).toBeVisible()
  await screens(page, info, 'docs')

  await goTo(page, 'Files')
  await expect(page.getByRole('heading', { name: 'Files', level: 1 })).toBeVisible()
  for (const f of files.slice(0, 3)) await expect(page.getByRole('option').filter({ hasText: f.name }).first()).toBeVisible()
  await screens(page, info, 'files')
})
