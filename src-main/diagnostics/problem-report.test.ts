// "Report a problem…" through the handler table, with a real workspace signed
// in: the file holds what helps (versions, the OS, connectivity, accounts,
// updates, the recent log, the window's data problems and outbox) and no form
// of the token, searched for as the e2e token test searches (e2e/fixtures/leaks.ts).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { formsIn, secretForms } from '../../e2e/fixtures/leaks.ts'
import { mainSideKit, type OpenOptions } from '../../testing/main-side-kit.ts'
import { CRASHES_FOLDER, problemReport, REPORTS_FOLDER } from './problem-report.ts'
import { secretTexts, withoutSecrets } from './secrets-out.ts'
import { LOG_MESSAGE_MAX, RecentLog } from './recent-log.ts'

const kit = mainSideKit()

/** A main side of the browser host, version 1.4.2, with no workspace yet. */
const open = (options: OpenOptions = {}) => kit.open({ appInfo: { version: '1.4.2', shell: 'browser' }, ...options })

const WINDOW = {
  dataProblems: [{ table: 'epics', key: '17', reason: 'name is not a string', at: Date.parse('2026-11-20T09:00:00Z') }],
  outbox: { pending: 3, failed: 1, conflicts: 0 },
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140',
}

describe('a problem report', () => {
  it('holds versions, the OS, accounts, updates, the recent log and what the window passed, and no form of the token', async () => {
    const token = kit.service.tokens.member
    const shown: string[] = []
    const { side, dataDir, ask } = await open({ showItemInFolder: (path) => void shown.push(path) })
    // What Electron's crashReporter leaves (Crashpad's folders): named in the report, not copied into it.
    mkdirSync(join(dataDir, CRASHES_FOLDER, 'completed'), { recursive: true })
    writeFileSync(join(dataDir, CRASHES_FOLDER, 'completed', 'a1b2.dmp'), Buffer.alloc(1234))
    writeFileSync(join(dataDir, CRASHES_FOLDER, 'settings.dat'), 'not a dump')
    expect((await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token })).ok).toBe(true)
    // A token that slipped into log lines (a bug elsewhere) in every form the leak search knows.
    for (const form of secretForms(token)) side.log.warn(`a careless line: ${form.bytes.toString('latin1')}`)
    expect((await ask('outpost:log.report', { level: 'error', message: `TypeError: x is undefined (token ${token})` })).ok).toBe(true)

    const answer = await ask('outpost:problem-report.create', WINDOW)
    expect(answer).toMatchObject({ ok: true, value: { shown: true } })
    const path: string = answer.value.path
    expect(dirname(path)).toBe(join(dataDir, REPORTS_FOLDER))
    expect(shown).toEqual([path])
    const bytes = readFileSync(path)

    // The search finds nothing in the file, and would have found the token in what went into it.
    const forms = secretForms(token)
    expect(formsIn(bytes, forms)).toEqual([])
    const raw = JSON.stringify(
      problemReport({
        app: (await ask('outpost:app.info')).value,
        connectivity: side.connectivity.state,
        accounts: side.accounts.list(),
        currentAccountId: null,
        secretStore: { kind: 'keychain' },
        updates: side.updates.state,
        // The careless lines as they were written, before the log cut the token out of them.
        log: secretForms(token).map((form) => ({
          at: 0,
          level: 'warning' as const,
          from: 'main' as const,
          message: `a careless line: ${form.bytes.toString('latin1')}`,
        })),
        window: WINDOW,
        versions: process.versions,
        crashDumps: [],
        now: Date.now(),
      }),
    )
    expect(formsIn(raw, forms).length).toBeGreaterThan(3)

    const report = JSON.parse(bytes.toString('utf8'))
    expect(report).toMatchObject({
      format: 'outpost-problem-report/1',
      app: { name: 'Outpost', version: '1.4.2', shell: 'browser' },
      versions: { node: process.versions.node },
      os: { platform: 'linux', arch: process.arch },
      userAgent: WINDOW.userAgent,
      connectivity: { online: true },
      accounts: [{ current: true, baseUrl: kit.service.baseUrl, workspaceSlug: 'demo', tokenKind: expect.any(String) }],
      secretStore: { kind: 'safe-storage' },
      updates: { status: 'off', off: 'browser', current: '1.4.2' },
      outbox: WINDOW.outbox,
      dataProblems: WINDOW.dataProblems,
      crashDumps: [{ file: join('completed', 'a1b2.dmp'), bytes: 1234, at: expect.any(String) }],
    })
    expect(report.crashDumps).toHaveLength(1)
    // Named, left out, and the report says why, first thing.
    expect(report.tokens).toBe(
      'This report holds no token: every token Outpost keeps was searched for in it and cut out. Crash dumps are copies of Outpost’s memory at a crash and can hold a token, which cannot be cut out of them: the one on this computer is named below and left out.',
    )
    expect(answer.value.crashDumps).toEqual({ found: 1, included: 0 })
    expect(readdirSync(dirname(path))).toEqual([basename(path)])
    expect(report.recentLog).toContainEqual({
      at: expect.any(String),
      level: 'error',
      from: 'window',
      message: 'TypeError: x is undefined (token [token removed])',
    })
    expect(report.recentLog.filter((e: { message: string }) => e.message.startsWith('a careless line'))).toHaveLength(forms.length)
    // Only the fields named: an account's member and workspace names are not needed to find a problem.
    for (const key of Object.keys(report.accounts[0])) expect(['addedAt', 'baseUrl', 'current', 'id', 'scopes', 'tokenKind', 'workspaceSlug']).toContain(key)
  })

  it('takes the newest crash dumps along only when asked, beside the report, saying they can hold a token', async () => {
    const { ask, dataDir } = await open()
    const crashes = join(dataDir, CRASHES_FOLDER, 'completed')
    mkdirSync(crashes, { recursive: true })
    // Seven dumps, one a minute: the five newest go.
    for (let i = 1; i <= 7; i++) {
      writeFileSync(join(crashes, `dump-${i}.dmp`), Buffer.alloc(100 + i, i), { mode: 0o644 })
      utimesSync(join(crashes, `dump-${i}.dmp`), new Date(Date.UTC(2026, 10, 26, 15, i)), new Date(Date.UTC(2026, 10, 26, 15, i)))
    }
    const answer = await ask('outpost:problem-report.create', { dataProblems: [], includeCrashDumps: true })
    expect(answer).toMatchObject({ ok: true, value: { shown: false, crashDumps: { found: 7, included: 5 } } })
    const path: string = answer.value.path
    const beside = path.replace(/\.json$/, '-crash-dumps')
    expect(readdirSync(beside).sort()).toEqual(['dump-3.dmp', 'dump-4.dmp', 'dump-5.dmp', 'dump-6.dmp', 'dump-7.dmp'])
    expect(readFileSync(join(beside, 'dump-7.dmp'))).toEqual(Buffer.alloc(107, 7))
    // Only the person can read them, as the report.
    expect(statSync(join(beside, 'dump-7.dmp')).mode & 0o777).toBe(0o600)
    const report = JSON.parse(readFileSync(path, 'utf8'))
    expect(report.tokens).toBe(
      'This report holds no token: every token Outpost keeps was searched for in it and cut out. Crash dumps are copies of Outpost’s memory at a crash and can hold a token, which cannot be cut out of them: the newest 5 are copied beside this report, as asked. Send them only to someone you trust with your workspace.',
    )
    expect(report.crashDumps.map((d: { file: string; copy?: string }) => [d.file, d.copy])).toEqual([
      ...[7, 6, 5, 4, 3].map((i) => [join('completed', `dump-${i}.dmp`), `${basename(beside)}/dump-${i}.dmp`]),
      [join('completed', 'dump-2.dmp'), undefined],
      [join('completed', 'dump-1.dmp'), undefined],
    ])

    // Not asked: none go, though they are there.
    const leftOut = await ask('outpost:problem-report.create', { dataProblems: [], includeCrashDumps: false })
    expect(leftOut.value.crashDumps).toEqual({ found: 7, included: 0 })
    expect(existsSync(leftOut.value.path.replace(/\.json$/, '-crash-dumps'))).toBe(false)
  })

  it('answers where the file is when nothing can show it (the browser host)', async () => {
    const { ask, dataDir } = await open()
    const answer = await ask('outpost:problem-report.create', { dataProblems: [] })
    expect(answer).toMatchObject({ ok: true, value: { shown: false, path: expect.stringContaining(join(dataDir, REPORTS_FOLDER)) } })
    expect(JSON.parse(readFileSync(answer.value.path, 'utf8'))).toMatchObject({
      tokens: 'This report holds no token: every token Outpost keeps was searched for in it and cut out.',
      accounts: [],
      dataProblems: [],
      crashDumps: [],
    })
  })

  it('refuses malformed requests with a clear error', async () => {
    const { ask } = await open()
    const refusals: Array<[string, unknown, string]> = [
      ['outpost:problem-report.create', undefined, 'The request must be an object'],
      ['outpost:problem-report.create', { dataProblems: 'many' }, 'dataProblems must list at most 200 problems'],
      [
        'outpost:problem-report.create',
        { dataProblems: Array.from({ length: 201 }, () => WINDOW.dataProblems[0]) },
        'dataProblems must list at most 200 problems',
      ],
      ['outpost:problem-report.create', { dataProblems: [{ table: 'epics', key: '1', reason: 'x' }] }, 'dataProblems[0].at must be a time in ms'],
      ['outpost:problem-report.create', { dataProblems: [], outbox: { pending: -1, failed: 0, conflicts: 0 } }, 'outbox.pending must be a count'],
      ['outpost:problem-report.create', { dataProblems: [], userAgent: 'x'.repeat(513) }, 'userAgent must be a string of 1 to 512 characters'],
      ['outpost:problem-report.create', { dataProblems: [], includeCrashDumps: 'yes' }, 'includeCrashDumps must be true or false'],
      ['outpost:log.report', { level: 'debug', message: 'x' }, 'level must be warning or error'],
      ['outpost:log.report', { level: 'error', message: '' }, 'message must be a string of 1 to 8000 characters'],
    ]
    for (const [channel, request, message] of refusals) {
      expect(await ask(channel, request), `${channel} ${JSON.stringify(request)?.slice(0, 80)}`).toEqual({
        ok: false,
        error: { source: 'ipc', kind: 'invalid-request', message },
      })
    }
  })
})

