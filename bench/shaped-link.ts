// A shaped link for the benchmarks: a TCP proxy in front of the local service
// that makes loopback behave like a far, slow network. Each direction has a
// delay (half the round trip) and one bottleneck every connection shares: the
// bytes of all connections go through it one slice at a time, the connections
// served in turn (as TCP flows end up sharing a bottleneck fairly), at the
// direction's rate. A new connection waits one round trip before its first
// byte leaves (the TCP handshake). It counts the bytes each way and can cut
// every connection and refuse new ones for a while (a train in a tunnel).
//
// The link runs in a thread of its own, so that the work of the service and
// the browser host (in the benchmark's thread) never holds its bytes back.
//
// Not modelled: TCP's slow start (a new connection's first round trips carry
// less), loss and retransmission, TLS (one or two more round trips a new
// connection). The floor the benchmark sets against leaves them out too.
import net from 'node:net'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

export interface LinkProfile {
  name: string
  /** Round-trip time added by the link (ms). */
  rttMs: number
  /** Bottleneck rates in bits a second; Infinity: no bottleneck. */
  downBitsPerS: number
  upBitsPerS: number
}

export const LOOPBACK: LinkProfile = { name: 'loopback', rttMs: 0, downBitsPerS: Infinity, upBitsPerS: Infinity }
export const TRAIN: LinkProfile = { name: 'train', rttMs: 150, downBitsPerS: 10e6, upBitsPerS: 2e6 }
export const METERED: LinkProfile = { name: 'metered', rttMs: 300, downBitsPerS: 1e6, upBitsPerS: 0.5e6 }
export const LINK_PROFILES = [LOOPBACK, TRAIN, METERED]

/** "150 ms RTT, 10/2 Mbit/s". */
export function describeProfile(p: LinkProfile): string {
  if (p.rttMs === 0 && p.downBitsPerS === Infinity) return 'no added delay, no bottleneck'
  const mbit = (b: number) => `${b / 1e6}`.replace(/\.0+$/, '')
  return `${p.rttMs} ms RTT, ${mbit(p.downBitsPerS)}/${mbit(p.upBitsPerS)} Mbit/s`
}

/** Bytes a flow may hold in the bottleneck's queue before its sender is paused (about what a TCP window keeps in flight). */
const QUEUE_BYTES = 64 * 1024
/** The bottleneck sends this much of one flow before serving the next. */
const SLICE_BYTES = 4 * 1024
/** The bottleneck counts as idle after this long without bytes (ms). */
const IDLE_MS = 20
/** Slices are scheduled up to this far ahead of the clock (ms): timers fire late, never early. */
const AHEAD_MS = 4

interface Flow {
  queue: Buffer[]
  queued: number
  /** Slices past the bottleneck and on their way, in order, with when each arrives (ms). */
  onTheWay: { at: number; slice: Buffer }[]
  /** Delivers what has arrived (one timer a flow, so its slices arrive in the order they left). */
  arrival?: ReturnType<typeof setTimeout>
  /** Delivers bytes to the far side. */
  deliver(chunk: Buffer): void
  /** The sender may go on (its queue has room again). */
  drained(): void
  closed: boolean
}

/** One direction of the link: a delay and a bottleneck shared by every flow, served in turn. */
class Direction {
  private readonly flows: Flow[] = []
  private turn = 0
  /** When the bottleneck is free again (ms, performance.now()). */
  private freeAt = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  /** Bytes delivered to the far side. */
  delivered = 0

  constructor(
    private readonly bitsPerS: number,
    private readonly delayMs: number,
  ) {}

  add(flow: Flow): void {
    this.flows.push(flow)
  }

  remove(flow: Flow): void {
    flow.closed = true
    clearTimeout(flow.arrival)
    const at = this.flows.indexOf(flow)
    if (at >= 0) this.flows.splice(at, 1)
  }

