// Export: "Export workspace…" from the palette writes the cache to a new
// folder (the browser host's data folder's exports/, as it has no folder
// dialog): a JSON file per kind, a Markdown file per epic and per doc, the
// downloaded files' bytes and a manifest. The export is checked against the
// service's own data; then, with the service gone, Settings exports again.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from '@playwright/test'
import { expect, expectOffline, goTo, holdExportAt, screens, signIn, test, v4All, waitForBootstrap, type LocalService } from '../fixtures/outpost.ts'
import { fileFolder, findCached } from '../../src-main/files/file-cache.ts'

/** Every comment of a v3 thread list, replies included. */
function flatten(comments: any[]): any[] {
  return comments.flatMap((c) => [c, ...flatten(c.comments ?? [])])
}

/** What the service holds, read through its own API. */
async function serviceData(service: LocalService) {
  const v3 = service.v3()
  const epics = (await v3.get('/epics')).body as any[]
  const docs = await v4All(service.v4(), '/documents', { filter: 'include_archived' })
  const list = async (path: string) => {
    const answer = await v3.get(path)
    expect(answer.status, path).toBe(200)
    return answer.body as any[]
  }
  const comments = new Map<number, any[]>()
  for (const epic of epics) comments.set(epic.id, flatten(await list(`/epics/${epic.id}/comments`)))
  return {
    epics,
    docs,
    comments,
    files: await list('/files'),
    categories: await list('/categories'),
    objectives: await list('/objectives'),
    teams: await list('/groups'),
    members: await list('/members'),
    labels: await list('/labels'),
    linkedFiles: await list('/linked-files'),
  }
}

/** The export tray's folder once it says the export is done. */
async function exportedFolder(page: Page): Promise<string> {
  const tray = page.getByRole('region', { name: 'Export' })
  await expect(tray.getByText(/exported$/)).toBeVisible({ timeout: 30_000 })
  return (await tray.locator('.path').textContent())!.trim()
}

const read = (folder: string, path: string) => readFileSync(join(folder, path), 'utf8')
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim()