describe('the updates channels', () => {
  it('say updates are off in the browser host and refuse a restart', async () => {
    const { ask } = await open()
    expect(await ask('outpost:updates.get')).toEqual({ ok: true, value: { status: 'off', off: 'browser', current: '1.4.2' } })
    expect(await ask('outpost:updates.check')).toEqual({ ok: true, value: { status: 'off', off: 'browser', current: '1.4.2' } })
    expect(await ask('outpost:updates.restart')).toEqual({
      ok: false,
      error: { source: 'ipc', kind: 'unsupported', message: 'The browser host does not update itself.' },
    })
  })

  it('check with the updater handed in, and tell the window each change', async () => {
    let installed = 0
    const { ask, events } = await open({
      appInfo: { version: '1.4.2', shell: 'electron' },
      updater: { check: async () => ({ version: '1.5.0' }), download: async () => undefined, install: () => void installed++ },
    })
    expect((await ask('outpost:updates.restart')).error).toEqual({ source: 'ipc', kind: 'invalid-request', message: 'No update is ready to install yet.' })
    expect(await ask('outpost:updates.check')).toMatchObject({ ok: true, value: { status: 'ready', version: '1.5.0' } })
    const statuses = events.filter(([event]) => event === 'outpost:updates').map(([, payload]) => (payload as { status: string }).status)
    expect(statuses).toEqual(['checking', 'downloading', 'ready'])
    expect(await ask('outpost:updates.restart')).toEqual({ ok: true })
    expect(installed).toBe(1)
  })
})

