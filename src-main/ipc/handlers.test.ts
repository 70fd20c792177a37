// The handler table with the real parts (accounts, gateway, the local service
// over HTTP), called the way both transports call it: through dispatch().
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mainSideKit } from '../../testing/main-side-kit.ts'
import { testService } from '../../testing/service.ts'
import type { RunningService } from '../../src-server/index.ts'
import { startService } from '../../src-server/index.ts'
import { previousDemo, previousPort } from '../demo.ts'
import { demoLauncher, type DemoLauncher } from '../demo-service.ts'
import { safeFileName } from '../files/safe-name.ts'
import { DEMO_UNAVAILABLE } from './handlers.ts'
import { journalPath } from '../journal/journal.ts'

const kit = mainSideKit()
// A second workspace on another service, to switch to.
let other: RunningService

beforeAll(async () => {
  other = await testService({ seed: 'demo', workspaceSlug: 'acme' })
})

afterAll(async () => {
  await other.close()
})

describe('dispatch', () => {
  it('refuses channels outside the contract and malformed requests, without calling anything', async () => {
    const { ask } = await kit.open()
    expect(await ask('outpost:shell.exec', { command: 'rm -rf /' })).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
    expect(await ask('outpost:accounts.add', 'http://x')).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(await ask('outpost:api.call', { operation: 'epics.list', lane: 'vip' })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    for (const ahead of [-1, 1.5, '3', Number.POSITIVE_INFINITY]) {
      expect(await ask('outpost:api.call', { operation: 'epics.list', lane: 'sync', ahead })).toMatchObject({
        ok: false,
        error: { kind: 'invalid-request', message: expect.stringContaining('ahead must be a whole number') },
      })
    }
    expect(await ask('outpost:api.call', { operation: 'epics.get', params: { id: { $gt: 1 } } })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request' },
    })
    for (const fields of ['id', [1], ['id; drop'], ['__proto__ x'], Array.from({ length: 101 }, (_, i) => `f${i}`)]) {
      expect(await ask('outpost:api.call', { operation: 'epics.v3List', fields })).toMatchObject({
        ok: false,
        error: { kind: 'invalid-request', message: expect.stringContaining('fields') },
      })
    }
    expect(await ask('outpost:files.upload', { uploadId: 'u', paths: ['/a', '/b', '/c', '/d', '/e'] })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request' },
    })
    expect(await ask('outpost:files.download', { downloadId: 'd', fileId: -3 })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
  })

  it('says plainly that no workspace is set up yet', async () => {
    const { ask } = await kit.open()
    expect(await ask('outpost:accounts.current')).toEqual({ ok: true, value: null })
    expect(await ask('outpost:api.call', { operation: 'epics.list' })).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'no-account' } })
  })
})

