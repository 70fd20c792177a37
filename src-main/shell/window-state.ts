// The window opens where it was closed: size, position and maximized, kept in
// a small JSON file in the app's data folder. What is read back is checked
// against the displays there are now, so a window last seen on a monitor that
// is gone does not open off-screen.
import { readFile } from 'node:fs/promises'
import { writeFileAtomically } from '../secrets/write-atomically.ts'

/** The smallest window the interface is laid out for (800 × 600 screens leave room for the OS's bars). */
export const MIN_WIDTH = 720
export const MIN_HEIGHT = 480

export interface WindowBounds {
  x?: number
  y?: number
  width: number
  height: number
}

export interface WindowState {
  bounds: WindowBounds
  maximized: boolean
}

/** A display's work area (without the task bar or the menu bar), as `screen.getAllDisplays()` gives it. */
export interface DisplayArea {
  x: number
  y: number
  width: number
  height: number
}

export const WINDOW_STATE_FILE = 'window-state.json'

/** How much of the window's top edge must be on a display to be grabbed and moved. */
const GRAB = { width: 100, height: 40 }

function isInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1_000_000
}

/** The state in a parsed file, or null when it is not one. */
export function parseWindowState(data: unknown): WindowState | null {
  if (!data || typeof data !== 'object') return null
  const { bounds, maximized } = data as { bounds?: unknown; maximized?: unknown }
  if (!bounds || typeof bounds !== 'object') return null
  const { x, y, width, height } = bounds as Record<string, unknown>
  if (!isInt(width) || !isInt(height) || width <= 0 || height <= 0) return null
  const out: WindowBounds = { width, height }
  if (isInt(x) && isInt(y)) {
    out.x = x
    out.y = y
  }
  return { bounds: out, maximized: maximized === true }
}

function overlap(a: DisplayArea, b: DisplayArea): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return w > 0 && h > 0 ? w * h : 0
}

/**
 * Fits a remembered state to the displays: the size is kept within the
 * display's work area and the minimum size; the position is kept only when
 * the window's top edge can still be grabbed on some display (else the OS
 * centres it on the primary display, `displays[0]`).
 */
export function fitToDisplays(state: WindowState, displays: DisplayArea[]): WindowState {
  const primary = displays[0]
  if (!primary) return state
  const { x, y } = state.bounds
  let home: DisplayArea | undefined
  if (x !== undefined && y !== undefined) {
    const topEdge = { x, y, width: state.bounds.width, height: GRAB.height }
    home = displays.find((d) => overlap(d, topEdge) >= Math.min(GRAB.width, state.bounds.width) * GRAB.height)
  }
  const area = home ?? primary
  const width = Math.max(MIN_WIDTH, Math.min(state.bounds.width, area.width))
  const height = Math.max(MIN_HEIGHT, Math.min(state.bounds.height, area.height))
  if (!home) return { bounds: { width, height }, maximized: state.maximized }
  // Pull it fully inside the display where the size allows.
  const fx = Math.min(Math.max(x!, area.x), area.x + area.width - width)
  const fy = Math.min(Math.max(y!, area.y), area.y + area.height - height)
  return { bounds: { x: fx, y: fy, width, height }, maximized: state.maximized }
}

/** The remembered state fitted to `displays`, or undefined when there is none (or it is unreadable). */
export async function loadWindowState(file: string, displays: DisplayArea[]): Promise<WindowState | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return undefined
  }
  let state: WindowState | null
  try {
    state = parseWindowState(JSON.parse(text))
  } catch {
    state = null
  }
  return state ? fitToDisplays(state, displays) : undefined
}

export async function saveWindowState(file: string, state: WindowState): Promise<void> {
  await writeFileAtomically(file, JSON.stringify(state), 0o644)
}
