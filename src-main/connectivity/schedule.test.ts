import { describe, expect, it } from 'vitest'
import type { ConnectivityState } from '../../src-shared/ipc.ts'
import { ManualClock } from './clock.ts'
import { Connectivity } from './connectivity.ts'
import { SyncSchedule, type ScheduleEvent } from './schedule.ts'

function schedule(options: { online?: boolean } = {}) {
  const clock = new ManualClock()
  const net = { online: options.online ?? true }
  const events: Array<[ScheduleEvent, string]> = []
  const sync = new SyncSchedule({
    clock,
    online: () => net.online,
    emit: (event, reason) => events.push([event, reason]),
    intervalMs: 60_000,
    focusGapMs: 10_000,
  })
  return { clock, net, events, sync }
}

describe('SyncSchedule', () => {
  it('asks for replay then sync at start, and on the timer', async () => {
    const { clock, events, sync } = schedule()
    sync.start()
    expect(events).toEqual([
      ['replay-now', 'start'],
      ['sync-now', 'start'],
    ])
    await clock.advance(60_000 * 3)
    expect(events.slice(2)).toEqual([
      ['replay-now', 'timer'],
      ['sync-now', 'timer'],
      ['replay-now', 'timer'],
      ['sync-now', 'timer'],
      ['replay-now', 'timer'],
      ['sync-now', 'timer'],
    ])
    sync.stop()
    expect(clock.pending).toBe(0)
  })

  it('asks on reconnect and on resume, and a trigger pushes the next timer a full period away', async () => {
    const { clock, events, sync } = schedule()
    sync.start()
    await clock.advance(50_000)
    sync.connectivityChanged(true)
    await clock.advance(50_000)
    sync.resumed()
    await clock.advance(59_999)
    expect(events.map(([, reason]) => reason)).toEqual(['start', 'start', 'reconnect', 'reconnect', 'resume', 'resume'])
    await clock.advance(1)
    expect(events.at(-1)).toEqual(['sync-now', 'timer'])
    sync.stop()
  })

  it('skips focus triggers that come close together', async () => {
    const { clock, events, sync } = schedule()
    sync.start()
    sync.focused()
    await clock.advance(5_000)
    sync.focused()
    await clock.advance(5_000)
    sync.focused()
    await clock.advance(1_000)
    sync.focused()
    expect(events.map(([, reason]) => reason)).toEqual(['start', 'start', 'focus', 'focus'])
    sync.stop()
  })

  it('asks nothing while offline, except when the user asks', async () => {
    const { clock, net, events, sync } = schedule({ online: false })
    sync.start()
    sync.resumed()
    sync.focused()
    await clock.advance(60_000 * 2)
    sync.connectivityChanged(false)
    expect(events).toEqual([])
    sync.now('menu')
    expect(events).toEqual([
      ['replay-now', 'menu'],
      ['sync-now', 'menu'],
    ])
    net.online = true
    sync.connectivityChanged(true)
    expect(events.at(-1)).toEqual(['sync-now', 'reconnect'])
    sync.stop()
  })

  it('asks nothing before start or after stop', async () => {
    const { clock, events, sync } = schedule()
    sync.resumed()
    sync.start()
    sync.stop()
    sync.focused()
    sync.connectivityChanged(true)
    await clock.advance(600_000)
    expect(events.map(([, reason]) => reason)).toEqual(['start', 'start'])
  })

  it('follows a Connectivity monitor: a probe that finds the service again triggers replay then sync', async () => {
    const clock = new ManualClock()
    let reachable = false
    const connectivity = new Connectivity({
      clock,
      isOnline: () => true,
      probe: async () => reachable,
      random: () => 0,
    })
    const events: Array<[ScheduleEvent, string]> = []
    const sync = new SyncSchedule({ clock, online: () => connectivity.online, emit: (e, r) => events.push([e, r]) })
    const seen: ConnectivityState[] = []
    connectivity.onChange((state) => {
      seen.push(state)
      sync.connectivityChanged(state.online)
    })
    connectivity.start()
    sync.start()
    connectivity.reportRequest(false)
    await clock.advance(10_000)
    reachable = true
    await clock.advance(4_000)
    expect(seen.map((s) => [s.online, s.reason])).toEqual([
      [false, 'request'],
      [true, 'probe'],
    ])
    expect(events).toEqual([
      ['replay-now', 'start'],
      ['sync-now', 'start'],
      ['replay-now', 'reconnect'],
      ['sync-now', 'reconnect'],
    ])
    sync.stop()
    connectivity.stop()
  })
})
