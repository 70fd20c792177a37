// 6. Hostile content renders without running: doc HTML full of script and
// event-handler payloads, and the issue-7 corpus in Markdown (docs, epic
// descriptions, comments, the editor's preview), epic names, file names and a
// linked file's URL. Each payload would set `window.__xss`; the page is also
// watched for dialogs (the fixture fails on any) and CSP violations.
//
// Twice: as shipped (the CSP on: a payload the sanitizer missed shows up as a
// violation), and with the CSP bypassed (the sanitizer alone: a payload it
// missed would run and set the flag).
import type { Page } from '@playwright/test'
import { epicRow, expect, goTo, screens, signIn, test, waitForBootstrap, type LocalService } from '../fixtures/outpost.ts'
import { clickInPageLinks, expectCleanDom, expectInert, expectNoScriptUrls, htmlDocument, markdownDocument, TEXT_PAYLOADS, watchCsp } from '../fixtures/xss.ts'

const HTML_TITLE = 'Hostile HTML'
const MARKDOWN_TITLE = 'Hostile Markdown'

async function openSignedIn(outpost: { open(): Promise<Page> }, service: LocalService): Promise<Page> {
  const page = await outpost.open()
  await watchCsp(page)
  await page.reload()
  await signIn(page, service)
  await waitForBootstrap(page)
  return page
}