describe('the handler table', () => {
  it('adds a workspace, tells the renderer, and asks for replay and sync', async () => {
    const { ask, events } = await kit.open()
    const added = await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.member })
    expect(added).toMatchObject({ ok: true, value: { workspaceSlug: 'demo', memberName: 'Max Member' } })
    expect(JSON.stringify(added)).not.toContain(kit.service.tokens.member)
    expect(events.map(([e]) => e)).toEqual(['outpost:accounts-changed'])
    expect((await ask('outpost:api.call', { operation: 'whoami' })).value).toMatchObject({ member: { name: 'Max Member' } })
    // Only the fields asked for reach the window, of each entity of a list.
    const slim = (await ask('outpost:api.call', { operation: 'epics.v3List', fields: ['id', 'position', 'no_such_field'] })).value as Record<string, unknown>[]
    expect(slim.length).toBeGreaterThan(0)
    for (const epic of slim) expect(Object.keys(epic).sort()).toEqual(['id', 'position'])
    // A path parameter left out is the request's fault, said as such.
    expect(await ask('outpost:api.call', { operation: 'epics.get' })).toMatchObject({ ok: false, error: { source: 'ipc', kind: 'invalid-request' } })
  })

  it('asks for the lists a first sync asks first while the token is checked, and the sync takes them once', async () => {
    const asked: string[] = []
    const listen = (req: IncomingMessage) => void asked.push(new URL(req.url ?? '', 'http://x').pathname)
    kit.service.app.server.prependListener('request', listen)
    try {
      const lists = () => asked.filter((path) => path === '/api/v3/epics' || path === '/api/v3/documents').sort()
      const { ask } = await kit.open()
      const added = (await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.member })).value
      const epics = (await ask('outpost:api.call', { operation: 'epics.v3List', fields: ['id', 'position'] })).value as Record<string, unknown>[]
      const docs = (await ask('outpost:api.call', { operation: 'documents.v3List' })).value as unknown[]
      // Each asked once, at the sign-in: the sync's calls took those answers, with the fields they asked for.
      expect(lists()).toEqual(['/api/v3/documents', '/api/v3/epics'])
      expect(epics.length).toBeGreaterThan(0)
      for (const epic of epics) expect(Object.keys(epic).sort()).toEqual(['id', 'position'])
      expect(docs.length).toBeGreaterThan(0)
      // Taken once: the next call asks the service.
      await ask('outpost:api.call', { operation: 'epics.v3List', fields: ['id'] })
      expect(lists()).toEqual(['/api/v3/documents', '/api/v3/epics', '/api/v3/epics'])

      // Signed in again, the workspace has its lists cached: what was asked early is not kept for it.
      asked.length = 0
      await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.member })
      const before = asked.filter((path) => path === '/api/v3/epics').length
      await ask('outpost:api.call', { operation: 'epics.v3List', fields: ['id'] })
      expect(asked.filter((path) => path === '/api/v3/epics').length).toBe(before + 1)
      expect((await ask('outpost:accounts.current')).value).toMatchObject({ id: added.id })

      // A token the service refuses: the sign-in says so, and nothing asked early is left behind.
      const refused = await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: 'svc_not-a-token' })
      expect(refused).toMatchObject({ ok: false, error: { source: 'account', kind: 'bad-token' } })
    } finally {
      kit.service.app.server.removeListener('request', listen)
    }
  })

  it('maps a read-only token’s write to `readonly`, and a new token replaces the old one at once', async () => {
    const { ask } = await kit.open()
    await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.readonly })
    expect(await ask('outpost:api.call', { operation: 'epics.create', body: { name: 'Nope' } })).toMatchObject({
      ok: false,
      error: { source: 'gateway', kind: 'readonly', status: 403 },
    })
    // Signing in again with a read-write token: the next call uses it.
    await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.member })
    expect(await ask('outpost:api.call', { operation: 'epics.create', body: { name: 'Now it works' } })).toMatchObject({
      ok: true,
      value: { name: 'Now it works' },
    })
  })

  it('switches and removes workspaces; the gateway follows', async () => {
    const { ask } = await kit.open()
    const demo = (await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.admin })).value
    const acme = (await ask('outpost:accounts.add', { baseUrl: other.baseUrl, token: other.tokens.admin })).value
    expect((await ask('outpost:api.call', { operation: 'whoami' })).value.workspace.slug).toBe('acme')
    await ask('outpost:accounts.switch', { id: demo.id })
    expect((await ask('outpost:api.call', { operation: 'whoami' })).value.workspace.slug).toBe('demo')
    await ask('outpost:accounts.remove', { id: demo.id })
    expect((await ask('outpost:accounts.current')).value).toMatchObject({ id: acme.id })
    expect((await ask('outpost:api.call', { operation: 'whoami' })).value.workspace.slug).toBe('acme')
  })

  it('uploads picked files only', async () => {
    const { ask, side, dataDir, events } = await kit.open()
    await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.admin })
    const picked = join(dataDir, 'picked.txt')
    const notPicked = join(dataDir, 'not-picked.txt')
    writeFileSync(picked, 'dropped on the window')
    writeFileSync(notPicked, 'never dropped')
    side.pickedFiles.add(picked)
    expect(await ask('outpost:files.upload', { uploadId: 'u1', paths: [notPicked] })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(await ask('outpost:files.upload', { uploadId: 'u2', paths: [picked, notPicked] })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    const uploaded = await ask('outpost:files.upload', { uploadId: 'u3', paths: [picked] })
    expect(uploaded).toMatchObject({ ok: true, value: [{ name: 'picked.txt' }] })
    expect(events.filter(([e]) => e === 'outpost:upload-progress').every(([, p]) => (p as { uploadId: string }).uploadId === 'u3')).toBe(true)
  })
})

