// The Electron entry: app lifecycle, the window, the app protocol, menus and
// the OS hooks (theme, sleep, focus, network). Everything with logic in it is
// a plain module under src-main/; this file only connects them to Electron.
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import {
  app,
  BrowserWindow,
  crashReporter,
  dialog,
  ipcMain,
  Menu,
  nativeTheme,
  net,
  Notification,
  powerMonitor,
  protocol,
  safeStorage,
  screen,
  session,
  shell,
} from 'electron'
import type { EventChannel, EventOf } from '../src-shared/ipc.ts'
import { LINK_SCHEME, linkInArgv } from '../src-shared/links.ts'
import { demoLauncher, runningDemo, startDemoProcess, type DemoLauncher } from './demo-service.ts'
import { pageOf, registerIpc } from './ipc/register.ts'
import { openMainSide, type MainSide } from './main-side.ts'
import { CRASHES_FOLDER } from './diagnostics/problem-report.ts'
import { RecentLog } from './diagnostics/recent-log.ts'
import { autoUpdaterAsUpdater, type AutoUpdaterLike } from './updates/auto-updater.ts'
import type { Updater } from './updates/updates.ts'
import { openSecretStore } from './secrets/open.ts'
import { APP_ENTRY_URL, APP_ORIGIN, APP_SCHEME, APP_SCHEME_PRIVILEGES, appProtocolHandler } from './shell/app-protocol.ts'
import { contentSecurityPolicy } from './shell/content-security-policy.ts'
import { installContentsGuards, installSessionGuards } from './shell/guards.ts'
import { menuTemplate } from './shell/menu.ts'
import { windowOptions } from './shell/window-options.ts'
import { loadWindowState, saveWindowState, WINDOW_STATE_FILE } from './shell/window-state.ts'

// A development build may load the electron-vite dev server; a packaged app never does.
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined

// Crashes are written as minidumps into the app's data folder, never uploaded: a problem report
// says where they are, and the user decides what to send.
app.setPath('crashDumps', join(app.getPath('userData'), CRASHES_FOLDER))
crashReporter.start({ uploadToServer: false })

// The main side's warnings and errors from the start on, for "Report a problem…".
const log = new RecentLog()
log.watchConsole(console)

// Must happen before `ready`: our scheme is a standard, secure origin.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }])

let window: BrowserWindow | undefined
let mainSide: MainSide | undefined
/** The notifications on screen (see notify below). */
const shown = new Set<Notification>()
/** Deep links that came before the main side was open (the launch's own, macOS's open-url at start). */
const earlyLinks: string[] = []

function openLink(url: string | undefined): void {
  if (!url) return
  if (mainSide) mainSide.links.push(url)
  else earlyLinks.push(url)
  if (window && !window.isDestroyed()) {
    if (window.isMinimized()) window.restore()
    window.focus()
  }
}

function emit<E extends EventChannel>(event: E, payload: EventOf<E>): void {
  if (window && !window.isDestroyed()) window.webContents.send(event, payload)
}

async function createWindow(side: MainSide): Promise<void> {
  const stateFile = join(app.getPath('userData'), WINDOW_STATE_FILE)
  const state = await loadWindowState(
    stateFile,
    screen.getAllDisplays().map((d) => d.workArea),
  )
  const win = new BrowserWindow(
    windowOptions({
      preloadPath: join(__dirname, '../preload/index.cjs'),
      bounds: state?.bounds,
      dark: nativeTheme.shouldUseDarkColors,
      devTools: !app.isPackaged,
    }),
  )
  window = win
  if (state?.maximized) win.maximize()
  win.once('ready-to-show', () => win.show())
  // The page learns the OS theme on each load; later changes come from nativeTheme's 'updated'.
  win.webContents.on('did-finish-load', () => emit('outpost:theme', { dark: nativeTheme.shouldUseDarkColors }))
  win.on('focus', () => side.schedule.focused())
  // Deep links the page took and did not open go back when it goes: the window reloading, or closing.
  const page = pageOf({ sender: win.webContents })
  win.webContents.on('did-start-navigation', (details) => {
    if (details.isMainFrame && !details.isSameDocument) side.links.release(page)
  })
  win.webContents.once('destroyed', () => side.links.release(page))
  // The window waits for its state to be written, or a quit could cut the write short.
  let stateSaved = false
  win.on('close', (event) => {
    if (stateSaved) return
    event.preventDefault()
    void saveWindowState(stateFile, { bounds: win.getNormalBounds(), maximized: win.isMaximized() })
      .catch(() => undefined)
      .finally(() => {
        stateSaved = true
        win.close()
      })
  })
  win.on('closed', () => {
    window = undefined
  })
  await win.loadURL(devServerUrl ?? APP_ENTRY_URL)
}

/** electron-updater's autoUpdater, in a packaged app only (its feed is electron-builder's `publish`, in app-update.yml). */
function packagedUpdater(): Updater | undefined {
  if (!app.isPackaged) return undefined
  try {
    // Loaded as CommonJS, as it is written: its `autoUpdater` is a getter that an ESM import does not see as a named export.
    const { autoUpdater } = createRequire(import.meta.url)('electron-updater') as { autoUpdater: AutoUpdaterLike }
    return autoUpdaterAsUpdater(autoUpdater, { info: (m) => log.info(m), warn: (m) => log.warn(m), error: (m) => log.warn(m) })
  } catch (error) {
    log.warn(`Updates are off: electron-updater did not load (${error instanceof Error ? error.message : String(error)})`)
    return undefined
  }
}

