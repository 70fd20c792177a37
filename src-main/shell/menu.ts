// The native menu: the standard roles each platform expects (edit, window,
// the macOS app menu) plus the app's own commands and shortcuts, which are
// sent to the renderer as events. A plain template, built without Electron.
import type { MenuItemConstructorOptions } from 'electron'
import type { AppCommand } from '../../src-shared/ipc.ts'

export interface MenuActions {
  /** A command the renderer carries out (palette, navigation, new item). */
  command: (command: AppCommand) => void
  /** Replay the outbox and sync now, even if we think we are offline. */
  syncNow: () => void
}

export interface MenuOptions {
  platform: NodeJS.Platform
  appName: string
  /** Reload and DevTools, in a development build only. */
  developer: boolean
}

export function menuTemplate(options: MenuOptions, actions: MenuActions): MenuItemConstructorOptions[] {
  const mac = options.platform === 'darwin'
  const item = (label: string, accelerator: string, command: AppCommand): MenuItemConstructorOptions => ({
    label,
    accelerator,
    click: () => actions.command(command),
  })
  const settings = item(mac ? 'Settings…' : 'Settings', 'CmdOrCtrl+,', 'open-settings')

  const appMenu: MenuItemConstructorOptions[] = mac
    ? [
        {
          label: options.appName,
          submenu: [
            { role: 'about' },
            { type: 'separator' },
            settings,
            { type: 'separator' },
            { role: 'services' },
            { type: 'separator' },
            { role: 'hide' },
            { role: 'hideOthers' },
            { role: 'unhide' },
            { type: 'separator' },
            { role: 'quit' },
          ],
        },
      ]
    : []

  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      item('New Epic', 'CmdOrCtrl+N', 'new-epic'),
      item('New Doc', 'CmdOrCtrl+Shift+N', 'new-doc'),
      { type: 'separator' },
      { label: 'Sync Now', accelerator: 'CmdOrCtrl+R', click: () => actions.syncNow() },
      { type: 'separator' },
      ...(mac ? [] : [settings, { type: 'separator' } as const]),
      mac ? { role: 'close' } : { role: 'quit' },
    ],
  }

  const edit: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      ...(mac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
      { role: 'delete' },
      { role: 'selectAll' },
      { type: 'separator' },
      item('Find…', 'CmdOrCtrl+F', 'find'),
    ],
  }

  const go: MenuItemConstructorOptions = {
    label: 'Go',
    submenu: [
      item('Command Palette…', 'CmdOrCtrl+K', 'open-palette'),
      { type: 'separator' },
      item('Epics', 'CmdOrCtrl+1', 'go-epics'),
      item('Docs', 'CmdOrCtrl+2', 'go-docs'),
      item('Files', 'CmdOrCtrl+3', 'go-files'),
      item('Outbox', 'CmdOrCtrl+4', 'go-outbox'),
    ],
  }

  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...(options.developer
        ? [
            // Sync Now has CmdOrCtrl+R; reloading the page is a developer's tool.
            { role: 'reload', accelerator: 'CmdOrCtrl+Alt+R' } as const,
            { role: 'toggleDevTools' } as const,
            { type: 'separator' } as const,
          ]
        : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  }

  const window: MenuItemConstructorOptions = { role: 'windowMenu' }
  // macOS has About in the app menu; elsewhere it goes under Help.
  const reportProblem: MenuItemConstructorOptions = { label: 'Report a Problem…', click: () => actions.command('report-problem') }
  const help: MenuItemConstructorOptions = { role: 'help', submenu: mac ? [reportProblem] : [reportProblem, { type: 'separator' }, { role: 'about' }] }

  return [...appMenu, file, edit, go, view, window, help]
}
