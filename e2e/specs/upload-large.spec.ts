// Big files, as a user drops them: one over the upload limit is refused at
// once with the limit in words, before any of it is read; one of 30 MB is
// handed to the host by the browser (streamed from disk as a request body),
// never read whole in the page nor pushed through the page's socket, and lands
// on the service whole. The upload tray lists the files one a line across
// its width.
import type { JSHandle, Page } from '@playwright/test'
import { tooLargeToUpload, UPLOAD_LIMIT_BYTES } from '../../src-shared/ipc.ts'
import { expect, goTo, screens, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

const MB = 1024 * 1024

/** Drops files of the given sizes (zero bytes, made in the page) on the window. */
async function dropSized(page: Page, files: { name: string; type: string; size: number }[]): Promise<void> {
  const transfer: JSHandle<DataTransfer> = await page.evaluateHandle((list) => {
    const dt = new DataTransfer()
    for (const f of list) dt.items.add(new File([new Uint8Array(f.size).fill(42)], f.name, { type: f.type }))
    return dt
  }, files)
  const target = page.locator('main')
  await target.dispatchEvent('dragenter', { dataTransfer: transfer })
  await target.dispatchEvent('dragover', { dataTransfer: transfer })
  await target.dispatchEvent('drop', { dataTransfer: transfer })
  await transfer.dispose()
}

test('a file over the limit is refused at once, unread; a 30 MB file is streamed to the host, not through the page, and lands whole', async ({
  service,
  outpost,
}, info) => {
  const page = await outpost.open()
  const framesSent: number[] = []
  page.on('websocket', (ws) =>
    ws.on('framesent', (frame) => framesSent.push(typeof frame.payload === 'string' ? frame.payload.length : frame.payload.byteLength)),
  )
  const staged: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/stage') staged.push(decodeURIComponent(request.headers()['x-outpost-file-name'] ?? ''))
  })
  await signIn(page, service)
  await waitForBootstrap(page)
  await goTo(page, 'Files')

  const huge = { name: 'disk-image.iso', type: 'application/octet-stream', size: UPLOAD_LIMIT_BYTES + 1 }
  const big = { name: 'field-recording.wav', type: 'audio/wav', size: 30 * MB }
  const small = { name: 'notes.txt', type: 'text/plain', size: 1200 }
  await dropSized(page, [huge, big, small])

  const tray = page.getByRole('region', { name: 'Uploads' })
  const row = (name: string) => tray.getByRole('listitem').filter({ hasText: name })
  // Refused with the limit, not "the connection was lost"; nothing of it went to the host.
  await expect(row(huge.name).getByText(tooLargeToUpload(huge.name), { exact: true })).toBeVisible()
  await expect(row(huge.name).getByText('Failed', { exact: true })).toBeVisible()
  // It never was a queued change: the tray does not send the user to Pending changes for it.
  await expect(tray.getByRole('button', { name: 'Pending changes' })).toHaveCount(0)
  await expect(tray.getByRole('progressbar', { name: `${big.name}: Uploaded` })).toBeVisible({ timeout: 60_000 })
  await expect(tray.getByRole('progressbar', { name: `${small.name}: Uploaded` })).toBeVisible()
  expect(staged.sort()).toEqual([big.name, small.name].sort())
  // The bytes went as the stage request's body: the page's socket carried requests only.
  expect(Math.max(...framesSent)).toBeLessThan(64 * 1024)

  // One file a line across the tray: each row as wide as the list, its name, bar and state on one line.
  const list = (await tray.getByRole('list').boundingBox())!
  for (const name of [huge.name, big.name, small.name]) {
    const box = (await row(name).boundingBox())!
    expect(box.width, `${name}: the row spans the tray`).toBeGreaterThan(list.width - 24)
    const [nameBox, stateBox] = [(await row(name).locator('.name').boundingBox())!, (await row(name).locator('.state').boundingBox())!]
    expect(Math.abs(nameBox.y + nameBox.height / 2 - (stateBox.y + stateBox.height / 2)), `${name}: name and state on one line`).toBeLessThan(4)
  }
  await screens(page, info, 'upload-tray')
  await page.setViewportSize({ width: 800, height: 600 })
  await screens(page, info, 'upload-tray-small')

  // On the service, whole.
  const files = (await service.v3().get('/files')).body as { name: string; size: number }[]
  expect(files.find((f) => f.name === big.name)?.size).toBe(big.size)
  expect(files.find((f) => f.name === huge.name)).toBeUndefined()
})
