// What Settings says of the app's updates, in a line (the state: src-main/updates/).
import type { UpdateState } from '../../../src-shared/ipc.ts'

/** What Settings says of updates, in a line. */
export function updateLine(state: UpdateState | null): string {
  if (!state) return 'Checking…'
  switch (state.status) {
    case 'off':
      return state.off === 'browser'
        ? 'The browser host does not update itself: update the project to get a newer Outpost.'
        : 'This development build does not update itself.'
    case 'idle':
      return state.checkedAt ? 'Outpost is up to date.' : 'Outpost looks for updates a little after it starts, then every few hours.'
    case 'checking':
      return 'Looking for an update…'
    case 'downloading':
      return `Downloading Outpost ${state.version} in the background${state.percent ? ` (${state.percent}%)` : ''}…`
    case 'ready':
      return `Outpost ${state.version} is ready: restart to use it.`
    case 'error':
      return `The last look for updates failed: ${state.error ?? 'no reason given'}. Outpost tries again in a few hours.`
  }
}
