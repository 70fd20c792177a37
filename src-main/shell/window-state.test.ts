import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fitToDisplays, loadWindowState, MIN_HEIGHT, MIN_WIDTH, parseWindowState, saveWindowState, type DisplayArea } from './window-state.ts'

const laptop: DisplayArea = { x: 0, y: 0, width: 1440, height: 875 }
const external: DisplayArea = { x: 1440, y: 0, width: 2560, height: 1400 }

const dir = mkdtempSync(join(tmpdir(), 'outpost-window-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('window state', () => {
  it('keeps a window that is on a display', () => {
    const state = { bounds: { x: 1600, y: 100, width: 1200, height: 800 }, maximized: false }
    expect(fitToDisplays(state, [laptop, external])).toEqual(state)
  })

  it('drops the position of a window whose display is gone, and fits its size to the primary display', () => {
    const onExternal = { bounds: { x: 1600, y: 100, width: 2400, height: 1300 }, maximized: true }
    expect(fitToDisplays(onExternal, [laptop])).toEqual({ bounds: { width: 1440, height: 875 }, maximized: true })
  })

  it('pulls a window that hangs over the edge back inside, and never below the minimum size', () => {
    const hanging = { bounds: { x: 1300, y: 10, width: 300, height: 200 }, maximized: false }
    expect(fitToDisplays(hanging, [laptop])).toEqual({ bounds: { x: 1440 - MIN_WIDTH, y: 10, width: MIN_WIDTH, height: MIN_HEIGHT }, maximized: false })
  })

  it('refuses a title bar that cannot be grabbed (only a sliver on screen)', () => {
    const sliver = { bounds: { x: 1430, y: 860, width: 1000, height: 700 }, maximized: false }
    expect(fitToDisplays(sliver, [laptop]).bounds.x).toBeUndefined()
  })

  it('reads only well-formed files', () => {
    expect(parseWindowState({ bounds: { x: 1, y: 2, width: 800, height: 600 }, maximized: true })).toEqual({
      bounds: { x: 1, y: 2, width: 800, height: 600 },
      maximized: true,
    })
    expect(parseWindowState({ bounds: { x: 'a', y: 2, width: 800, height: 600 } })).toEqual({ bounds: { width: 800, height: 600 }, maximized: false })
    for (const bad of [
      null,
      'x',
      {},
      { bounds: { width: -1, height: 600 } },
      { bounds: { width: 1.5, height: 600 } },
      { bounds: { width: 1e9, height: 600 } },
    ]) {
      expect(parseWindowState(bad)).toBeNull()
    }
  })

  it('saves and loads through the file, and ignores a damaged one', async () => {
    const file = join(dir, 'window-state.json')
    expect(await loadWindowState(file, [laptop])).toBeUndefined()
    await saveWindowState(file, { bounds: { x: 10, y: 20, width: 1000, height: 700 }, maximized: false })
    expect(await loadWindowState(file, [laptop])).toEqual({ bounds: { x: 10, y: 20, width: 1000, height: 700 }, maximized: false })
    writeFileSync(file, '{"bounds": {"wid')
    expect(await loadWindowState(file, [laptop])).toBeUndefined()
  })
})
