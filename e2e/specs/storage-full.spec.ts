// Storage full, with a real small quota: Chromium's quota for the page's
// origin is overridden over CDP (Storage.overrideQuotaForOrigin) to a size
// below what the cache already takes, so every write IndexedDB is asked for
// fails as it does on a full disk. (Chromium's IndexedDB trusts the room it
// last measured for up to 30 s: the test waits, with a write of its own in a
// scratch database, until a write is refused.) The sync that meets it says so and pauses;
// what the user changes meanwhile is kept in the journal of queued changes
// (outside IndexedDB) and the user is told; once the override is lifted sync
// resumes by itself, completes, the message goes, and the kept changes show and
// reach the service, each once, with nothing typed again.
import type { Page } from '@playwright/test'
import { epicRow, expect, screens, signIn, statusBar, test, waitForBootstrap } from '../fixtures/outpost.ts'

/** Epics in the page's cache, read with IndexedDB itself (the app's own database, at its version). */
const cachedEpics = (page: Page) =>
  page.evaluate(async () => {
    const info = (await indexedDB.databases()).find((d) => d.name?.startsWith('outpost:'))
    if (!info?.name) return -1
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(info.name!)
      open.onsuccess = () => resolve(open.result)
      open.onerror = () => reject(open.error)
    })
    try {
      return await new Promise<number>((resolve, reject) => {
        const count = db.transaction('epics').objectStore('epics').count()
        count.onsuccess = () => resolve(count.result)
        count.onerror = () => reject(count.error)
      })
    } finally {
      db.close()
    }
  })

/** Writes a kilobyte to a scratch database of the page's origin: 'ok', or the error that refused it. */
const probeWrite = (page: Page) =>
  page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('quota-probe', 1)
      open.onupgradeneeded = () => open.result.createObjectStore('probe')
      open.onsuccess = () => resolve(open.result)
      open.onerror = () => reject(open.error)
    }).catch((error: DOMException) => error.name)
    if (typeof db === 'string') return db
    try {
      return await new Promise<string>((resolve) => {
        const tx = db.transaction('probe', 'readwrite')
        tx.objectStore('probe').put('x'.repeat(1024), 'one')
        tx.oncomplete = () => resolve('ok')
        tx.onabort = () => resolve(tx.error?.name ?? 'AbortError')
      })
    } finally {
      db.close()
    }
  })

test('storage full: sync pauses and says so, what the user changes is kept, and all of it goes by itself once there is room', async ({
  service,
  outpost,
}, info) => {
  test.setTimeout(180_000)
  const page = await outpost.open()
  await page.setViewportSize({ width: 800, height: 600 })
  await signIn(page, service)
  await waitForBootstrap(page)
  // The most recently updated: the list's first row.
  const [target] = ((await service.v3().get('/epics')).body as { id: number; name: string; archived: boolean; updated_at: string }[])
    .filter((e) => !e.archived)
    .sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))

  const cdp = await page.context().newCDPSession(page)
  const origin = new URL(page.url()).origin
  // A byte: less than the cache takes already, so no write fits.
  expect(await probeWrite(page)).toBe('ok')
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1 })
  await expect.poll(() => probeWrite(page), { timeout: 45_000, intervals: [1_000] }).toBe('QuotaExceededError')

  // Someone else adds epics: the next sync has pages to write.
  const added = Array.from({ length: 150 }, (_, i) => `Added while storage was full ${i + 1}`)
  for (let i = 0; i < added.length; i += 100) {
    expect((await service.v4().post('/epics/bulk', { epics: added.slice(i, i + 100).map((name) => ({ name })) })).status).toBe(201)
  }
  const onService = ((await service.v3().get('/epics')).body as unknown[]).length
  outpost.host.side.schedule.now('focus')

  const bar = statusBar(page)
  // What the status bar shows (the full message on hover) and what a screen reader hears.
  const full = bar.getByTitle(/^Outpost’s storage is full, so sync is paused/)
  await expect(full).toContainText('Storage full: sync paused', { timeout: 30_000 })
  // A screen reader hears it once, from the notice (an alert), not from the status bar too.
  const paused = page.getByRole('alert').filter({ hasText: 'Outpost’s storage is full, so sync is paused.' })
  await expect(paused).toBeVisible()
  expect(await cachedEpics(page)).toBeLessThan(onService)

  // What the user changes meanwhile is kept aside (the journal), and they are told it goes by itself.
  await epicRow(page, target.name).first().click()
  const name = page.getByRole('textbox', { name: 'Epic name' })
  await expect(name).toHaveValue(target.name)
  const renamed = `${target.name} (renamed on a full disk)`
  await name.fill(renamed)
  await name.press('Enter')
  const kept = page
    .getByRole('alert')
    .filter({ hasText: 'Outpost’s storage is full, so this change is kept aside on disk: it shows and is sent by itself once there is room' })
  await expect(kept).toBeVisible()
  const comment = 'Typed while the disk was full, kept aside.'
  const composer = page.getByRole('textbox', { name: 'New comment' })
  await composer.fill(comment)
  // Sent from the keyboard (the notices stand over the button in a window this small).
  await composer.press('Control+Enter')
  await expect(composer).toHaveValue('')
  await expect(kept).toBeVisible()
  await expect(page.getByRole('article', { name: /^Comment/ }).filter({ hasText: comment })).toHaveCount(0)
  await expect(bar.getByText('2 kept until there is room')).toBeVisible()
  await screens(page, info, 'storage-full')
  expect(((await service.v3().get(`/epics/${target.id}`)).body as { name: string }).name).toBe(target.name)
  expect(await cachedEpics(page)).toBeLessThan(onService)

  // A focus of the window does not make sync try again while storage is full (it waits for its own time).
  outpost.host.side.schedule.now('focus')
  await expect(full).toBeVisible()

  // Room again: sync resumes by itself, completes, and the message goes.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin })
  await expect(paused).toBeHidden({ timeout: 60_000 })
  await expect(bar.getByText(/^Synced (just now|\d)/)).toBeVisible({ timeout: 30_000 })
  await expect(full).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Notifications' }).getByRole('status').filter({ hasText: 'There is room again: sync resumed.' })).toBeVisible()
  await expect.poll(() => cachedEpics(page), { timeout: 30_000 }).toBe(onService)

  // What was kept goes by itself, each change once, and shows.
  await expect(kept).toBeHidden()
  await expect(bar.getByText(/kept until there is room/)).toHaveCount(0)
  await expect.poll(async () => ((await service.v3().get(`/epics/${target.id}`)).body as { name: string }).name, { timeout: 30_000 }).toBe(renamed)
  await expect
    .poll(async () => ((await service.v3().get(`/epics/${target.id}/comments`)).body as { text: string }[]).filter((c) => c.text === comment).length, {
      timeout: 30_000,
    })
    .toBe(1)
  await expect(name).toHaveValue(renamed)
  await expect(page.getByRole('article', { name: /^Comment/ }).filter({ hasText: comment })).toHaveCount(1)
})
