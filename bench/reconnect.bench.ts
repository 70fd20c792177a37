// Benchmark: how soon the app sees the service back after an outage. The main
// side's connectivity monitor (src-main/connectivity: the real HTTP probe, the
// system clock) watches a local service that is stopped for a while and
// started again on the same port and database: a request fails (the gateway
// reports it), the monitor probes while offline, and the figure is the time
// from the service listening again to the monitor saying "online". Outages of
// 10 s, 60 s and 150 s (long enough for a probe that backed off to wait a
// minute), BENCH_ROUNDS each; the peer is the probe's interval.
//
// Run: npm run bench reconnect
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { systemClock } from '../src-main/connectivity/clock.ts'
import { Connectivity, PROBE_EVERY_MS } from '../src-main/connectivity/connectivity.ts'
import { httpProbe } from '../src-main/connectivity/probe.ts'
import { startService, type RunningService } from '../src-server/index.ts'
import { ROUNDS } from './harness.ts'
import { median, report, type Figure } from './report.ts'

const OUTAGES_MS = [10_000, 60_000, 150_000]

const folder = mkdtempSync(join(tmpdir(), 'outpost-reconnect-'))
const db = join(folder, 'service.db')
let service: RunningService = await startService({ seed: 'demo', db, rateLimit: 'off' })
const port = Number(new URL(service.baseUrl).port)
const connectivity = new Connectivity({ clock: systemClock, isOnline: () => true, probe: httpProbe({ baseUrl: () => service.baseUrl }) })
connectivity.start()

/** Resolves when the monitor says online, with the time it did. */
const online = () =>
  new Promise<number>((resolve) => {
    if (connectivity.online) return resolve(performance.now())
    const stop = connectivity.onChange((state) => {
      if (!state.online) return
      stop()
      resolve(performance.now())
    })
  })

const seen: Record<number, number[]> = {}
for (const outage of OUTAGES_MS) {
  seen[outage] = []
  for (let round = 0; round < ROUNDS; round++) {
    await service.close()
    // What the gateway reports when a request finds nothing listening.
    connectivity.reportRequest(false)
    await sleep(outage)
    service = await startService({ db, port, rateLimit: 'off' })
    const listening = performance.now()
    seen[outage].push((await online()) - listening)
    console.error(`outage of ${outage / 1000} s, round ${round + 1}/${ROUNDS}: online ${Math.round(seen[outage].at(-1)!)} ms after the service`)
  }
}
connectivity.stop()
await service.close()
rmSync(folder, { recursive: true, force: true })

const figures: Figure[] = []
for (const outage of OUTAGES_MS) {
  const ms = seen[outage]
  figures.push({
    bench: 'reconnect',
    figure: `after a ${outage / 1000} s outage: online after the service is back (median)`,
    value: Math.round(median(ms)),
    unit: 'ms',
    note: 'goal: within 2,000 ms',
  })
  figures.push({ bench: 'reconnect', figure: `after a ${outage / 1000} s outage: the slowest round`, value: Math.round(Math.max(...ms)), unit: 'ms' })
}
figures.push({
  bench: 'reconnect',
  figure: 'peer: the probe interval while offline',
  value: PROBE_EVERY_MS,
  unit: 'ms',
  note: 'a probe lands within it of the return',
})
report(`Reconnect: the main side's connectivity monitor and its probe against a service stopped and started again; ${ROUNDS} rounds per outage`, figures)
