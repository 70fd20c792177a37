// The update decisions against a local update feed: an HTTP server in the test
// serves latest-linux.yml (electron-builder's generic provider format) and the
// installer it names; electron-updater's own GenericProvider reads it (it loads
// in Node; only its HTTP executor is Electron's, so a Node one stands in).
import { createHash } from 'node:crypto'
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HttpExecutor } from 'builder-util-runtime'
import type { AppUpdater } from 'electron-updater'
import { GenericProvider } from 'electron-updater/out/providers/GenericProvider.js'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { UpdateState } from '../../src-shared/ipc.ts'
import { ManualClock } from '../connectivity/clock.ts'
import { autoUpdaterAsUpdater, type AutoUpdaterLike } from './auto-updater.ts'
import { CHECK_INTERVAL_MS, FIRST_CHECK_MS, Updates, type Updater } from './updates.ts'
import { compareVersions, isUpdate } from './versions.ts'

class NodeExecutor extends HttpExecutor<ClientRequest> {
  createRequest(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest {
    return httpRequest(options, callback)
  }
}

const installer = Buffer.from('an Outpost installer, as far as this test is concerned')
const sha512 = createHash('sha512').update(installer).digest('base64')

/** latest.yml as electron-builder writes it for the generic provider. */
function latestYml(version: string): string {
  return [
    `version: ${version}`,
    'files:',
    `  - url: Outpost-${version}.AppImage`,
    `    sha512: ${sha512}`,
    `    size: ${installer.length}`,
    `path: Outpost-${version}.AppImage`,
    `sha512: ${sha512}`,
    "releaseDate: '2026-11-20T10:00:00.000Z'",
    '',
  ].join('\n')
}

let server: Server
let feedUrl: string
/** What the feed serves now: a version, or a status code. */
let feed: string | number = '1.0.0'
const asked: string[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? '')
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (/^\/latest[-\w]*\.yml$/.test(path)) {
      if (typeof feed === 'number') res.writeHead(feed).end('no feed here')
      else res.writeHead(200, { 'content-type': 'text/yaml' }).end(latestYml(feed))
    } else if (/^\/Outpost-.*\.AppImage$/.test(path)) res.writeHead(200, { 'content-length': installer.length }).end(installer)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

beforeEach(() => {
  asked.length = 0
  feed = '1.0.0'
})

/** An Updater over the local feed: electron-updater's generic provider checks, the download is checked against the feed's sha512. */
function feedUpdater(): Updater & { downloads: number; installs: number } {
  const provider = new GenericProvider({ provider: 'generic', url: feedUrl }, { channel: null, isAddNoCacheQuery: false } as never, {
    // Only `request` of Electron's executor is used to read the feed: Node's http does the same.
    executor: new NodeExecutor() as never,
    platform: 'linux',
    isUseMultipleRangeRequest: true,
  })
  let latest: Awaited<ReturnType<typeof provider.getLatestVersion>> | undefined
  const updater = {
    downloads: 0,
    installs: 0,
    async check() {
      latest = await provider.getLatestVersion()
      return { version: latest.version, releaseDate: latest.releaseDate }
    },
    async download(onProgress: (percent: number) => void) {
      updater.downloads++
      const [file] = provider.resolveFiles(latest!)
      const body = Buffer.from(await (await fetch(file.url.href)).arrayBuffer())
      onProgress(50)
      if (createHash('sha512').update(body).digest('base64') !== file.info.sha512) throw new Error('sha512 checksum mismatch')
      onProgress(100)
    },
    install() {
      updater.installs++
    },
  }
  return updater
}

function updatesWith(current: string, updater: Updater | undefined = feedUpdater(), clock = new ManualClock()) {
  const states: UpdateState[] = []
  const errors: string[] = []
  const updates = new Updates({ current, updater, clock, onChange: (s) => states.push(s), onError: (m) => errors.push(m) })
  return { updates, states, errors, clock }
}

describe('versions', () => {
  it('compares by Semantic Versioning’s precedence', () => {
    const ordered = [
      '0.9.9',
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.2.0',
      '1.10.0',
      '2.0.0',
    ]
    for (let i = 0; i < ordered.length - 1; i++) {
      expect(compareVersions(ordered[i], ordered[i + 1]), `${ordered[i]} < ${ordered[i + 1]}`).toBeLessThan(0)
      expect(compareVersions(ordered[i + 1], ordered[i])).toBeGreaterThan(0)
    }
    expect(compareVersions('1.2.3+build.7', '1.2.3')).toBe(0)
    expect(compareVersions('v1.2.3', '1.2.3')).toBe(0)
  })

  it('refuses what is not a version', () => {
    for (const bad of ['', '1.2', 'latest', '1.2.3.4', '01.2.3', '1.2.3-']) expect(() => isUpdate('1.0.0', bad)).toThrow(/is not a version/)
  })
})

describe('updates from a local feed', () => {
  it('finds a newer version, downloads it in the background and is ready to restart', async () => {
    feed = '1.3.0'
    const updater = feedUpdater()
    const { updates, states, errors, clock } = updatesWith('1.2.0', updater)
    const state = await updates.check()
    expect(state).toEqual({ status: 'ready', current: '1.2.0', version: '1.3.0', checkedAt: clock.now() })
    expect(states.map((s) => s.status)).toEqual(['checking', 'downloading', 'downloading', 'downloading', 'ready'])
    expect(states.filter((s) => s.status === 'downloading').map((s) => s.percent)).toEqual([0, 50, 100])
    expect(asked).toEqual([expect.stringMatching(/^\/latest-linux[-\w]*\.yml$/), '/Outpost-1.3.0.AppImage'])
    expect(errors).toEqual([])
    updates.restart()
    expect(updater.installs).toBe(1)
  })

  it('does nothing when the feed offers the running version, an older one or a pre-release of it', async () => {
    for (const [running, offered] of [
      ['1.2.0', '1.2.0'],
      ['1.2.0', '1.1.9'],
      ['1.2.0', '1.2.0-beta.3'],
      ['2.0.0', '1.99.99'],
    ]) {
      feed = offered
      const updater = feedUpdater()
      const { updates, states } = updatesWith(running, updater)
      expect(await updates.check(), `${running} offered ${offered}`).toMatchObject({ status: 'idle', current: running })
      expect(updater.downloads).toBe(0)
      expect(states.map((s) => s.status)).toEqual(['checking', 'idle'])
      expect(() => updates.restart()).toThrow('No update is ready to install yet.')
    }
  })

  it('updates a pre-release to its release', async () => {
    feed = '1.2.0'
    expect(await updatesWith('1.2.0-beta.3').updates.check()).toMatchObject({ status: 'ready', version: '1.2.0' })
  })

  it('keeps a missing feed, a broken download or a feed with no version quiet but visible, and tries again later', async () => {
    feed = 404
    const { updates, errors, clock } = updatesWith('1.2.0')
    updates.start()
    await clock.advance(FIRST_CHECK_MS)
    expect(updates.state).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^Could not check for updates: Cannot find channel "latest-linux[-\w]*\.yml"/),
    })
    expect(errors).toHaveLength(1)
    feed = '1.3.0'
    await clock.advance(CHECK_INTERVAL_MS)
    expect(updates.state).toMatchObject({ status: 'ready', version: '1.3.0' })
    updates.stop()

    feed = 'soon'
    const garbled = updatesWith('1.2.0')
    expect(await garbled.updates.check()).toMatchObject({ status: 'error', error: 'Could not check for updates: “soon” is not a version (MAJOR.MINOR.PATCH)' })

    feed = '1.3.0'
    const broken = updatesWith('1.2.0', { ...feedUpdater(), download: async () => Promise.reject(new Error('sha512 checksum mismatch')) })
    expect(await broken.updates.check()).toMatchObject({ status: 'error', error: 'Could not download Outpost 1.3.0: sha512 checksum mismatch' })
    expect(() => broken.updates.restart()).toThrow('No update is ready')
  })
})

