// The main window's options, as a plain function so a test can read every
// security setting without Electron.
import type { BrowserWindowConstructorOptions } from 'electron'
import { MIN_HEIGHT, MIN_WIDTH, type WindowBounds } from './window-state.ts'

export interface WindowOptionsInput {
  /** The built preload script (out/preload/index.cjs). */
  preloadPath: string
  /** Remembered size and position, already checked against the displays. */
  bounds?: WindowBounds
  /** The OS theme at start, so the first paint is not a white flash in dark mode. */
  dark: boolean
  /** DevTools only in a development build. */
  devTools: boolean
}

export function windowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  const bounds = input.bounds ?? { width: 1200, height: 800 }
  return {
    ...bounds,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    title: 'Outpost',
    show: false,
    backgroundColor: input.dark ? '#161a22' : '#f7f8fa',
    webPreferences: {
      preload: input.preloadPath,
      // The page runs with no Node, in Chromium's sandbox, in a world apart
      // from the preload's: all it gets is the bridge the preload exposes.
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      // A file dropped outside the drop zone would otherwise replace the app with the file.
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: true,
      devTools: input.devTools,
    },
  }
}
