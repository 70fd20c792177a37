// The app itself, imported by main.ts once the last screen (if any) is on
// screen. The last workspace's cache starts opening first (first-paint/early-cache.ts).
import './first-paint/begin.ts'
import { mount } from 'svelte'
import './app/theme.css'
import App from './App.svelte'
import { replaceLastScreen } from './first-paint/screen-copy.ts'

/** Mounts the app into `target`, replacing the last screen in the same task: the two never share a frame. */
export function start(target: HTMLElement, lastScreen: HTMLElement | undefined): ReturnType<typeof mount> {
  return lastScreen ? replaceLastScreen(lastScreen, () => mount(App, { target })) : mount(App, { target })
}
