import type { MenuItemConstructorOptions } from 'electron'
import { describe, expect, it } from 'vitest'
import type { AppCommand } from '../../src-shared/ipc.ts'
import { menuTemplate } from './menu.ts'

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])])
}

function build(platform: NodeJS.Platform, developer = false) {
  const commands: AppCommand[] = []
  let syncs = 0
  const items = flatten(menuTemplate({ platform, appName: 'Outpost', developer }, { command: (c) => commands.push(c), syncNow: () => syncs++ }))
  const byAccelerator = (accelerator: string) => items.filter((i) => i.accelerator === accelerator)
  const click = (accelerator: string) => (byAccelerator(accelerator)[0].click as () => void)()
  return { items, commands, syncs: () => syncs, byAccelerator, click }
}

describe('the menu', () => {
  it('has the standard edit and window roles on every platform, and the macOS app menu on macOS', () => {
    for (const platform of ['win32', 'linux', 'darwin'] as const) {
      const roles = build(platform)
        .items.map((i) => i.role)
        .filter(Boolean)
      expect(roles).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'windowMenu', 'togglefullscreen']))
      if (platform === 'darwin') expect(roles).toEqual(expect.arrayContaining(['about', 'hide', 'hideOthers', 'quit', 'close']))
      else expect(roles).toContain('quit')
    }
  })

  it('sends the app’s shortcuts to the renderer as commands', () => {
    const menu = build('linux')
    for (const accelerator of [
      'CmdOrCtrl+K',
      'CmdOrCtrl+N',
      'CmdOrCtrl+Shift+N',
      'CmdOrCtrl+F',
      'CmdOrCtrl+1',
      'CmdOrCtrl+2',
      'CmdOrCtrl+3',
      'CmdOrCtrl+4',
      'CmdOrCtrl+,',
    ]) {
      menu.click(accelerator)
    }
    expect(menu.commands).toEqual(['open-palette', 'new-epic', 'new-doc', 'find', 'go-epics', 'go-docs', 'go-files', 'go-outbox', 'open-settings'])
    menu.click('CmdOrCtrl+R')
    expect(menu.syncs()).toBe(1)
  })

  it('has Report a Problem… under Help on every platform', () => {
    for (const platform of ['win32', 'linux', 'darwin'] as const) {
      const menu = build(platform)
      const item = menu.items.find((i) => i.label === 'Report a Problem…')
      ;(item?.click as () => void)()
      expect(menu.commands).toEqual(['report-problem'])
    }
  })

  it('gives each shortcut one item, and DevTools only to a development build', () => {
    for (const developer of [false, true]) {
      const { items } = build('win32', developer)
      const accelerators = items.map((i) => i.accelerator).filter(Boolean)
      expect(new Set(accelerators).size).toBe(accelerators.length)
      expect(items.some((i) => i.role === 'toggleDevTools')).toBe(developer)
    }
  })
})