describe('the outbox journal', () => {
  it('refuses malformed changes and accounts that are not there, and keeps each account’s changes, never its token', async () => {
    const { ask, dataDir } = await kit.open()
    const account = (await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token: kit.service.tokens.admin })).value
    const change = { kind: 'epic', entityId: 'local:1', op: 'create', payload: { name: 'Journaled' }, externalId: 'outpost-1' }
    for (const bad of [
      { accountId: account.id, records: [] },
      { accountId: account.id, records: [{ ...change, op: 'upsert' }] },
      { accountId: account.id, records: [{ ...change, kind: '../etc' }] },
      { accountId: account.id, records: [{ ...change, payload: 'name=x' }] },
      { accountId: account.id, records: [{ ...change, params: { epic_id: { $gt: 1 } } }] },
      { accountId: account.id, records: [{ ...change, staged: { path: '/x', name: 'x', size: -1 } }] },
      { accountId: account.id, records: [{ ...change, payload: { text: 'x'.repeat(9 * 1024 * 1024) } }] },
      { records: [change] },
    ]) {
      expect(await ask('outpost:journal.append', bad)).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    }
    expect(await ask('outpost:journal.sent', { accountId: account.id, ids: [0] })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(await ask('outpost:journal.kept', { accountId: account.id, ids: ['1'] })).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    expect(await ask('outpost:journal.confirm', { accountId: account.id, ids: [1], map: { 'not-local': { kind: 'epic', id: 1 } } })).toMatchObject({
      ok: false,
      error: { kind: 'invalid-request' },
    })
    expect(await ask('outpost:journal.append', { accountId: 'someone-else', records: [change] })).toMatchObject({ ok: false, error: { kind: 'no-account' } })

    const appended = await ask('outpost:journal.append', { accountId: account.id, records: [change] })
    expect(appended).toMatchObject({ ok: true, value: { ids: [1] } })
    await ask('outpost:journal.sent', { accountId: account.id, ids: [1] })
    await ask('outpost:journal.kept', { accountId: account.id, ids: [1] })
    expect((await ask('outpost:journal.read', { accountId: account.id })).value).toMatchObject({
      entries: [{ id: 1, record: change, sentAfter: 1, kept: true }],
    })
    const file = readFileSync(journalPath(dataDir, account.id), 'utf8')
    expect(file).toContain('Journaled')
    expect(file).not.toContain(kit.service.tokens.admin)
    await ask('outpost:journal.confirm', { accountId: account.id, ids: [1], map: { 'local:1': { kind: 'epic', id: 42 } } })
    expect((await ask('outpost:journal.read', { accountId: account.id })).value).toMatchObject({ entries: [], map: { 'local:1': { kind: 'epic', id: 42 } } })

    // Removing the workspace removes its journal: adding it again sends nothing it had queued.
    await ask('outpost:journal.append', { accountId: account.id, records: [change] })
    await ask('outpost:accounts.remove', { id: account.id })
    expect(existsSync(journalPath(dataDir, account.id))).toBe(false)
  })
})

describe('signing in to the demo', () => {
  it('signs in with no workspace, follows the demo to a new address, and leaves a real workspace alone', async () => {
    const { side, dataDir } = await kit.open()
    expect(await side.signInToDemo({ baseUrl: kit.service.baseUrl, token: kit.service.tokens.admin })).toBe(true)
    expect(await previousDemo(dataDir)).toEqual({ baseUrl: kit.service.baseUrl })

    // The demo came back on another address (here: another service): the old demo account goes.
    expect(await side.signInToDemo({ baseUrl: other.baseUrl, token: other.tokens.admin })).toBe(true)
    expect(side.accounts.list().map((a) => a.baseUrl)).toEqual([other.baseUrl])

    // A workspace the user added is current now: the demo does not take over.
    await side.accounts.addAccount(kit.service.baseUrl.replace('127.0.0.1', 'localhost'), kit.service.tokens.member)
    expect(await side.signInToDemo({ baseUrl: other.baseUrl, token: other.tokens.admin })).toBe(false)
    expect(side.accounts.current()?.baseUrl).toContain('localhost')
  })
})