/** A multipart body for the v3 upload, with the file name exactly as given. */
function uploadForm(name: string, text: string): { data: Buffer; contentType: string } {
  const boundary = `----outpost-e2e-${Math.random().toString(16).slice(2)}`
  const quoted = name.replace(/"/g, '%22')
  const data = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file0"; filename="${quoted}"\r\nContent-Type: text/plain\r\n\r\n`),
    Buffer.from(text),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { data, contentType: `multipart/form-data; boundary=${boundary}` }
}

for (const mode of [
  { title: 'with the CSP', bypassCSP: false },
  { title: 'with the CSP bypassed (the sanitizer alone)', bypassCSP: true },
]) {
  test.describe(`hostile content ${mode.title}`, () => {
    test.use({ bypassCSP: mode.bypassCSP })

    test('a doc whose HTML carries script and event-handler payloads renders inert', async ({ service, outpost }, info) => {
      const created = await service.v4().post('/documents', { title: HTML_TITLE, content: htmlDocument(), content_format: 'html' })
      expect(created.status).toBe(201)

      const page = await openSignedIn(outpost, service)
      await goTo(page, 'Docs')
      await page.getByRole('option').filter({ hasText: HTML_TITLE }).click()
      await expect(page.getByRole('heading', { name: HTML_TITLE, level: 1 })).toBeVisible()
      const content = page.locator('.reader .content')
      await expect(content.getByRole('heading', { name: 'Payloads' })).toBeVisible()
      // The last payload before the mutation ones, which may swallow what follows them.
      await expect(content.getByText('srcset:')).toBeVisible()
      // A style payload would have hidden or covered the app.
      await expect(page.getByRole('navigation', { name: 'Outpost' })).toBeVisible()
      await expectCleanDom(content)
      await clickInPageLinks(content)
      await expectInert(page)
      if (!mode.bypassCSP) await screens(page, info, 'doc-reader-hostile')

      // Its text is searched and shown in the palette as text.
      await page.keyboard.press('Control+k')
      const palette = page.getByRole('dialog', { name: /command|search/i })
      await expect(palette).toBeVisible()
      await page.keyboard.type('Hostile')
      await expect(palette.getByRole('option').filter({ hasText: HTML_TITLE }).first()).toBeVisible()
      await page.keyboard.press('Escape')
      await expectInert(page)
    })

    test('Markdown, epic names and descriptions and comments carrying the corpus render inert', async ({ service, outpost }) => {
      const api = service.v4()
      const markdown = markdownDocument()
      expect((await api.post('/documents', { title: MARKDOWN_TITLE, content: markdown, content_format: 'markdown' })).status).toBe(201)
      const epics: { id: number; name: string }[] = []
      for (const name of TEXT_PAYLOADS) {
        const made = await api.post('/epics', { name, description: markdown })
        expect(made.status).toBe(201)
        epics.push(made.body)
      }
      const target = epics[0]
      for (const text of [markdown, ...TEXT_PAYLOADS]) expect((await service.v3().post(`/epics/${target.id}/comments`, { text })).status).toBe(201)

      const page = await openSignedIn(outpost, service)

      // Names are printed as text in the list.
      for (const name of TEXT_PAYLOADS) await expect(epicRow(page, name)).toHaveCount(1)
      await expectInert(page)

      // The epic: its name (a text field), its description and comments (Markdown).
      await epicRow(page, TEXT_PAYLOADS[0]).click()
      await expect(page.getByRole('textbox', { name: 'Epic name' })).toHaveValue(TEXT_PAYLOADS[0])
      const description = page.getByRole('region', { name: 'Description' }).locator('.prose')
      await expect(description.getByText('End of payloads.')).toBeVisible()
      await expectCleanDom(description)
      await clickInPageLinks(description)
      const comments = page.getByRole('region', { name: /^Comments/ }).or(page.locator('section.comments'))
      await expect(comments.getByText('End of payloads.').first()).toBeVisible()
      for (const text of TEXT_PAYLOADS.slice(3)) await expect(comments.getByText(text, { exact: false }).first()).toBeVisible()
      await expectCleanDom(comments.locator('.text'))
      await clickInPageLinks(comments.locator('.text'))
      await expectInert(page)

      // The comment composer's preview, with the corpus typed in.
      await page.getByRole('textbox', { name: 'New comment' }).fill(markdown)
      await comments.getByRole('tab', { name: 'Preview' }).click()
      const preview = page.getByRole('region', { name: 'New comment preview' })
      await expect(preview.getByText('End of payloads.')).toBeVisible()
      await expectCleanDom(preview)
      await expectInert(page)

      // The Markdown doc, and the corpus typed into a new doc's live preview.
      await goTo(page, 'Docs')
      await page.getByRole('option').filter({ hasText: MARKDOWN_TITLE }).click()
      const content = page.locator('.reader .content')
      await expect(content.getByText('End of payloads.')).toBeVisible()
      await expectCleanDom(content)
      await clickInPageLinks(content)
      await page.getByRole('button', { name: 'New doc', exact: true }).click()
      const editor = page.getByRole('form', { name: 'New doc' })
      await editor.getByRole('textbox', { name: 'Doc content' }).fill(markdown)
      const docPreview = editor.getByRole('region', { name: 'Doc content preview' })
      await expect(docPreview.getByText('End of payloads.')).toBeVisible()
      await expectCleanDom(docPreview)
      await clickInPageLinks(docPreview)
      await expectInert(page)
    })

    test('file names and a linked file with a javascript: URL stay inert', async ({ service, outpost, context }) => {
      const names: string[] = []
      for (const [i, payload] of TEXT_PAYLOADS.entries()) {
        const up = await service.v3().post('/files', undefined, { raw: uploadForm(`${payload}-${i}.txt`, `payload file ${i}\n`) })
        expect(up.status).toBe(201)
        // As the service recorded it (it may make a name safe its own way).
        names.push(up.body[0].name)
      }
      const linkName = `<img src=x onerror="window.__xss='link-name'">`
      const link = await service
        .v3()
        .post('/linked-files', { name: linkName, type: 'url', url: "javascript:window.__xss='linked-file-url'", description: TEXT_PAYLOADS[1] })
      expect(link.status).toBe(201)

      const popups: Page[] = []
      context.on('page', (p) => popups.push(p))
      const page = await openSignedIn(outpost, service)
      await goTo(page, 'Files')
      for (const name of names) await expect(page.getByRole('option').filter({ hasText: name })).toHaveCount(1)
      await expectInert(page)

      // The list view prints names and descriptions too.
      await page.getByRole('radio', { name: 'List' }).click()
      await expect(page.getByRole('option').filter({ hasText: linkName })).toHaveCount(1)

      // The linked file: its detail, and "Open link" on a javascript: URL.
      await page.getByRole('option').filter({ hasText: linkName }).click()
      const detail = page.getByRole('complementary', { name: `Linked file: ${linkName}` })
      await expect(detail).toBeVisible()
      // The app must not offer a javascript: URL as a link (only the web is opened from a linked file).
      await expectNoScriptUrls(detail)
      const open = detail.getByRole('link', { name: 'Open link' }).or(detail.getByRole('button', { name: 'Open link' }))
      // Whatever the app offers to open it with is tried (a disabled control is a fine answer too).
      if ((await open.count()) && (await open.first().isEnabled())) await open.first().click({ noWaitAfter: true })
      await page.getByRole('option').filter({ hasText: linkName }).dblclick({ noWaitAfter: true })
      await expectInert(page)
      for (const popup of popups.filter((p) => p !== page && !outpost.pages.includes(p))) {
        const ran = await popup.evaluate(() => [(window as unknown as { __xss?: string }).__xss, document.body?.innerText ?? ''] as const)
        expect(ran[0], `a popup ran a payload (${popup.url()})`).toBeUndefined()
        expect(ran[1], `a popup ran a javascript: URL (${popup.url()})`).not.toContain('linked-file-url')
      }
    })
  })
}