  /** Queues a chunk of `flow`; false when its sender should wait for `drained`. */
  send(flow: Flow, chunk: Buffer): boolean {
    if (this.bitsPerS === Infinity && this.delayMs === 0) {
      this.delivered += chunk.length
      flow.deliver(chunk)
      return true
    }
    flow.queue.push(chunk)
    flow.queued += chunk.length
    this.pump()
    return flow.queued < QUEUE_BYTES
  }

  private pump(): void {
    if (this.timer !== undefined) return
    const now = performance.now()
    // Idle a while: the bottleneck starts now. Otherwise it goes on from where it was, so a timer that
    // fired late costs no capacity.
    if (this.freeAt < now - IDLE_MS) this.freeAt = now
    // Sends the slices the bottleneck has time for up to a little ahead of now, then sleeps until then.
    while (this.freeAt <= now + AHEAD_MS) {
      const flow = this.nextFlow()
      if (!flow) return
      const slice = takeSlice(flow)
      this.freeAt += this.bitsPerS === Infinity ? 0 : (slice.length * 8 * 1000) / this.bitsPerS
      const wasFull = flow.queued + slice.length >= QUEUE_BYTES
      flow.onTheWay.push({ at: this.freeAt + this.delayMs, slice })
      this.arrive(flow)
      if (wasFull && flow.queued < QUEUE_BYTES) flow.drained()
    }
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        this.pump()
      },
      this.freeAt - AHEAD_MS - now,
    )
  }

  /** Delivers the flow's slices that have arrived, in order, and waits for the next. */
  private arrive(flow: Flow): void {
    if (flow.arrival !== undefined || flow.onTheWay.length === 0) return
    flow.arrival = setTimeout(() => {
      flow.arrival = undefined
      if (flow.closed) return
      const now = performance.now()
      while (flow.onTheWay.length > 0 && flow.onTheWay[0].at <= now + 0.5) {
        const { slice } = flow.onTheWay.shift()!
        this.delivered += slice.length
        flow.deliver(slice)
      }
      this.arrive(flow)
    }, flow.onTheWay[0].at - performance.now())
  }

  private nextFlow(): Flow | undefined {
    for (let i = 0; i < this.flows.length; i++) {
      const flow = this.flows[(this.turn + i) % this.flows.length]
      if (flow.queued > 0) {
        this.turn = (this.turn + i + 1) % this.flows.length
        return flow
      }
    }
    return undefined
  }

  close(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}

function takeSlice(flow: Flow): Buffer {
  const parts: Buffer[] = []
  let size = 0
  while (flow.queue.length > 0 && size < SLICE_BYTES) {
    const head = flow.queue[0]
    const take = Math.min(head.length, SLICE_BYTES - size)
    parts.push(head.subarray(0, take))
    size += take
    if (take === head.length) flow.queue.shift()
    else flow.queue[0] = head.subarray(take)
  }
  flow.queued -= size
  return parts.length === 1 ? parts[0] : Buffer.concat(parts, size)
}

export interface ShapedLink {
  /** The service's base URL through the link. */
  url: string
  profile: LinkProfile
  /** Bytes delivered so far: to the client (down) and to the service (up). */
  bytes(): { down: number; up: number }
  /** Connections opened through the link so far. */
  connections(): number
  /** Every connection broken and new ones refused until `restore()`. */
  cut(): void
  restore(): void
  close(): Promise<void>
}

/** Counters the link's thread writes and the benchmark reads: bytes down, bytes up, connections. */
type Counters = Float64Array