test('Export workspace… writes the cache to a folder that matches the service, online and offline', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const side = outpost.host.side
  const account = side.accounts.current()!
  const truth = await serviceData(service)
  expect(truth.epics.length).toBeGreaterThan(0)
  expect(truth.docs.length).toBeGreaterThan(0)

  // The files the sync fetched ahead of use are in the main side's cache; one is taken out again, as if evicted.
  await expect
    .poll(async () => (await Promise.all(truth.files.map((f) => findCached(side.folders.cache, account.id, f.id)))).filter(Boolean).length, { timeout: 30_000 })
    .toBe(truth.files.length)
  const evicted = truth.files[0]
  rmSync(fileFolder(side.folders.cache, account.id, evicted.id), { recursive: true })

  // Held half way, to see the progress.
  const hold = holdExportAt(side.table, 30)

  await page.keyboard.press('Control+k')
  await page.keyboard.type('Export workspace')
  const palette = page.getByRole('dialog', { name: 'Command palette' })
  await expect(palette.getByRole('option').first()).toContainText('Export workspace…')
  await page.keyboard.press('Enter')

  const tray = page.getByRole('region', { name: 'Export' })
  const bar = tray.getByRole('progressbar', { name: 'Export progress' })
  await expect(bar).toHaveAttribute('aria-valuetext', /^29 of \d+ written$/)
  await expect(tray).toContainText('Exporting')
  await screens(page, info, 'export-progress')
  hold.release()

  const folder = await exportedFolder(page)
  hold.restore()
  expect(folder.startsWith(join(info.outputPath('host'), 'exports', `${account.workspaceSlug}-`))).toBe(true)
  await expect(page.getByRole('region', { name: 'Notifications' })).toContainText(`exported to ${folder}`)
  await expect(tray).toContainText(`${truth.epics.length} epics · ${truth.docs.length} docs`)
  await expect(tray).toContainText(`${truth.files.length - 1} of ${truth.files.length} files`)
  await screens(page, info, 'export-done')

  const manifest = JSON.parse(read(folder, 'manifest.json'))
  const comments = [...truth.comments.values()].flat()
  expect(manifest).toMatchObject({
    format: 'outpost-export',
    version: 1,
    workspace: { slug: account.workspaceSlug, name: account.workspaceName, baseUrl: service.baseUrl },
    counts: {
      epics: truth.epics.length,
      docs: truth.docs.length,
      comments: comments.length,
      files: truth.files.length,
      filesIncluded: truth.files.length - 1,
      categories: truth.categories.length,
      objectives: truth.objectives.length,
      teams: truth.teams.length,
      members: truth.members.length,
      labels: truth.labels.length,
      linkedFiles: truth.linkedFiles.length,
    },
  })
  expect(Date.now() - Date.parse(manifest.exportedAt)).toBeLessThan(120_000)
  for (const { path, bytes } of manifest.written) expect(readFileSync(join(folder, path)).length, path).toBe(bytes)

  // Every epic: in epics.json as the service has it, and a Markdown file with its name, description and comments.
  const epicsJson = JSON.parse(read(folder, 'epics.json'))
  const epicFiles = readdirSync(join(folder, 'epics'))
  expect(epicFiles).toHaveLength(truth.epics.length)
  const members = new Map(truth.members.map((m) => [m.id, m.profile?.name ?? m.name]))
  for (const epic of truth.epics) {
    expect(
      epicsJson.find((e: any) => e.id === epic.id),
      `epic ${epic.id}`,
    ).toMatchObject({ name: epic.name, archived: epic.archived, owner_ids: epic.owner_ids })
    const file = epicFiles.find((f) => f.startsWith(`${epic.id}-`))
    expect(file, `epic ${epic.id}`).toBeDefined()
    const md = read(folder, `epics/${file}`)
    expect(md.split('\n')[0]).toBe(`# ${oneLine(epic.name)}`)
    if (epic.description?.trim()) expect(md).toContain(epic.description.trim())
    for (const owner of epic.owner_ids) expect(md).toContain(members.get(owner))
    for (const c of truth.comments.get(epic.id) ?? []) if (!c.deleted && c.text?.trim()) expect(md).toContain(c.text.trim().split('\n')[0])
  }

  // Every doc: its title and its Markdown, exactly.
  const docTexts = readdirSync(join(folder, 'docs')).map((f) => read(folder, `docs/${f}`))
  expect(docTexts).toHaveLength(truth.docs.length)
  for (const doc of truth.docs) {
    const body = (doc.content_markdown ?? '').trimEnd()
    expect(docTexts, `doc ${doc.id}`).toContain(body ? `# ${oneLine(doc.title)}\n\n${body}\n` : `# ${oneLine(doc.title)}\n`)
  }
  expect(
    JSON.parse(read(folder, 'docs.json'))
      .map((d: any) => d.title)
      .sort(),
  ).toEqual(truth.docs.map((d) => d.title).sort())

  // Files: the downloaded ones byte for byte as the service serves them; the evicted one listed as not included.
  expect(manifest.files.notIncluded).toEqual([{ id: evicted.id, name: evicted.name, reason: expect.stringMatching(/never downloaded/) }])
  expect(manifest.files.included.map((f: any) => f.id).sort()).toEqual(
    truth.files
      .filter((f) => f.id !== evicted.id)
      .map((f) => f.id)
      .sort(),
  )
  for (const included of manifest.files.included) {
    const file = truth.files.find((f) => f.id === included.id)
    const served = Buffer.from(await (await fetch(file.url, { headers: service.v3().auth })).arrayBuffer())
    expect(readFileSync(join(folder, included.path)).equals(served), file.name).toBe(true)
  }
  for (const [path, rows] of [
    ['members.json', truth.members],
    ['categories.json', truth.categories],
    ['teams.json', truth.teams],
    ['labels.json', truth.labels],
  ] as const) {
    expect(
      JSON.parse(read(folder, path))
        .map((r: any) => r.id)
        .sort(),
      path,
    ).toEqual(rows.map((r: any) => r.id).sort())
  }

  // Offline: the same export from Settings, with nothing downloaded.
  await page.getByRole('region', { name: 'Export' }).getByRole('button', { name: 'Dismiss the export' }).click()
  await service.stop()
  await expectOffline(page)
  await goTo(page, 'Settings')
  await page.getByRole('button', { name: 'Export workspace…' }).click()
  const offlineFolder = await exportedFolder(page)
  await expect(page.getByRole('button', { name: 'Export workspace…' })).toBeEnabled()
  await screens(page, info, 'export-settings-offline')
  expect(offlineFolder).not.toBe(folder)
  const offlineManifest = JSON.parse(read(offlineFolder, 'manifest.json'))
  expect(offlineManifest.counts).toEqual(manifest.counts)
  expect(offlineManifest.files).toEqual(manifest.files)
  expect(readdirSync(join(offlineFolder, 'epics')).sort()).toEqual(epicFiles.sort())
  expect(existsSync(fileFolder(side.folders.cache, account.id, evicted.id))).toBe(false)
})

test('an export under way can be cancelled from its tray: it stops, says so, and leaves no folder', async ({ service, outpost }, info) => {
  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  const hold = holdExportAt(outpost.host.side.table, 30)
  await page.keyboard.press('Control+k')
  await page.keyboard.type('Export workspace')
  await page.keyboard.press('Enter')
  const tray = page.getByRole('region', { name: 'Export' })
  await expect(tray.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('aria-valuetext', /^29 of \d+ written$/)

  await tray.getByRole('button', { name: 'Cancel' }).click()
  hold.release()
  await expect(page.getByRole('region', { name: 'Notifications' })).toContainText('was cancelled; nothing was kept')
  await expect(tray).toHaveCount(0)
  const exportsDir = join(info.outputPath('host'), 'exports')
  await expect.poll(() => (existsSync(exportsDir) ? readdirSync(exportsDir) : [])).toEqual([])
  expect(hold.writes()).toBe(30)
  hold.restore()
})