describe('the schedule', () => {
  it('checks a while after start and every interval, never after an update is ready, and stops', async () => {
    let checks = 0
    let offered = '1.0.0'
    const updater: Updater = { check: async () => (checks++, { version: offered }), download: async () => undefined, install: () => undefined }
    const { updates, clock } = updatesWith('1.0.0', updater)
    updates.start()
    await clock.advance(FIRST_CHECK_MS - 1)
    expect(checks).toBe(0)
    await clock.advance(1)
    expect(checks).toBe(1)
    await clock.advance(CHECK_INTERVAL_MS * 2)
    expect(checks).toBe(3)
    offered = '1.0.1'
    await clock.advance(CHECK_INTERVAL_MS)
    expect(updates.state.status).toBe('ready')
    await clock.advance(CHECK_INTERVAL_MS * 3)
    expect(checks).toBe(4)
    expect(clock.pending).toBe(0)

    const other = updatesWith('1.0.0', updater)
    other.updates.start()
    other.updates.stop()
    await other.clock.advance(CHECK_INTERVAL_MS)
    expect(checks).toBe(4)
  })

  it('an install that fails is told, no longer offered, and the next check downloads the update again', async () => {
    let installs = 0
    let downloads = 0
    const updater: Updater = {
      check: async () => ({ version: '1.0.1' }),
      download: async () => void downloads++,
      install: () => {
        installs++
        if (installs === 1) throw new Error('the downloaded file is gone')
      },
    }
    const { updates, errors, clock } = updatesWith('1.0.0', updater)
    updates.start()
    await clock.advance(FIRST_CHECK_MS)
    expect(updates.state.status).toBe('ready')
    expect(clock.pending).toBe(0)

    expect(() => updates.restart()).toThrow('Could not install Outpost 1.0.1: the downloaded file is gone')
    expect(updates.state).toMatchObject({ status: 'error', error: 'Could not install Outpost 1.0.1: the downloaded file is gone' })
    expect(errors).toEqual(['Could not install Outpost 1.0.1: the downloaded file is gone'])
    expect(() => updates.restart()).toThrow('No update is ready to install yet.')
    // The next check is scheduled again, and downloads it anew.
    await clock.advance(CHECK_INTERVAL_MS)
    expect(downloads).toBe(2)
    expect(updates.state.status).toBe('ready')
    updates.restart()
    expect(installs).toBe(2)
    updates.stop()
  })

  it('joins a check already under way instead of asking twice', async () => {
    let checks = 0
    let answer: (v: { version: string }) => void = () => undefined
    const updater: Updater = {
      check: () => (checks++, new Promise((resolve) => (answer = resolve))),
      download: async () => undefined,
      install: () => undefined,
    }
    const { updates } = updatesWith('1.0.0', updater)
    const a = updates.check()
    const b = updates.check()
    answer({ version: '1.0.0' })
    expect(await a).toEqual(await b)
    expect(checks).toBe(1)
  })

  it('is off without an updater: nothing is scheduled or asked, and a restart is refused', async () => {
    const clock = new ManualClock()
    const dev = new Updates({ current: '1.0.0', clock })
    dev.start()
    expect(clock.pending).toBe(0)
    expect(await dev.check()).toEqual({ status: 'off', off: 'development', current: '1.0.0' })
    expect(() => dev.restart()).toThrow('This build of Outpost does not update itself.')
    const browser = new Updates({ current: '1.0.0', clock, off: 'browser' })
    expect(browser.state).toEqual({ status: 'off', off: 'browser', current: '1.0.0' })
    expect(() => browser.restart()).toThrow('The browser host does not update itself.')
  })
})

