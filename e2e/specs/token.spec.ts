// 7. The token lives in the OS keychain and nowhere else. A person signs in
// with a token made for the occasion, the workspace downloads, they rename an
// epic, comment, upload a file and open it, lose the network, comment again,
// get it back (the comment is replayed), and quit. Then the token is looked
// for, as it is and encoded, everywhere it must not be: every IndexedDB
// database, localStorage, sessionStorage, cookies and the DOM; the host's
// stdout and stderr and the page's console; every file of the host's data
// folder, of the browser profile (on disk, IndexedDB included) and of the
// crash folders (Chromium's --crash-dumps-dir, and the diagnostic report the
// host writes as a crash would); every WebSocket frame the page received (every
// IPC answer and event) and every HTTP body it fetched. And it IS in the
// keychain, read back from outside the app, so the test cannot pass because
// the token went nowhere at all.
//
// The host runs as a child process under scripts/with-keychain.sh: a private
// D-Bus session with an unlocked throwaway gnome-keyring, so keytar talks to
// a real Secret Service and no developer keyring is touched.
import type { Page } from '@playwright/test'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Tokens } from '../../src-server/auth.ts'
import { workspaceSecretName } from '../../src-main/secrets/secret-store.ts'
import { filesUnder } from '../../testing/secrets.ts'
import { ChildHost, sha256 } from '../fixtures/child-host.ts'
import { formsIn, leaksIn, leaksOnDisk, pageStorage, secretForms } from '../fixtures/leaks.ts'
import { dropFiles, epicRow, expect, expectOffline, expectOnline, goTo, pendingButton, signIn, test, v4All, waitForBootstrap } from '../fixtures/outpost.ts'

