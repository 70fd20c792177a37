// Accounts against the real local service over HTTP on 127.0.0.1, with tokens
// in the safeStorage-file store (the real keychain is exercised in
// ../secrets/keychain.test.ts).
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { RunningService } from '../../src-server/index.ts'
import { testService, v3, v4Root } from '../../testing/service.ts'
import { SafeStorageStore } from '../secrets/safe-storage.ts'
import { Gateway } from '../gateway/index.ts'
import { fakeSafeStorage, filesHolding, filesUnder } from '../../testing/secrets.ts'
import { AccountError, type AccountErrorKind } from './account-error.ts'
import { Accounts, secretNameOf } from './accounts.ts'

let demo: RunningService
let other: RunningService
let dataDir: string
let secrets: SafeStorageStore
let accounts: Accounts

beforeAll(async () => {
  ;[demo, other] = await Promise.all([testService({ seed: 'demo' }), testService({ workspaceSlug: 'field-team' })])
})
afterAll(async () => {
  await Promise.all([demo?.close(), other?.close()])
})
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'outpost-accounts-'))
  secrets = new SafeStorageStore(fakeSafeStorage(), dataDir, { platform: 'linux' })
  accounts = await Accounts.open({ dataDir, secrets })
})
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

async function failure(promise: Promise<unknown>): Promise<AccountError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(AccountError)
  return error as AccountError
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  await new Promise((r) => server.close(r))
  return port
}

/** A service in front of `target` that ignores one request header: it never reaches the service. */
async function proxyWithout(target: string, header: string): Promise<{ baseUrl: string; dropped(): number; close(): Promise<void> }> {
  let dropped = 0
  const server = createHttpServer(async (req, res) => {
    // Another client now: what reaches the service is not what Outpost sent.
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, 'user-agent': 'header-dropping proxy' }
    if (headers[header] !== undefined) dropped++
    delete headers[header]
    delete headers.host
    const answer = await request(`${target}${req.url}`, { method: req.method as 'GET', headers, body: req.method === 'GET' ? undefined : req })
    res.writeHead(answer.statusCode, answer.headers as Record<string, string>)
    for await (const chunk of answer.body) res.write(chunk)
    res.end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as { port: number }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dropped: () => dropped,
    close: () => new Promise((r) => server.close(() => r())),
  }
}

describe('adding a workspace', () => {
  it('checks a v4 token with whoami and keeps the names the service gives', async () => {
    const token = demo.tokens.admin
    const account = await accounts.addAccount(`${demo.baseUrl}/`, token)
    const whoami = (await v4Root(demo, token).get('/whoami')).body
    expect(account).toMatchObject({
      baseUrl: demo.baseUrl,
      workspaceSlug: demo.workspace,
      workspaceName: whoami.workspace.name,
      memberId: whoami.member.id,
      memberName: whoami.member.name,
      tokenKind: 'v4',
      // Kept, so the workspace knows what the token may do without asking again.
      scopes: whoami.authorization.scopes,
    })
    expect(account.scopes).toEqual(['read', 'write'])
    expect(account.memberName).toEqual(expect.any(String))
    expect(Date.parse(account.addedAt)).not.toBeNaN()
    expect(accounts.current()).toEqual(account)
    expect(await accounts.tokenFor(account.id)).toBe(token)
  })

  it('checks a v3 token with /api/v3/member', async () => {
    const token = demo.tokens.v3
    const account = await accounts.addAccount(demo.baseUrl, token)
    const member = (await v3(demo, token).get('/member')).body
    expect(account).toMatchObject({
      baseUrl: demo.baseUrl,
      workspaceSlug: member.workspace2.url_slug,
      memberId: member.id,
      memberName: member.name,
      tokenKind: 'v3',
    })
    expect(account.workspaceSlug).toBe(demo.workspace)
    expect(await accounts.tokenFor(account.id)).toBe(token)
  })

  it.each(['service-token', 'shortcut-token'])('signs in with a v3 token, and calls v3 with it, through a service that ignores %s', async (ignored) => {
    // The published description documents Shortcut-Token, the spec Service-Token: a service may honour only one.
    const proxy = await proxyWithout(demo.baseUrl, ignored)
    try {
      const account = await accounts.addAccount(proxy.baseUrl, demo.tokens.v3)
      expect(account).toMatchObject({ tokenKind: 'v3', workspaceSlug: demo.workspace })
      const gateway = new Gateway({ baseUrl: proxy.baseUrl, workspaceSlug: account.workspaceSlug, token: demo.tokens.v3, tokenKind: 'v3' })
      expect((await gateway.call<unknown[]>('epics.v3List')).length).toBeGreaterThan(0)
      await gateway.close()
      expect(proxy.dropped()).toBeGreaterThanOrEqual(2)
    } finally {
      await proxy.close()
    }
  })

  it('accepts a read-only v4 token (reading is what it is for)', async () => {
    const account = await accounts.addAccount(demo.baseUrl, demo.tokens.readonly)
    expect(account.tokenKind).toBe('v4')
    expect(account.scopes).toEqual(['read'])
  })

  it('keeps the token out of the accounts file, which survives a restart', async () => {
    const token = demo.tokens.member
    const account = await accounts.addAccount(demo.baseUrl, token)
    const file = JSON.parse(await readFile(accounts.file, 'utf8'))
    expect(file).toEqual({ version: 1, current: account.id, accounts: [account] })
    expect(await filesHolding(dataDir, token)).toEqual([])
    expect(await filesUnder(dataDir)).toEqual([accounts.file, secrets.file].sort())

    const restarted = await Accounts.open({ dataDir, secrets })
    expect(restarted.list()).toEqual([account])
    expect(restarted.current()).toEqual(account)
    expect(await restarted.tokenFor(account.id)).toBe(token)
  })

  it('replaces the token when the same workspace is added again, keeping its id', async () => {
    const first = await accounts.addAccount(demo.baseUrl, demo.tokens.admin)
    const again = await accounts.addAccount(demo.baseUrl, demo.tokens.member)
    expect(again.id).toBe(first.id)
    expect(again.addedAt).toBe(first.addedAt)
    expect(accounts.list()).toHaveLength(1)
    expect(await accounts.tokenFor(first.id)).toBe(demo.tokens.member)
  })
})

