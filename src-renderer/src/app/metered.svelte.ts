// Metered mode: the user says their link costs by the byte (a phone's hotspot,
// a train's Wi-Fi). Outpost then sends the user's changes and fetches what
// they open or ask for (Sync now), and nothing in the background: no sync on
// the main side's schedule, no id sweeps or story refreshes, no files
// downloaded ahead of use (data/data-layer.ts `metered`). The choice is the
// link's, not a workspace's, so it holds for every workspace of this
// computer's Outpost until it is turned off.
import { readStored, writeStored } from '../lib/stored.ts'

export const METERED_KEY = 'outpost:metered'

export class Metered {
  on = $state(readStored(METERED_KEY) === 'on')

  /** Told when it is turned off: what waited (the schedule's syncs, files ahead of use) may go now. */
  private offListeners: (() => void)[] = []

  set = (on: boolean): void => {
    if (on === this.on) return
    this.on = on
    writeStored(METERED_KEY, on ? 'on' : 'off')
    if (!on) for (const listener of [...this.offListeners]) listener()
  }

  toggle = (): void => this.set(!this.on)

  /** Calls `listener` each time it is turned off; returns the function that stops. */
  onOff = (listener: () => void): (() => void) => {
    this.offListeners.push(listener)
    return () => {
      this.offListeners = this.offListeners.filter((l) => l !== listener)
    }
  }
}

export const metered = new Metered()
