import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { appProtocolHandler, resolveAppFile } from './app-protocol.ts'

const base = mkdtempSync(join(tmpdir(), 'outpost-protocol-'))
const root = join(base, 'renderer')
mkdirSync(join(root, 'assets'), { recursive: true })
writeFileSync(join(root, 'index.html'), '<!doctype html><title>Outpost</title>')
writeFileSync(join(root, 'assets', 'index-abc.js'), 'console.log(1)')
// A chunk as the build names it: its content's hash after its name.
writeFileSync(join(root, 'assets', 'app-D1_c-Y9z.js'), 'export {}')
// A file beside the renderer folder: what a traversal would try to reach.
writeFileSync(join(base, 'secret.txt'), 'not for the page')
afterAll(() => rmSync(base, { recursive: true, force: true }))

const handler = appProtocolHandler({ root, contentSecurityPolicy: "default-src 'none'" })

describe('resolveAppFile', () => {
  it('maps app URLs to files of the renderer folder', () => {
    expect(resolveAppFile('outpost://app/', root)).toBe(join(root, 'index.html'))
    expect(resolveAppFile('outpost://app/index.html', root)).toBe(join(root, 'index.html'))
    expect(resolveAppFile('outpost://app/assets/index-abc.js?v=1#x', root)).toBe(join(root, 'assets', 'index-abc.js'))
    // A route of the app (no extension) loads the app.
    expect(resolveAppFile('outpost://app/epics/12', root)).toBe(join(root, 'index.html'))
  })

  it('never leaves the folder (a URL parser may fold `..` to the root: still inside), and refuses other schemes or hosts', () => {
    for (const url of [
      'outpost://app/../secret.txt',
      'outpost://app/%2e%2e/secret.txt',
      'outpost://app/assets/%2E%2E/%2e%2e/secret.txt',
      'outpost://app/..%2fsecret.txt',
      'outpost://app/..%5csecret.txt',
      'outpost://app/assets%5c..%5c..%5csecret.txt',
      'outpost://app/%00index.html',
      'outpost://app/%E0%A4%A',
      'outpost://other/index.html',
      'file:///etc/passwd',
      'https://app/index.html',
      'not a url',
    ]) {
      const file = resolveAppFile(url, root)
      expect(file === null || file.startsWith(root + '/') || file.startsWith(root + '\\'), url).toBe(true)
      expect(file, url).not.toBe(join(base, 'secret.txt'))
    }
  })
})

describe('appProtocolHandler', () => {
  it('serves a file with its type, the CSP header and nosniff', async () => {
    const res = await handler(new Request('outpost://app/assets/index-abc.js'))
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('console.log(1)')
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it("lets the build's hashed chunks be kept for good and asks for index.html and unhashed files each time", async () => {
    const chunk = await handler(new Request('outpost://app/assets/app-D1_c-Y9z.js'))
    expect(chunk.status).toBe(200)
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    for (const url of ['outpost://app/', 'outpost://app/index.html', 'outpost://app/assets/index-abc.js']) {
      expect((await handler(new Request(url))).headers.get('cache-control'), url).toBe('no-cache')
    }
    // A refusal is never kept either.
    expect((await handler(new Request('outpost://app/assets/gone-D1_c-Y9z.js'))).headers.get('cache-control')).toBe('no-cache')
  })

  it('serves index.html at the root', async () => {
    const res = await handler(new Request('outpost://app/'))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await res.text()).toContain('<title>Outpost</title>')
  })

  it('answers 404 for a traversal or a missing file, and 405 for a write', async () => {
    const traversal = await handler(new Request('outpost://app/%2e%2e/secret.txt'))
    expect(traversal.status).toBe(404)
    expect(await traversal.text()).not.toContain('not for the page')
    expect((await handler(new Request('outpost://app/assets/missing.js'))).status).toBe(404)
    expect((await handler(new Request('outpost://app/assets'))).status).toBe(200)
    expect((await handler(new Request('outpost://app/index.html', { method: 'POST', body: 'x' }))).status).toBe(405)
  })
})

describe('resolveAppFile refusals', () => {
  it('is null for encoded separators, NUL, bad escapes, other hosts and schemes', () => {
    for (const url of [
      'outpost://app/..%5csecret.txt',
      'outpost://app/assets%5c..%5c..%5csecret.txt',
      'outpost://app/..%2fsecret.txt',
      'outpost://app/%00index.html',
      'outpost://app/%E0%A4%A',
      'outpost://other/index.html',
      'file:///etc/passwd',
      'https://app/index.html',
      'not a url',
    ]) {
      expect(resolveAppFile(url, root), url).toBeNull()
    }
  })
})
