import { describe, expect, it } from 'vitest'
import { Announcements, OFFLINE_WORDS, type SyncMoment } from './announcements.ts'

const idle: SyncMoment = { ready: true, online: true, bootstrapping: false, downloaded: true, syncProblem: null, pending: 0, failed: 0, conflicts: 0 }

/** Feeds the moments in order; returns everything said. */
function heard(...moments: Partial<SyncMoment>[]): string[] {
  const announcements = new Announcements()
  return moments.flatMap((m) => announcements.next({ ...idle, ...m }))
}

describe('what the status bar says', () => {
  it('says the first download begins and ends, once, whatever its progress', () => {
    const first = { downloaded: false, bootstrapping: true }
    expect(heard({ ready: false, downloaded: false }, { ...first, online: undefined }, first, first, {}, {})).toEqual([
      'Downloading the workspace to this computer',
      'Workspace downloaded',
    ])
  })

  it('says a download done even when it was too quick to be seen under way', () => {
    expect(heard({ downloaded: false }, {})).toEqual(['Workspace downloaded'])
  })

  it('says nothing of a workspace downloaded before the window opened', () => {
    expect(heard({ ready: false }, {}, { bootstrapping: true }, {})).toEqual([])
  })

  it('says nothing of routine syncs', () => {
    expect(heard({}, {}, {}, {})).toEqual([])
  })

  it('says going offline and coming back once each, with what is to be sent', () => {
    expect(
      heard(
        {},
        { online: false },
        { online: false, pending: 1 },
        { online: false, pending: 2 },
        { online: true, pending: 2 },
        { pending: 1 },
        { pending: 0 },
        {},
      ),
    ).toEqual([OFFLINE_WORDS, 'Back online: sending 2 changes', '2 changes sent'])
  })

  it('says a window opened offline is offline', () => {
    expect(heard({ online: undefined }, { online: false })).toEqual([OFFLINE_WORDS])
  })

  it('counts only what was sent: a refused change is said on its own', () => {
    expect(heard({ online: false, pending: 3 }, { online: true, pending: 3 }, { pending: 1, failed: 1 }, { pending: 0, failed: 1 })).toEqual([
      OFFLINE_WORDS,
      'Back online: sending 3 changes',
      '2 changes sent',
    ])
  })

  it('says nothing of a change sent at once online', () => {
    expect(heard({}, { pending: 1 }, { pending: 0 })).toEqual([])
  })

  it('says a failed sync once, and not while offline', () => {
    expect(
      heard(
        {},
        { syncProblem: 'Could not reach the service' },
        { syncProblem: 'Could not reach the service' },
        { online: false, syncProblem: 'Could not reach the service' },
      ),
    ).toEqual(['Sync failed: Could not reach the service', OFFLINE_WORDS])
  })
})
