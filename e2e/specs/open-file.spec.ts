// Opening a file in the desktop app: a document goes to the OS's app, and a
// file that could run as a program is shown in its folder instead, with a
// sentence saying why. The browser host stands in for the desktop shell here:
// its main side is given recorders where Electron's shell.openPath and
// showItemInFolder would be, so the window's side runs as it does in the app.
import { basename } from 'node:path'
import { MemorySecretStore } from '../../src-web/memory-secrets.ts'
import { startWebApp } from '../../src-web/web-app.ts'
import { RENDERER_DIR } from '../fixtures/global-setup.ts'
import { dropFiles, expect, goTo, screens, signIn, test, waitForBootstrap } from '../fixtures/outpost.ts'

test('Open hands a document to its app and shows a program in its folder, saying why', async ({ service, context }, info) => {
  const opened: string[] = []
  const shown: string[] = []
  const app = await startWebApp({
    rendererDir: RENDERER_DIR,
    dataDir: info.outputPath('host'),
    secrets: new MemorySecretStore(),
    demo: false,
    desktopShell: {
      // Electron's shell.openPath answers '' when the OS opened the file.
      openPath: async (path) => {
        opened.push(path)
        return ''
      },
      showItemInFolder: (path) => void shown.push(path),
    },
  })
  const errors: string[] = []
  const page = await context.newPage()
  page.on('pageerror', (error) => errors.push(error.message))
  try {
    await page.goto(app.host.url)
    await signIn(page, service)
    await waitForBootstrap(page)
    await goTo(page, 'Files')
    await dropFiles(page, [
      { name: 'plan.pdf', type: 'application/pdf', text: '%PDF-1.7 the plan' },
      { name: 'setup.exe', type: 'application/octet-stream', text: 'MZ a program' },
    ])
    const row = (name: string) => page.getByRole('option').filter({ hasText: name })
    for (const name of ['plan.pdf', 'setup.exe']) {
      await expect(row(name)).toBeVisible()
      // Uploaded: the service's file, with its content to download.
      await expect(row(name).getByText(/Queued|Pending/)).toHaveCount(0, { timeout: 30_000 })
    }

    await row('plan.pdf').dblclick()
    await expect.poll(() => opened.map((path) => basename(path))).toEqual(['plan.pdf'])

    await row('setup.exe').dblclick()
    const notices = page.getByRole('region', { name: 'Notifications' })
    await expect(
      notices.getByText('Outpost opens documents and media directly; setup.exe could run as a program, so it is shown in its folder instead.'),
    ).toBeVisible()
    expect(shown.map((path) => basename(path))).toEqual(['setup.exe'])
    expect(opened).toHaveLength(1)
    await screens(page, info, 'files-shown-in-folder')
    expect(errors).toEqual([])
  } finally {
    await page.close()
    await app.close()
  }
})
