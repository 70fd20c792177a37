import { createServer, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testService } from '../../testing/service.ts'
import type { RunningService } from '../../src-server/index.ts'
import type { ConnectivityState } from '../../src-shared/ipc.ts'
import { ManualClock } from './clock.ts'
import { Connectivity, PROBE_EVERY_MS } from './connectivity.ts'
import { httpProbe } from './probe.ts'

/** A probe whose answers the test sets, counting its calls with their times. */
function scriptedProbe(clock: ManualClock) {
  const calls: number[] = []
  let reachable = false
  return {
    calls,
    set reachable(value: boolean) {
      reachable = value
    },
    probe: async () => {
      calls.push(clock.now())
      return reachable
    },
  }
}

function monitor(options: { osOnline?: boolean } = {}) {
  const clock = new ManualClock()
  const os = { online: options.osOnline ?? true }
  const probe = scriptedProbe(clock)
  const changes: ConnectivityState[] = []
  const connectivity = new Connectivity({
    clock,
    isOnline: () => os.online,
    probe: probe.probe,
    random: () => 0,
  })
  connectivity.onChange((state) => changes.push(state))
  connectivity.start()
  return { clock, os, probe, changes, connectivity }
}

describe('Connectivity', () => {
  it('starts from what the OS says', () => {
    const online = monitor({ osOnline: true })
    expect(online.connectivity.state).toMatchObject({ online: true, reason: 'start' })
    const offline = monitor({ osOnline: false })
    expect(offline.connectivity.state).toMatchObject({ online: false, reason: 'start' })
    online.connectivity.stop()
    offline.connectivity.stop()
  })

  it('goes offline on a failed request, probes every 1.5 s however long the outage, and is back within 2 s of the service', async () => {
    const { clock, probe, changes, connectivity } = monitor()
    const start = clock.now()
    connectivity.reportRequest(false)
    expect(changes).toEqual([{ online: false, reason: 'request', since: start }])

    // A long outage: the probe never backs off (a HEAD of the root, outside the API's rate limit).
    await clock.advance(3 * 60 * 60_000)
    const gaps = probe.calls.map((t, i) => t - (i === 0 ? start : probe.calls[i - 1]))
    expect(new Set(gaps)).toEqual(new Set([PROBE_EVERY_MS]))

    probe.reachable = true
    const back = clock.now()
    await clock.advance(2_000)
    expect(changes.at(-1)).toMatchObject({ online: true, reason: 'probe' })
    expect(changes.at(-1)!.since - back).toBeLessThanOrEqual(PROBE_EVERY_MS)
    connectivity.stop()
  })

  it('while requests keep reaching the service, no probe runs', async () => {
    const { clock, probe, changes, connectivity } = monitor()
    connectivity.reportRequest(false)
    await clock.advance(1_500)
    expect(probe.calls.length).toBe(1)
    connectivity.reportRequest(true)
    for (let i = 0; i < 60; i++) {
      await clock.advance(1_000)
      connectivity.reportRequest(true)
    }
    expect(probe.calls.length).toBe(1)
    expect(changes.map((c) => [c.online, c.reason])).toEqual([
      [false, 'request'],
      [true, 'request'],
    ])
    connectivity.stop()
  })

  it('online and quiet, a service that stops answering is seen gone within an interval, and seen back as fast', async () => {
    const { clock, probe, changes, connectivity } = monitor()
    probe.reachable = true
    // Quiet and alive: one probe per interval, no change.
    await clock.advance(10 * PROBE_EVERY_MS)
    expect(probe.calls.length).toBe(10)
    expect(changes).toEqual([])

    // The service dies between two syncs: offline within one interval, with no request needed.
    probe.reachable = false
    const died = clock.now()
    await clock.advance(PROBE_EVERY_MS)
    expect(changes.at(-1)).toMatchObject({ online: false, reason: 'probe' })
    expect(changes.at(-1)!.since - died).toBeLessThanOrEqual(PROBE_EVERY_MS)

    probe.reachable = true
    const back = clock.now()
    await clock.advance(PROBE_EVERY_MS)
    expect(changes.at(-1)).toMatchObject({ online: true, reason: 'probe' })
    expect(changes.at(-1)!.since - back).toBeLessThanOrEqual(PROBE_EVERY_MS)
    connectivity.stop()
  })

  it('believes the OS saying offline at once, does not probe without a network, and probes when the network is back', async () => {
    const { clock, os, probe, changes, connectivity } = monitor()
    os.online = false
    await clock.advance(1_000)
    expect(changes.at(-1)).toMatchObject({ online: false, reason: 'os' })
    await clock.advance(60_000)
    expect(probe.calls).toEqual([])

    // Back on a network: within a second of the OS saying so, a probe, and online.
    os.online = true
    probe.reachable = true
    await clock.advance(1_000)
    expect(probe.calls.length).toBe(1)
    expect(changes.at(-1)).toMatchObject({ online: true, reason: 'probe' })
    connectivity.stop()
  })

  it("probes at once when asked (focus, resume, the user's Sync now), not waiting for the interval", async () => {
    const { clock, probe, changes, connectivity } = monitor()
    connectivity.reportRequest(false)
    await clock.advance(PROBE_EVERY_MS + 100)
    const before = probe.calls.length
    probe.reachable = true
    connectivity.checkOs(true)
    await clock.advance(0)
    expect(probe.calls.length).toBe(before + 1)
    expect(changes.at(-1)).toMatchObject({ online: true, reason: 'probe' })
    connectivity.stop()
  })

  it('a network that does not reach the service stays offline', async () => {
    const { clock, os, probe, changes, connectivity } = monitor({ osOnline: false })
    os.online = true
    await clock.advance(20_000)
    expect(probe.calls.length).toBeGreaterThan(1)
    expect(changes).toEqual([])
    expect(connectivity.online).toBe(false)
    connectivity.stop()
  })

  it('reports each change once, and stop() leaves no timer behind', async () => {
    const { clock, changes, connectivity } = monitor()
    connectivity.reportRequest(false)
    connectivity.reportRequest(false)
    connectivity.reportRequest(true)
    connectivity.reportRequest(true)
    expect(changes.map((c) => c.online)).toEqual([false, true])
    connectivity.reportRequest(false)
    connectivity.stop()
    expect(clock.pending).toBe(0)
  })
})

describe('httpProbe', () => {
  let service: RunningService
  beforeAll(async () => {
    service = await testService()
  })
  afterAll(() => service.close())

  it('is true when the service answers at all', async () => {
    expect(await httpProbe({ baseUrl: () => service.baseUrl })()).toBe(true)
  })

  it('is false when nothing listens at the address', async () => {
    // A port that was free a moment ago: connection refused.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address()
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
      })
    })
    expect(await httpProbe({ baseUrl: () => `http://127.0.0.1:${port}`, timeoutMs: 2_000 })()).toBe(false)
  })

  it('is false when the host accepts the connection but never answers', async () => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const address = silent.address()
    const port = typeof address === 'object' && address ? address.port : 0
    try {
      expect(await httpProbe({ baseUrl: () => `http://127.0.0.1:${port}`, timeoutMs: 300 })()).toBe(false)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })

  it('is true without an account: there is nothing to reach', async () => {
    expect(await httpProbe({ baseUrl: () => undefined })()).toBe(true)
  })
})
