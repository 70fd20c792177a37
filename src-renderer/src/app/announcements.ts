// What the status bar's live region says as the workspace's state changes:
// each event once, in words: the first download begun and done, offline and
// back, what a replay sent once the changes that waited have gone, a sync
// that failed. Never the progress of a download, nor a routine sync's
// "syncing… synced" every few minutes: a screen reader would hear nothing else.
// Refused and conflicting changes are said by the status bar too, with their
// words, read from the outbox (StatusBar.svelte).
import { plural } from '../lib/format.ts'

/** The workspace as the status bar shows it, at one moment. */
export interface SyncMoment {
  /** The cache is open. */
  ready: boolean
  online: boolean | undefined
  /** The first download is under way (or waits for the network). */
  bootstrapping: boolean
  /** The first download is done (ever, on this computer). */
  downloaded: boolean
  /** Why syncing failed, while it stays failed. */
  syncProblem: string | null
  /** Changes waiting to be sent, refused, in conflict. */
  pending: number
  failed: number
  conflicts: number
}

export const OFFLINE_WORDS = 'Offline. Changes you make are kept on this computer and sent when you are back.'

export class Announcements {
  private last: SyncMoment | undefined
  /** Changes that waited while offline (to be sent when back), and how many were refused or in conflict then. */
  private waited = 0
  private troubleBefore = 0

  /** What to say, if anything, now that the workspace is at `now`. */
  next(now: SyncMoment): string[] {
    if (!now.ready) return []
    const was = this.last
    this.last = now
    const said: string[] = []

    if (now.online === false && was?.online !== false) said.push(OFFLINE_WORDS)
    if (now.online === true && was?.online === false) said.push(now.pending > 0 ? `Back online: sending ${plural(now.pending, 'change')}` : 'Back online')

    if (now.bootstrapping && !now.downloaded && !was?.bootstrapping && now.online !== false) said.push('Downloading the workspace to this computer')
    // Done, seen happen (a small workspace downloads between two looks at it: no "downloading" is seen then).
    if (now.downloaded && was && !was.downloaded) said.push('Workspace downloaded')

    if (now.syncProblem && now.online === true && now.syncProblem !== was?.syncProblem) said.push(`Sync failed: ${now.syncProblem}`)

    // A replay's result: what waited offline has gone (some may have been refused: those are said on their own).
    const trouble = now.failed + now.conflicts
    if (now.online === false) {
      this.waited = now.pending
      this.troubleBefore = trouble
    } else if (this.waited > 0 && now.pending > this.waited) {
      // Made while the replay runs: sent with the rest.
      this.waited = now.pending
    }
    if (this.waited > 0 && now.pending === 0 && now.online === true) {
      const sent = this.waited - Math.max(0, trouble - this.troubleBefore)
      if (sent > 0) said.push(`${plural(sent, 'change')} sent`)
      this.waited = 0
    }
    return said
  }
}
