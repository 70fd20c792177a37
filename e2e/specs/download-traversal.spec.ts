// 8. Files whose names are attacks on the file system: path traversal (`../`,
// `..\`), absolute paths (Unix, Windows, one aimed at the folder beside the
// app's data), a NUL, Windows device names, a bare `..`. Someone in the
// workspace named them so on the service; a person opens each from the Files
// screen, so the app downloads it into its file cache. Each opens with its
// own content, and nothing is written anywhere but the cache folder.
import type { Download, Locator, Page } from '@playwright/test'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync, type Dirent } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { safeFileName } from '../../src-main/files/safe-name.ts'
import { filesUnder } from '../../testing/secrets.ts'
import { expect, goTo, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Files and folders under `dir` whose name holds `marker`, `depth` levels down (node_modules, .git and /proc skipped). */
function named(dir: string, marker: string, depth: number): string[] {
  let entries: Dirent[]
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((e) => {
    const path = join(dir, e.name)
    const here = e.name.includes(marker) ? [path] : []
    if (!e.isDirectory() || depth === 0 || ['node_modules', '.git', 'proc', 'sys', 'dev'].includes(e.name)) return here
    return [...here, ...named(path, marker, depth - 1)]
  })
}

/** A multipart body for the v3 upload. */
function uploadForm(name: string, text: string): { data: Buffer; contentType: string } {
  const boundary = `----outpost-e2e-${randomUUID()}`
  const data = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file0"; filename="${name}"\r\nContent-Type: text/plain\r\n\r\n`),
    Buffer.from(text),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { data, contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Opens a file from the list as a person does (double click), and answers what the browser showed or saved. */
async function openAndRead(page: Page, row: Locator): Promise<{ via: 'preview' | 'download'; text: string }> {
  const popup = page.waitForEvent('popup').then((p) => ({ popup: p }))
  const download = page.waitForEvent('download').then((d: Download) => ({ download: d }))
  // The one that does not come fails when the page closes: nobody waits for it.
  popup.catch(() => undefined)
  download.catch(() => undefined)
  await row.dblclick()
  const shown = await Promise.race([popup, download])
  if ('popup' in shown) {
    await shown.popup.waitForLoadState()
    const text = await shown.popup.locator('body').innerText()
    await shown.popup.close()
    return { via: 'preview', text }
  }
  return { via: 'download', text: readFileSync(await shown.download.path(), 'utf8') }
}

test('files named to escape the cache open with their content, and nothing is written outside the cache', async ({ service, outpost }) => {
  test.setTimeout(120_000)
  const marker = `escape-${randomUUID().slice(0, 8)}`
  const dataDir = dirname(outpost.host.side.folders.cache)
  const beside = dirname(dataDir)
  const NAMES = [
    `../../${marker}-01.txt`,
    // From <cache>/<account>/<id>/, four levels up is the folder beside the app's data.
    `../../../../${marker}-01b.txt`,
    `..\\..\\${marker}-02.txt`,
    `/tmp/${marker}-03.txt`,
    `C:\\Windows\\Temp\\${marker}-04.txt`,
    `\\\\server\\share\\${marker}-05.txt`,
    `${join(beside, `${marker}-06.txt`)}`,
    `${marker}-07\u0000.txt`,
    `~/${marker}-08.txt`,
    `${marker}-09/../../${marker}-09.txt`,
    'CON',
    'nul.txt',
    'COM1.txt',
    '..',
  ]

  // Someone names the files so on the service (a rename takes any string: a NUL too).
  const files: { id: number; name: string; text: string; description: string }[] = []
  for (const [i, name] of NAMES.entries()) {
    const description = `case-${String(i).padStart(2, '0')}`
    const text = `the content of ${description}`
    const up = await service.v3().post('/files', undefined, { raw: uploadForm(`${description}.txt`, text) })
    expect(up.status).toBe(201)
    const renamed = await service.v3().put(`/files/${up.body[0].id}`, { name, description })
    expect(renamed.status, JSON.stringify(name)).toBe(200)
    expect(renamed.body.name).toBe(name)
    files.push({ id: up.body[0].id, name, text, description })
  }

  const page = await outpost.open()
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Files')
  // The list view shows each file's description, which tells the cases apart.
  await page.getByRole('radio', { name: 'List' }).click()

  for (const file of files) {
    const row = page.getByRole('option').filter({ hasText: file.description })
    await expect(row, JSON.stringify(file.name)).toHaveCount(1)
    const opened = await openAndRead(page, row)
    expect(opened.text.trim(), `${JSON.stringify(file.name)} (${opened.via})`).toBe(file.text)
  }

  // Every file is in the cache, at <cache>/<account>/<file id>/<safe name>.
  const cache = outpost.host.side.folders.cache
  const account = outpost.host.side.accounts.current()!.id
  const cached = (await filesUnder(cache)).map((f) => relative(cache, f))
  for (const file of files) {
    const expected = join(account, String(file.id), safeFileName(file.name))
    expect(cached, JSON.stringify(file.name)).toContain(expected)
    expect(readFileSync(join(cache, expected), 'utf8')).toBe(file.text)
  }
  for (const path of cached) expect(path.split(sep), path).toHaveLength(3)

  // Nothing escaped: the marker is on no file or folder outside the cache, beside the app's data,
  // in the temporary folder, in the project, or at the top of the file system.
  const everywhere = [...named(beside, marker, 6), ...named(tmpdir(), marker, 3), ...named(ROOT, marker, 2), ...named('/', marker, 1)]
  const outside = [...new Set(everywhere)].filter((path) => !path.startsWith(cache + sep))
  expect(outside).toEqual([])
  // And the data folder holds only the app's own files: the accounts file, the cache, the outbox journal.
  const own = (await filesUnder(dataDir)).map((f) => relative(dataDir, f).split(sep)[0])
  expect([...new Set(own)].sort()).toEqual(['accounts.json', 'files', 'journal'])
})