describe('the recent log', () => {
  it('keeps the last entries, each cut to a few kilobytes', () => {
    let now = 0
    const log = new RecentLog(() => ++now, 3)
    for (const m of ['a', 'b', 'c', 'd']) log.warn(m)
    expect(log.list().map((e) => e.message)).toEqual(['b', 'c', 'd'])
    log.add('error', 'x'.repeat(LOG_MESSAGE_MAX + 10), 'window')
    expect(log.list().at(-1)).toEqual({ at: 5, level: 'error', from: 'window', message: `${'x'.repeat(LOG_MESSAGE_MAX)}… (10 more characters)` })
  })

  it('cuts a token out of a line before cutting the line to length, so no part of it is kept', () => {
    const token = 'svc_6f1c2a9e4b7d4c0f8e2a1b3c5d7e9f01'
    const log = new RecentLog()
    log.keepOut(token)
    // The token straddles the cut: its first half before the 4,000th character, its second after.
    for (const line of [`${'x'.repeat(LOG_MESSAGE_MAX - 20)}${token} and more`, `${'y'.repeat(LOG_MESSAGE_MAX - 5)}${encodeURIComponent(token)}`])
      log.warn(line)
    for (const { message } of log.list()) {
      expect(message).not.toContain(token.slice(0, 8))
      expect(message.length).toBeLessThanOrEqual(LOG_MESSAGE_MAX + 40)
    }
    expect(log.list()[0].message).toBe(`${'x'.repeat(LOG_MESSAGE_MAX - 20)}[token removed] and … (4 more characters)`)
  })

  it('knows every token the main side stores or reads, and a report keeps no part of one cut in a long line', async () => {
    const token = kit.service.tokens.member
    const { side, ask } = await open()
    expect((await ask('outpost:accounts.add', { baseUrl: kit.service.baseUrl, token })).ok).toBe(true)
    side.log.warn(`${'z'.repeat(LOG_MESSAGE_MAX - Math.floor(token.length / 2))}${token}`)
    const answer = await ask('outpost:problem-report.create', { dataProblems: [] })
    const text = readFileSync(answer.value.path, 'utf8')
    expect(text).not.toContain(token.slice(0, 8))
    expect(text).toContain('z[token removed]')
  })

  it('keeps what the console warns and errs, still writing it there', () => {
    const written: unknown[][] = []
    const target = { warn: (...args: unknown[]) => void written.push(args), error: (...args: unknown[]) => void written.push(args) }
    const log = new RecentLog()
    const undo = log.watchConsole(target as unknown as Console)
    target.warn('refused', { channel: 'outpost:x' })
    target.error(new Error('boom'))
    undo()
    target.warn('after')
    expect(written).toHaveLength(3)
    expect(log.list().map((e) => [e.level, e.message.split('\n')[0]])).toEqual([
      ['warning', 'refused {"channel":"outpost:x"}'],
      ['error', 'Error: boom'],
    ])
  })
})

describe('cutting secrets out', () => {
  it('finds a secret as is, percent-encoded, in hex, and in base64 and base64url at every offset', () => {
    const secret = 'svc_Zm9v+/bar?baz=1&qux'
    for (const form of secretForms(secret)) {
      if (form.name === 'UTF-16') continue
      const text = `before ${form.bytes.toString('utf8')} after`
      expect(formsIn(withoutSecrets(text, [secret]), secretForms(secret)), form.name).toEqual([])
    }
    expect(secretTexts('short')).toEqual([])
  })
})
