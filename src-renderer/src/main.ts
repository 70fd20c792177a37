// A start paints the window's last screen first (first-paint/screen-copy.ts: a copy
// of the epic list as it was, from localStorage), lets the browser show it,
// and only then evaluates and mounts the app (start.ts, preloaded by
// index.html meanwhile), which replaces it.
import { paintLastScreen } from './first-paint/screen-copy.ts'
import { afterNextFrame } from './lib/frames.ts'
import { takeOneTimeCode } from './lib/host-key.ts'

const target = document.getElementById('app')
if (!target) throw new Error('Outpost: #app is missing from index.html')
// A browser host's one-time address (`npm start` without Electron): traded for the key before anything asks for it.
await takeOneTimeCode(window.location, window.history, window.sessionStorage)
const lastScreen = paintLastScreen(target)
if (lastScreen) await afterNextFrame()
const { start } = await import('./start.ts')
export default start(target, lastScreen)