describe('electron-updater’s autoUpdater as the updater', () => {
  function standIn(result: { updateInfo: { version: string } } | null) {
    const calls: string[] = []
    const listeners = new Set<(p: { percent: number }) => void>()
    const auto: AutoUpdaterLike = {
      autoDownload: true,
      autoInstallOnAppQuit: true,
      logger: console,
      checkForUpdates: async () => (calls.push('check'), result),
      downloadUpdate: async () => {
        calls.push('download')
        for (const l of listeners) l({ percent: 42.4 })
        return []
      },
      quitAndInstall: (silent, runAfter) => void calls.push(`quitAndInstall(${silent}, ${runAfter})`),
      on: (_e, l) => listeners.add(l),
      off: (_e, l) => listeners.delete(l),
    }
    return { auto, calls, listeners }
  }

  it('is typed by members electron-updater’s AppUpdater has', () => {
    // A compile-time check: the real autoUpdater is an AutoUpdaterLike (index.ts hands it over as one).
    const fits = (real: AppUpdater): AutoUpdaterLike => real
    expect(typeof fits).toBe('function')
  })

  it('leaves downloading and installing to updates.ts, and reports progress', async () => {
    const { auto, calls, listeners } = standIn({ updateInfo: { version: '2.0.0' } })
    const { updates, states } = updatesWith('1.0.0', autoUpdaterAsUpdater(auto))
    expect(auto.autoDownload).toBe(false)
    expect(auto.autoInstallOnAppQuit).toBe(false)
    expect(auto.logger).toBeNull()
    expect(await updates.check()).toMatchObject({ status: 'ready', version: '2.0.0' })
    expect(states.map((s) => s.percent).filter((p) => p !== undefined)).toEqual([0, 42])
    expect(listeners.size).toBe(0)
    updates.restart()
    expect(calls).toEqual(['check', 'download', 'quitAndInstall(false, true)'])
  })

  it('says so when the build has no feed', async () => {
    const { auto } = standIn(null)
    expect(await updatesWith('1.0.0', autoUpdaterAsUpdater(auto)).updates.check()).toMatchObject({
      status: 'error',
      error: 'Could not check for updates: this build has no update feed',
    })
  })
})
