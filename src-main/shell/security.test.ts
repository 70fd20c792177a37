// The window's security settings, read from the very functions the Electron
// entry uses: its options, the handlers it installs on the session and the
// webContents, its Content-Security-Policy, and the IPC sender checks.
import { describe, expect, it } from 'vitest'
import { REQUEST_CHANNELS, type IpcResult } from '../../src-shared/ipc.ts'
import type { HandlerTable } from '../ipc/dispatch.ts'
import { registerIpc, type IpcMainLike } from '../ipc/register.ts'
import type { SenderEvent } from '../ipc/sender.ts'
import { APP_ENTRY_URL, APP_ORIGIN } from './app-protocol.ts'
import { contentSecurityPolicy } from './content-security-policy.ts'
import { installContentsGuards, installSessionGuards, type ContentsLike, type SessionLike } from './guards.ts'
import { windowOptions } from './window-options.ts'

type Listener = (...args: any[]) => any

/** A stand-in for Electron's Session that records what is installed on it. */
function recordingSession() {
  const installed: Record<string, Listener> = {}
  const session: SessionLike = {
    setPermissionRequestHandler: (handler) => void (installed.permissionRequest = handler as Listener),
    setPermissionCheckHandler: (handler) => void (installed.permissionCheck = handler as Listener),
    setDevicePermissionHandler: (handler) => void (installed.devicePermission = handler as Listener),
    on: (event: string, listener: Listener) => {
      installed[event] = listener
      return session
    },
  }
  return { session, installed }
}

function recordingContents() {
  const installed: Record<string, Listener> = {}
  const contents = {
    setWindowOpenHandler: (handler: Listener) => void (installed.windowOpen = handler),
    on: (event: string, listener: Listener) => {
      installed[event] = listener
      return contents
    },
  } as unknown as ContentsLike
  return { contents, installed }
}

function preventable() {
  let prevented = false
  return {
    preventDefault: () => void (prevented = true),
    get prevented() {
      return prevented
    },
  }
}

describe('the window', () => {
  const options = windowOptions({ preloadPath: '/app/out/preload/index.cjs', dark: false, devTools: false })
  const web = options.webPreferences!

  it('isolates the page: context isolation, sandbox, no Node, web security', () => {
    expect(web.contextIsolation).toBe(true)
    expect(web.sandbox).toBe(true)
    expect(web.nodeIntegration).toBe(false)
    expect(web.nodeIntegrationInWorker).toBe(false)
    expect(web.nodeIntegrationInSubFrames).toBe(false)
    expect(web.webSecurity).toBe(true)
    expect(web.allowRunningInsecureContent).toBe(false)
    expect(web.webviewTag).toBe(false)
    expect(web.experimentalFeatures).toBe(false)
    expect(web.navigateOnDragDrop).toBe(false)
    expect(web.preload).toBe('/app/out/preload/index.cjs')
  })

  it('has DevTools only in a development build', () => {
    expect(web.devTools).toBe(false)
    expect(windowOptions({ preloadPath: 'p', dark: true, devTools: true }).webPreferences!.devTools).toBe(true)
  })

  it('is loaded from the app protocol, not file:// nor a server', () => {
    expect(APP_ENTRY_URL).toBe('outpost://app/index.html')
  })
})

describe('the Content-Security-Policy', () => {
  const policy = Object.fromEntries(
    contentSecurityPolicy()
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...sources]) => [name, sources]),
  )

  it('denies by default and runs only the app’s own scripts', () => {
    expect(policy['default-src']).toEqual(["'none'"])
    expect(policy['script-src']).toEqual(["'self'"])
    for (const sources of Object.values(policy)) {
      expect(sources).not.toContain("'unsafe-eval'")
      expect(sources).not.toContain('*')
    }
    expect(policy['script-src']).not.toContain("'unsafe-inline'")
  })

  it('lets the page talk only to its own origin, and frames, plugins, forms and <base> nowhere', () => {
    expect(policy['connect-src']).toEqual(["'self'"])
    expect(policy['object-src']).toEqual(["'none'"])
    expect(policy['frame-src']).toEqual(["'none'"])
    expect(policy['frame-ancestors']).toEqual(["'none'"])
    expect(policy['form-action']).toEqual(["'none'"])
    expect(policy['base-uri']).toEqual(["'none'"])
  })
})

describe('the session', () => {
  const { session, installed } = recordingSession()
  installSessionGuards(session)

  it('denies every permission request and check', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen']) {
      const answers: boolean[] = []
      installed.permissionRequest({}, permission, (granted: boolean) => answers.push(granted), {})
      expect(answers).toEqual([false])
      expect(installed.permissionCheck({}, permission, APP_ORIGIN, {})).toBe(false)
    }
    expect(installed.devicePermission({ deviceType: 'usb', origin: APP_ORIGIN })).toBe(false)
  })

  it('refuses downloads started by the page', () => {
    const event = preventable()
    installed['will-download'](event, {}, {})
    expect(event.prevented).toBe(true)
  })
})