async function start(): Promise<void> {
  const dataDir = app.getPath('userData')
  installSessionGuards(session.defaultSession)
  protocol.handle(APP_SCHEME, appProtocolHandler({ root: join(__dirname, '../renderer'), contentSecurityPolicy: contentSecurityPolicy() }))

  let secrets
  try {
    secrets = await openSecretStore({ safeStorage, dataDir })
  } catch (error) {
    dialog.showErrorBox('Outpost cannot keep your tokens', error instanceof Error ? error.message : String(error))
    app.quit()
    return
  }

  // `npm start` runs the local demo service and hands its address and token over; a development
  // build launched otherwise starts it on demand with Node; a packaged app does not ship it.
  const demoBaseUrl = process.env.OUTPOST_DEMO_BASE_URL
  const demoToken = process.env.OUTPOST_DEMO_TOKEN
  delete process.env.OUTPOST_DEMO_TOKEN
  let demo: DemoLauncher | undefined
  if (demoBaseUrl && demoToken) demo = runningDemo({ baseUrl: demoBaseUrl, token: demoToken })
  else if (!app.isPackaged) {
    const node = process.env.OUTPOST_NODE ?? process.env.npm_node_execpath ?? 'node'
    demo = demoLauncher(() => startDemoProcess({ node, cwd: app.getAppPath(), dataDir }))
  }

  const side = await openMainSide({
    dataDir,
    fileCacheDir: join(dataDir, 'files'),
    stagingDir: join(dataDir, 'staging'),
    secrets,
    appInfo: { name: app.getName(), version: app.getVersion(), platform: process.platform, shell: 'electron' },
    isOnline: () => net.isOnline(),
    emit,
    // Only paths the main side found in its own file cache reach it (see files.open).
    openPath: (path) => shell.openPath(path),
    notify: (notice, clicked) => {
      if (!Notification.isSupported()) return
      const note = new Notification({ title: notice.title, body: notice.body })
      // Held until it is gone: a notification collected by the GC no longer reports its click.
      shown.add(note)
      note.on('click', () => {
        clicked()
        if (window && !window.isDestroyed()) window.show()
      })
      note.on('close', () => shown.delete(note))
      note.show()
    },
    // "Export workspace…": the export goes into a new folder inside the one picked here.
    pickExportFolder: async () => {
      const options: Electron.OpenDialogOptions = {
        title: 'Export workspace',
        buttonLabel: 'Export here',
        message: 'Outpost makes a new folder for the export inside the folder you pick.',
        properties: ['openDirectory', 'createDirectory', 'promptToCreate'],
      }
      const picked = window && !window.isDestroyed() ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options)
      return picked.canceled ? undefined : picked.filePaths[0]
    },
    demo,
    updater: packagedUpdater(),
    showItemInFolder: (path) => shell.showItemInFolder(path),
    log,
  })
  mainSide = side
  for (const url of earlyLinks.splice(0)) side.links.push(url)

  registerIpc(ipcMain, {
    table: side.table,
    trusted: {
      webContentsId: () => (window && !window.isDestroyed() ? window.webContents.id : undefined),
      origins: devServerUrl ? [APP_ORIGIN, new URL(devServerUrl).origin] : [APP_ORIGIN],
    },
    onFilePicked: (path) => side.pickedFiles.add(path),
    onRefused: (channel, reason) => console.warn(`Outpost refused an IPC message on ${channel}: ${reason}`),
  })

  // The demo `npm start` runs is signed in to when no workspace is set up (or it is the current one).
  if (demoBaseUrl && demoToken && demo) {
    try {
      await side.signInToDemo(await demo.start())
    } catch (error) {
      console.error(`Outpost could not sign in to the demo workspace: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      menuTemplate(
        { platform: process.platform, appName: app.getName(), developer: !app.isPackaged },
        { command: (command) => emit('outpost:command', { command }), syncNow: () => side.schedule.now('menu') },
      ),
    ),
  )
  nativeTheme.on('updated', () => emit('outpost:theme', { dark: nativeTheme.shouldUseDarkColors }))
  powerMonitor.on('resume', () => {
    side.connectivity.checkOs(true)
    side.schedule.resumed()
  })
  // Coming back to the window is a reason to look again at once (the network may have changed meanwhile).
  app.on('browser-window-focus', () => side.connectivity.checkOs(true))

  await createWindow(side)
  side.start()
}

// One Outpost at a time: a second launch brings the first one's window forward.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  // outpost://<workspace>/epic/<id> and /doc/<id> open the item: the OS starts the app with the link
  // (Windows, Linux: in argv, or in a second launch's argv) or hands it over (macOS: open-url).
  if (process.defaultApp && process.argv.length >= 2) app.setAsDefaultProtocolClient(LINK_SCHEME, process.execPath, [resolve(process.argv[1])])
  else app.setAsDefaultProtocolClient(LINK_SCHEME)
  openLink(linkInArgv(process.argv))
  app.on('open-url', (event, url) => {
    event.preventDefault()
    openLink(url)
  })
  app.on('second-instance', (_event, argv) => {
    openLink(linkInArgv(argv))
    if (!window) return
    if (window.isMinimized()) window.restore()
    window.focus()
  })
  app.on('web-contents-created', (_event, contents) => {
    // Every webContents, the window's included, gets the guards the moment it exists.
    installContentsGuards(contents, { openExternal: (url) => shell.openExternal(url) })
  })
  app.on('activate', () => {
    if (!window && mainSide) void createWindow(mainSide)
  })
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })
  app.on('before-quit', () => {
    void mainSide?.close()
  })
  void app.whenReady().then(start)
}