/** A shaped link to `target` (the service's base URL) on a port of its own, in a thread of its own. */
export async function startShapedLink(target: string, profile: LinkProfile): Promise<ShapedLink> {
  const counters: Counters = new Float64Array(new SharedArrayBuffer(3 * Float64Array.BYTES_PER_ELEMENT))
  // The thread loads this file as the benchmark does: TypeScript, through tsx's loader registered in it.
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}) })`
  const worker = new Worker(boot, { eval: true, workerData: { shapedLink: { target, profile, counters } } })
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (m: { listening: number }) => resolve(m.listening))
    worker.once('error', reject)
  })
  return {
    url: `http://127.0.0.1:${port}`,
    profile,
    bytes: () => ({ down: counters[0], up: counters[1] }),
    connections: () => counters[2],
    cut: () => worker.postMessage('cut'),
    restore: () => worker.postMessage('restore'),
    async close() {
      worker.postMessage('close')
      await new Promise((resolve) => worker.once('exit', resolve))
    },
  }
}

/** The link itself, in its thread: a proxy on a free port of loopback. */
async function serveShapedLink(target: string, profile: LinkProfile, counters: Counters): Promise<void> {
  const upstream = new URL(target)
  const down = new Direction(profile.downBitsPerS, profile.rttMs / 2)
  const up = new Direction(profile.upBitsPerS, profile.rttMs / 2)
  const sockets = new Set<net.Socket>()
  let isCut = false
  const count = setInterval(() => {
    counters[0] = down.delivered
    counters[1] = up.delivered
  }, 2)

  const server = net.createServer((client) => {
    counters[2]++
    if (isCut) {
      client.destroy()
      return
    }
    client.pause()
    client.setNoDelay(true)
    const service = net.connect({ host: upstream.hostname, port: Number(upstream.port) })
    service.setNoDelay(true)
    sockets.add(client)
    sockets.add(service)
    const toClient: Flow = { queue: [], queued: 0, onTheWay: [], closed: false, deliver: (c) => client.write(c), drained: () => service.resume() }
    const toService: Flow = { queue: [], queued: 0, onTheWay: [], closed: false, deliver: (c) => service.write(c), drained: () => client.resume() }
    down.add(toClient)
    up.add(toService)
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      down.remove(toClient)
      up.remove(toService)
      sockets.delete(client)
      sockets.delete(service)
      client.destroy()
      service.destroy()
    }
    /** Runs `then` once what `flow` was given has crossed. */
    const afterCrossing = (flow: Flow, then: () => void) => {
      const wait = () => (flow.queued > 0 || flow.onTheWay.length > 0 ? setTimeout(wait, 5) : then())
      wait()
    }
    // A half-close, or a close, is passed on once what was sent before it has crossed.
    const passEnd = (flow: Flow, to: net.Socket) => () => afterCrossing(flow, () => to.end())
    service.on('data', (chunk: Buffer) => {
      if (!down.send(toClient, chunk)) service.pause()
    })
    client.on('data', (chunk: Buffer) => {
      if (!up.send(toService, chunk)) client.pause()
    })
    service.on('end', passEnd(toClient, client))
    client.on('end', passEnd(toService, service))
    service.on('close', () => afterCrossing(toClient, end))
    client.on('close', end)
    service.on('error', end)
    client.on('error', end)
    // The handshake: the first byte may leave one round trip after the connection was opened.
    setTimeout(() => {
      if (!ended) client.resume()
    }, profile.rttMs)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  parentPort!.on('message', (message: 'cut' | 'restore' | 'close') => {
    if (message === 'cut') {
      isCut = true
      for (const s of sockets) s.destroy()
      sockets.clear()
    } else if (message === 'restore') {
      isCut = false
    } else {
      clearInterval(count)
      for (const s of sockets) s.destroy()
      down.close()
      up.close()
      server.close(() => process.exit(0))
    }
  })
  parentPort!.postMessage({ listening: (server.address() as net.AddressInfo).port })
}

if (!isMainThread && (workerData as { shapedLink?: unknown } | null)?.shapedLink) {
  const { target, profile, counters } = (workerData as { shapedLink: { target: string; profile: LinkProfile; counters: Counters } }).shapedLink
  void serveShapedLink(target, profile, counters)
}
