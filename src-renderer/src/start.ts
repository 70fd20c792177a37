// The app itself, imported by main.ts once the last screen (if any) is on
// screen. The last workspace's cache starts opening first (data/early-open.ts).
import './open-early.ts'
import { mount } from 'svelte'
import './app/theme.css'
import App from './App.svelte'
import { replaceLastScreen } from './app/last-screen.ts'

/** Mounts the app into `target`, replacing the last screen in the same task: the two never share a frame. */
export function start(target: HTMLElement, lastScreen: HTMLElement | undefined): ReturnType<typeof mount> {
  return lastScreen ? replaceLastScreen(lastScreen, () => mount(App, { target })) : mount(App, { target })
}