describe('the demo card (demo.sign-in)', () => {
  /** The real local service, started in this process on demand (on the demo's last port) the way the browser host does, counted. */
  function countingDemo(dataDir: string): DemoLauncher & { starts: number } {
    const launcher = demoLauncher(async () => {
      counting.starts++
      const running = await startService({ seed: 'demo', db: join(dataDir, 'demo.db'), port: previousPort(await previousDemo(dataDir)) })
      return { demo: { baseUrl: running.baseUrl, token: running.tokens.admin }, close: () => running.close() }
    })
    const counting = Object.assign(launcher, { starts: 0 })
    return counting
  }

  it('says plainly, where the service is not shipped, that the demo needs a development build', async () => {
    const { ask } = await kit.open()
    expect((await ask('outpost:app.info')).value).toMatchObject({ demoAvailable: false })
    expect(await ask('outpost:demo.sign-in')).toEqual({ ok: false, error: { source: 'ipc', kind: 'unsupported', message: DEMO_UNAVAILABLE } })
    expect(DEMO_UNAVAILABLE).toContain('development builds')
  })

  it('starts the demo service once, signs in to it, and reuses both on the next click', async () => {
    const dataDir = kit.tempFolder()
    const demo = countingDemo(dataDir)
    const { ask, side, events } = await kit.open({ demo, dataDir })
    expect((await ask('outpost:app.info')).value).toMatchObject({ demoAvailable: true })

    const first = await ask('outpost:demo.sign-in')
    expect(first).toMatchObject({ ok: true, value: { workspaceSlug: 'demo', tokenKind: 'v4' } })
    expect(side.accounts.current()?.id).toBe(first.value.id)
    expect(events.filter(([e]) => e === 'outpost:accounts-changed')).toEqual([['outpost:accounts-changed', { current: first.value }]])
    // The demo works: the gateway follows the new account.
    expect((await ask('outpost:api.call', { operation: 'whoami' })).value.workspace.slug).toBe('demo')
    expect(await previousDemo(dataDir)).toEqual({ baseUrl: first.value.baseUrl })

    const second = await ask('outpost:demo.sign-in')
    expect(second).toMatchObject({ ok: true, value: { id: first.value.id, baseUrl: first.value.baseUrl } })
    expect(demo.starts).toBe(1)
    expect(side.accounts.list()).toHaveLength(1)
  })

  it('switches to the demo from a real workspace and keeps it, and wakes the demo when switched back to', async () => {
    const dataDir = kit.tempFolder()
    const demo = countingDemo(dataDir)
    const { ask, side } = await kit.open({ demo, dataDir })
    const acme = (await ask('outpost:accounts.add', { baseUrl: other.baseUrl, token: other.tokens.member })).value
    const signedIn = (await ask('outpost:demo.sign-in')).value
    expect(side.accounts.current()?.id).toBe(signedIn.id)
    expect(
      side.accounts
        .list()
        .map((a) => a.workspaceSlug)
        .sort(),
    ).toEqual(['acme', 'demo'])
    expect(side.accounts.list().find((a) => a.id === acme.id)).toBeDefined()
    // Back to the real workspace, and the demo service stops (as when the app starts on that workspace).
    await ask('outpost:accounts.switch', { id: acme.id })
    await demo.close()
    await expect(request(`${signedIn.baseUrl}/api/v4/whoami`)).rejects.toThrow()
    // Switching to the demo from the workspace list wakes its service.
    expect(await ask('outpost:accounts.switch', { id: signedIn.id })).toMatchObject({ ok: true, value: { id: signedIn.id } })
    expect(demo.starts).toBe(2)
    expect((await ask('outpost:api.call', { operation: 'whoami' })).value.workspace.slug).toBe('demo')
    await side.close() // stops the demo service it started
    // Nothing answers there any more (a pooled socket says 'other side closed', a new one is refused).
    await expect(request(`${signedIn.baseUrl}/api/v4/whoami`)).rejects.toThrow()
  })
})

describe('safeFileName', () => {
  it('keeps a name safe on every OS', () => {
    expect(safeFileName('report.pdf')).toBe('report.pdf')
    expect(safeFileName('../../etc/passwd')).toBe('passwd')
    expect(safeFileName('..\\..\\boot.ini')).toBe('boot.ini')
    expect(safeFileName('a:b*c?.txt')).toBe('a_b_c_.txt')
    expect(safeFileName('.hidden')).toBe('_hidden')
    expect(safeFileName('')).toBe('file')
    expect(safeFileName('x\u0000y\u001f.txt')).toBe('x_y_.txt')
  })
})

describe('notifications of the system (notify.show) and deep links (links.take)', () => {
  it('shows through the shell’s notifier, whose click keeps the link for the window; refuses other links; unsupported without a notifier', async () => {
    const shown: { title: string; body: string; link: string }[] = []
    let click = () => {}
    const { ask, side } = await kit.open({
      notify: (notice, clicked) => {
        shown.push(notice)
        click = clicked
      },
    })
    const notice = { title: '“Search” changed', body: 'State: In Progress → Done', link: 'outpost://acme/epic/12' }
    expect(await ask('outpost:notify.show', notice)).toEqual({ ok: true, value: undefined })
    expect(shown).toEqual([notice])
    expect((await ask('outpost:links.take')).value).toEqual([])
    click()
    expect((await ask('outpost:links.take')).value).toEqual(['outpost://acme/epic/12'])
    expect((await ask('outpost:links.take')).value).toEqual([])
    // The window says it opened it: it is not given back. A malformed word of it is refused.
    expect(await ask('outpost:links.opened', { links: ['outpost://acme/epic/12'] })).toEqual({ ok: true, value: undefined })
    for (const bad of [null, { links: 'outpost://acme/epic/12' }, { links: [5] }, { links: Array.from({ length: 101 }, () => 'outpost://acme/epic/1') }]) {
      expect(await ask('outpost:links.opened', bad)).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    }
    for (const bad of [{ ...notice, link: 'https://evil.example/' }, { ...notice, title: '' }, { ...notice, body: 5 }, null]) {
      expect(await ask('outpost:notify.show', bad)).toMatchObject({ ok: false, error: { kind: 'invalid-request' } })
    }
    expect(side.links.take()).toEqual([])

    const { ask: hostAsk } = await kit.open()
    expect(await hostAsk('outpost:notify.show', notice)).toMatchObject({ ok: false, error: { kind: 'unsupported' } })
  })
})