test('after a full session the token is in the OS keychain and nowhere else', async ({ service, playwright, launchOptions }, info) => {
  // Sign-in, bootstrap, edits, an upload, an offline spell and the scans: longer than one flow.
  test.setTimeout(240_000)

  // A token of its own, made on the service for this test (not one the demo seed prints).
  const tokens = new Tokens(service.running.ctx)
  const admin = tokens.find(service.tokens.admin)!
  const token = tokens.create('v4_rw', admin.member_id, 'Outpost e2e: where the token lives').secret
  const forms = secretForms(token)

  const dataDir = info.outputPath('host')
  const profileDir = info.outputPath('profile')
  const crashDir = info.outputPath('crash')
  mkdirSync(join(crashDir, 'chromium'), { recursive: true })

  const host = await ChildHost.start({ dataDir, reportDir: join(crashDir, 'host') })
  const context = await playwright.chromium.launchPersistentContext(profileDir, {
    executablePath: launchOptions.executablePath,
    args: [...(launchOptions.args ?? []), `--crash-dumps-dir=${join(crashDir, 'chromium')}`, '--enable-logging', '--v=0'],
    viewport: { width: 1280, height: 800 },
  })

  // Everything the page receives, and what it sends (to prove the search finds the token where it is).
  const received: string[] = []
  const sent: string[] = []
  const bodies: Array<Promise<[string, Buffer]>> = []
  const consoleLines: string[] = []
  const problems: string[] = []
  const watch = (page: Page) => {
    page.on('websocket', (ws) => {
      ws.on('framereceived', ({ payload }) => received.push(typeof payload === 'string' ? payload : payload.toString('latin1')))
      ws.on('framesent', ({ payload }) => sent.push(typeof payload === 'string' ? payload : payload.toString('latin1')))
    })
    page.on('response', (response) =>
      bodies.push(
        response.body().then(
          (body): [string, Buffer] => [response.url(), body],
          (): [string, Buffer] => [response.url(), Buffer.alloc(0)],
        ),
      ),
    )
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`))
    page.on('pageerror', (error) => problems.push(error.stack ?? error.message))
    page.on('dialog', (dialog) => {
      problems.push(`${dialog.type()}: ${dialog.message()}`)
      void dialog.dismiss().catch(() => undefined)
    })
  }
  context.on('page', watch)

  try {
    const page = await context.newPage()
    await page.goto(host.url)
    await signIn(page, service, token)
    await waitForBootstrap(page)

    // Rename an epic and comment on it.
    // The most recently updated epic: the top of the list as it opens.
    const target = (await v4All(service.v4(), '/epics')).filter((e) => !e.archived).sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at))[0]
    const renamed = `${target.name} (checked)`
    await epicRow(page, target.name).first().click()
    const name = page.getByRole('textbox', { name: 'Epic name' })
    await expect(name).toHaveValue(target.name)
    await name.fill(renamed)
    await name.press('Enter')
    await page.getByRole('textbox', { name: 'New comment' }).fill('The token stays in the keychain.')
    await page.getByRole('button', { name: 'Comment', exact: true }).click()
    await expect(pendingButton(page)).toHaveText('All changes saved')

    // Upload a file, and open it once it is up (downloaded to the cache, read over the bridge).
    await goTo(page, 'Files')
    const file = { name: 'token-check.txt', type: 'text/plain', text: 'bytes that went up and came back\n' }
    await dropFiles(page, [file])
    const row = page.getByRole('option').filter({ hasText: file.name })
    await expect(row).toHaveCount(1)
    await expect(row.getByText(/Queued/)).toHaveCount(0)
    await expect(pendingButton(page)).toHaveText('All changes saved')
    const preview = page.waitForEvent('popup')
    await row.dblclick()
    const tab = await preview
    await expect(tab.locator('body')).toHaveText(file.text.trim())
    await tab.close()

    // The network goes; a comment written offline waits, and is replayed when it is back.
    await goTo(page, 'Epics')
    await service.stop()
    await epicRow(page, renamed).first().click()
    await page.getByRole('textbox', { name: 'New comment' }).fill('Written offline.')
    await page.getByRole('button', { name: 'Comment', exact: true }).click()
    await expectOffline(page)
    await expect(pendingButton(page)).toHaveText(/1 pending/)
    await service.start()
    await host.networkChanged()
    await expectOnline(page)
    await expect(pendingButton(page)).toHaveText('All changes saved', { timeout: 30_000 })

    // The session reached the service (under this token's member).
    const comments = (await service.v3().get(`/epics/${target.id}/comments`)).body as { text: string }[]
    expect(comments.map((c) => c.text)).toEqual(expect.arrayContaining(['The token stays in the keychain.', 'Written offline.']))

    // What the browser keeps for the page, read before it is closed.
    const stored = await page.evaluate(pageStorage)
    const cookies = JSON.stringify(await context.cookies())
    // Not vacuous: the workspace's database is there and holds the session's work.
    expect(stored.databases.length).toBeGreaterThan(0)
    expect(stored.indexedDB).toContain(renamed)
    expect(stored.indexedDB).toContain('Written offline.')

    // Quit: the browser (its profile written to disk) and the app.
    await context.close()
    await host.close()

    // The keychain holds the token, under the workspace's entry, read from outside the app.
    const entries = await host.keychainEntries()
    expect(entries).toEqual([{ account: workspaceSecretName(service.baseUrl, service.running.workspace), sha256: sha256(token) }])
    expect(await host.exit()).toBe(0)

    const responses = await Promise.all(bodies)
    const places: Record<string, string | Buffer> = {
      'IndexedDB (every database)': stored.indexedDB,
      localStorage: stored.localStorage,
      sessionStorage: stored.sessionStorage,
      'document.cookie': stored.cookie,
      cookies,
      'the DOM': stored.dom,
      'host stdout': Buffer.concat(host.output.stdout),
      'host stderr': Buffer.concat(host.output.stderr),
      'page console': consoleLines.join('\n'),
      ...Object.fromEntries(received.map((frame, i) => [`WebSocket frame ${i} received`, frame])),
      ...Object.fromEntries(responses.map(([url, body], i) => [`response ${i} (${url})`, body])),
    }
    expect(leaksIn(places, forms)).toEqual([])
    // The page did talk: answers, events and files came over the socket and HTTP.
    expect(received.length).toBeGreaterThan(20)
    expect(responses.length).toBeGreaterThan(0)

    const disk = await leaksOnDisk([dataDir, profileDir, crashDir], forms)
    expect(disk.leaks).toEqual([])
    // Files were there to look at: the profile with its IndexedDB, the cache, the host's report.
    expect(disk.files).toBeGreaterThan(20)
    expect(await filesUnder(join(crashDir, 'host'))).toHaveLength(1)
    // The search reads IndexedDB on disk too: the comment written offline is found there.
    expect((await leaksOnDisk([join(profileDir, 'Default', 'IndexedDB')], secretForms('Written offline.'))).leaks).not.toEqual([])
    await info.attach('scanned', {
      body: JSON.stringify({ files: disk.files, framesReceived: received.length, responses: responses.length, databases: stored.databases }, null, 2),
      contentType: 'application/json',
    })

    // The search finds the token where it does belong: in the sign-in the page sent, and in the service's database.
    expect(formsIn(sent.join('\n'), forms)).toContain('as is')
    expect((await leaksOnDisk([dirname(service.dbFile)], forms)).leaks).not.toEqual([])
    expect(problems).toEqual([])
  } finally {
    host.kill()
    await context.close().catch(() => undefined)
  }
})