describe('the window’s webContents', () => {
  function guarded() {
    const { contents, installed } = recordingContents()
    const opened: string[] = []
    installContentsGuards(contents, { openExternal: (url) => opened.push(url) })
    return { installed, opened }
  }

  it('never navigates, and opens web links in the OS browser', () => {
    const { installed, opened } = guarded()
    for (const url of [
      'https://example.com/page',
      'http://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'outpost://app/other.html',
      'smb://host/share',
    ]) {
      const event = preventable()
      installed['will-navigate'](event, url)
      expect(event.prevented).toBe(true)
    }
    expect(opened).toEqual(['https://example.com/page', 'http://example.com/'])
  })

  it('opens no window: web links go to the OS browser, anything else nowhere', () => {
    const { installed, opened } = guarded()
    expect(installed.windowOpen({ url: 'https://example.com/doc' })).toEqual({ action: 'deny' })
    expect(installed.windowOpen({ url: 'file:///C:/Windows/system32/calc.exe' })).toEqual({ action: 'deny' })
    expect(installed.windowOpen({ url: 'ms-msdt:/id PCWDiagnostic' })).toEqual({ action: 'deny' })
    expect(installed.windowOpen({ url: 'not a url' })).toEqual({ action: 'deny' })
    expect(opened).toEqual(['https://example.com/doc'])
  })

  it('refuses redirects and <webview>', () => {
    const { installed } = guarded()
    const redirect = preventable()
    installed['will-redirect'](redirect, 'https://elsewhere.example/')
    expect(redirect.prevented).toBe(true)
    const webview = preventable()
    installed['will-attach-webview'](webview)
    expect(webview.prevented).toBe(true)
  })
})

describe('IPC sender checks', () => {
  const OUR_WINDOW = 7
  const table = Object.fromEntries(REQUEST_CHANNELS.map((c) => [c, async () => `answer of ${c}`])) as unknown as HandlerTable

  function registered() {
    const handlers = new Map<string, Listener>()
    const listeners = new Map<string, Listener>()
    const ipcMain: IpcMainLike = {
      handle: (channel, listener) => void handlers.set(channel, listener),
      on: (channel, listener) => void listeners.set(channel, listener),
    }
    const picked: unknown[] = []
    const refusals: string[] = []
    registerIpc(ipcMain, {
      table,
      trusted: { webContentsId: () => OUR_WINDOW, origins: [APP_ORIGIN] },
      onFilePicked: (path) => picked.push(path),
      onRefused: (channel, reason) => refusals.push(`${channel}: ${reason}`),
    })
    return { handlers, listeners, picked, refusals }
  }

  const mainFrame: SenderEvent = { sender: { id: OUR_WINDOW }, senderFrame: { url: 'outpost://app/index.html', parent: null } }
  const subframe: SenderEvent = { sender: { id: OUR_WINDOW }, senderFrame: { url: 'outpost://app/index.html', parent: {} } }
  const otherUrl: SenderEvent = { sender: { id: OUR_WINDOW }, senderFrame: { url: 'https://evil.example/', parent: null } }
  const fileUrl: SenderEvent = { sender: { id: OUR_WINDOW }, senderFrame: { url: 'file:///app/out/renderer/index.html', parent: null } }
  const otherContents: SenderEvent = { sender: { id: 99 }, senderFrame: { url: 'outpost://app/index.html', parent: null } }
  const goneFrame: SenderEvent = { sender: { id: OUR_WINDOW }, senderFrame: null }

  it('registers every request channel of the contract, and nothing else', () => {
    const { handlers, listeners } = registered()
    expect([...handlers.keys()].sort()).toEqual([...REQUEST_CHANNELS].sort())
    expect([...listeners.keys()]).toEqual(['outpost:files.picked'])
  })

  it('answers the main frame of our window showing our app', async () => {
    const { handlers } = registered()
    const result: IpcResult<unknown> = await handlers.get('outpost:app.info')!(mainFrame, undefined)
    expect(result).toEqual({ ok: true, value: 'answer of outpost:app.info' })
  })

  it('refuses a subframe, another URL, file://, another webContents and a frame that is gone', async () => {
    const { handlers, refusals } = registered()
    for (const event of [subframe, otherUrl, fileUrl, otherContents, goneFrame]) {
      const result: IpcResult<unknown> = await handlers.get('outpost:accounts.list')!(event, undefined)
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.error).toMatchObject({ source: 'ipc', kind: 'refused' })
    }
    expect(refusals).toHaveLength(5)
    expect(refusals.join('\n')).toMatch(/subframe/)
    expect(refusals.join('\n')).toMatch(/evil\.example/)
  })

  it('takes picked file paths only from our main frame', () => {
    const { listeners, picked } = registered()
    const send = listeners.get('outpost:files.picked')!
    send(mainFrame, { path: '/home/me/report.pdf' })
    send(subframe, { path: '/home/me/.ssh/id_rsa' })
    send(otherContents, { path: '/etc/shadow' })
    expect(picked).toEqual(['/home/me/report.pdf'])
  })
})
