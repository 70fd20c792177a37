// The app's own updates as the window sees them: the main side's state
// (src-main/updates/), followed through its 'updates' event. "Restart to
// update" shows once a download is ready; a failed check stays in Settings.
import type { UpdateState } from '../../../src-shared/ipc.ts'
import type { Bridge } from '../lib/bridge.ts'

export class AppUpdates {
  state = $state<UpdateState | null>(null)
  /** A check asked for from Settings is under way. */
  checking = $state(false)
  private bridge: Bridge | undefined

  /** Follows the main side's state; returns the function that stops following. */
  follow = (bridge: Bridge): (() => void) => {
    this.bridge = bridge
    const stop = bridge.on('outpost:updates', (state) => (this.state = state))
    void bridge.call('outpost:updates.get').then(
      (state) => (this.state ??= state),
      () => undefined,
    )
    return stop
  }

  get ready(): boolean {
    return this.state?.status === 'ready'
  }

  check = async (): Promise<void> => {
    if (!this.bridge) return
    this.checking = true
    try {
      this.state = await this.bridge.call('outpost:updates.check')
    } finally {
      this.checking = false
    }
  }

  /**
   * Restarts into the downloaded update. Refused (no update ready on the main side after all, or its install
   * failed), the window takes the main side's state again, so "Restart to update" is not left offering what is
   * not there; the refusal is thrown for the caller to tell.
   */
  restart = async (): Promise<void> => {
    const bridge = this.bridge
    if (!bridge) return
    try {
      await bridge.call('outpost:updates.restart')
    } catch (error) {
      this.state = await bridge.call('outpost:updates.get').catch(() => this.state)
      throw error
    }
  }
}

export const updates = new AppUpdates()