describe('what goes wrong gets its own message', () => {
  const cases: [string, () => Promise<unknown>, AccountErrorKind, RegExp][] = [
    ['a bad URL', () => accounts.addAccount('not a url', demo.tokens.admin), 'bad-url', /not a web address/],
    ['a non-HTTPS remote URL', () => accounts.addAccount('http://example.com', demo.tokens.admin), 'insecure-url', /only over HTTPS/],
    ['an empty token', () => accounts.addAccount(demo.baseUrl, '   '), 'missing-token', /Paste your API token/],
    [
      'a wrong v4 token (401)',
      () => accounts.addAccount(demo.baseUrl, `svc_rw_${randomBytes(24).toString('base64url')}`),
      'bad-token',
      /did not accept this v4 token/,
    ],
    ['a wrong v3 token (401)', () => accounts.addAccount(demo.baseUrl, '6f1c1c6e-0000-4000-8000-000000000000'), 'bad-token', /did not accept this v3 token/],
    [
      'a token with the svc_ prefix that is not a v4 token (401)',
      () => accounts.addAccount(demo.baseUrl, `svc_${demo.tokens.v3}`),
      'bad-token',
      /did not accept/,
    ],
    ['an address that is not the service', () => accounts.addAccount(`${demo.baseUrl}/not-the-api`, demo.tokens.admin), 'unexpected-answer', /answered 404/],
  ]
  for (const [what, attempt, kind, message] of cases) {
    it(what, async () => {
      const error = await failure(attempt())
      expect(error.kind).toBe(kind)
      expect(error.message).toMatch(message)
      expect(accounts.list()).toEqual([])
      expect(await filesUnder(dataDir)).toEqual([])
    })
  }

  it('an unreachable host (closed port on 127.0.0.1)', async () => {
    const port = await closedPort()
    const error = await failure(accounts.addAccount(`http://127.0.0.1:${port}`, demo.tokens.admin))
    expect(error.kind).toBe('unreachable')
    expect(error.message).toMatch(new RegExp(`Could not reach 127\\.0\\.0\\.1:${port}: nothing is listening there`))
    expect(await filesUnder(dataDir)).toEqual([])
  })
})

describe('several workspaces', () => {
  it('adds two, switches between them, and removing one deletes its token', async () => {
    const a = await accounts.addAccount(demo.baseUrl, demo.tokens.admin)
    const b = await accounts.addAccount(other.baseUrl, other.tokens.admin)
    expect(b.workspaceSlug).toBe('field-team')
    expect(accounts.list().map((x) => x.id)).toEqual([a.id, b.id])
    expect(accounts.current()?.id).toBe(b.id)

    expect((await accounts.switchTo(a.id)).id).toBe(a.id)
    expect(accounts.current()?.id).toBe(a.id)
    expect(JSON.parse(await readFile(accounts.file, 'utf8')).current).toBe(a.id)
    expect(await accounts.tokenFor(b.id)).toBe(other.tokens.admin)

    await accounts.remove(a.id)
    expect(await secrets.get(secretNameOf(a))).toBeNull()
    expect(JSON.parse(await readFile(secrets.file, 'utf8')).secrets).not.toHaveProperty(secretNameOf(a))
    expect(accounts.list().map((x) => x.id)).toEqual([b.id])
    expect(accounts.current()?.id).toBe(b.id)
    expect((await failure(accounts.tokenFor(a.id))).kind).toBe('unknown-account')
    expect((await failure(accounts.switchTo(a.id))).kind).toBe('unknown-account')
    expect(await accounts.tokenFor(b.id)).toBe(other.tokens.admin)

    await accounts.remove(b.id)
    expect(accounts.current()).toBeNull()
    expect(await secrets.get(secretNameOf(b))).toBeNull()
    expect(await filesHolding(dataDir, demo.tokens.admin)).toEqual([])
    expect(await filesHolding(dataDir, other.tokens.admin)).toEqual([])
  })

  it('says so when a listed account has lost its token', async () => {
    const a = await accounts.addAccount(demo.baseUrl, demo.tokens.admin)
    await secrets.delete(secretNameOf(a))
    const error = await failure(accounts.tokenFor(a.id))
    expect(error.kind).toBe('token-missing')
    expect(error.message).toMatch(/Add the workspace again/)
  })

  it('keeps an unreadable accounts file aside and starts empty', async () => {
    await writeFile(accounts.file, '{"version": 1, "accounts": [oops')
    const reopened = await Accounts.open({ dataDir, secrets })
    expect(reopened.list()).toEqual([])
    expect(reopened.notice).toMatch(/could not be read and was kept as .*accounts\.json\.unreadable-/)
    const kept = (await filesUnder(dataDir)).filter((f) => f.includes('.unreadable-'))
    expect(kept).toHaveLength(1)
    expect(await readFile(kept[0], 'utf8')).toContain('oops')
  })
})
