// The pacer on a virtual clock: sleeping moves time forward, so whole windows
// pass instantly and every assertion is about counts and order, never speed.
import { describe, expect, it } from 'vitest'
import type { Lane } from '../../src-shared/api/operations.ts'
import { Pacer, type Turn } from './pacer.ts'

function virtualTime() {
  let now = 1_000_000
  return {
    clock: () => now,
    sleep: async (ms: number) => {
      now += ms
    },
    advance: (ms: number) => {
      now += ms
    },
  }
}

const flush = () => new Promise((r) => setImmediate(r))

describe('Pacer', () => {
  it('never lets more than max requests into any window (widened by the margin)', async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 10, windowMs: 1000, marginMs: 50, concurrency: 100, ...time })
    const sentAt: number[] = []
    await Promise.all(
      Array.from({ length: 45 }, async (_, i) => {
        const turn = await pacer.admit((['sync', 'user-read', 'user-write'] as Lane[])[i % 3])
        sentAt.push(turn.at)
        turn.done()
      }),
    )
    expect(sentAt).toHaveLength(45)
    for (const t of sentAt) expect(sentAt.filter((s) => s >= t && s < t + 1050).length).toBeLessThanOrEqual(10)
    // A burst of max goes at once: the first ten share one instant.
    expect(new Set(sentAt.slice(0, 10)).size).toBe(1)
  })

  it('counts a request until a window after its answer: the service may have counted it as late as that', async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 2, windowMs: 1000, marginMs: 0, concurrency: 10, ...time })
    const slow = await pacer.admit('sync')
    const quick = await pacer.admit('sync')
    quick.done()
    // The slow one reaches the service late and is answered 800 ms after it was sent.
    time.advance(800)
    slow.done()
    const grantedAt: number[] = []
    const third = pacer.admit('sync').then((t) => grantedAt.push(t.at))
    const fourth = pacer.admit('sync').then((t) => grantedAt.push(t.at))
    await Promise.all([third, fourth])
    // The quick one frees its slot a window after its answer (1,000 ms after the start),
    // the slow one only a window after its own answer (1,800 ms), not a window after it was sent.
    expect(grantedAt.map((t) => t - slow.at)).toEqual([1000, 1800])
  })

  it("holds every request while all the window's slots are in flight, until one is answered", async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 1, windowMs: 1000, marginMs: 0, concurrency: 10, ...time })
    const first = await pacer.admit('sync')
    let granted = false
    const next = pacer.admit('sync').then((t) => {
      granted = true
      return t
    })
    time.advance(5000)
    await flush()
    expect(granted).toBe(false)
    first.done()
    expect((await next).at - first.at).toBe(6000)
  })

  it('hands out turns by lane: user writes, then user reads, then sync, then prefetch, in arrival order within a lane', async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 100, windowMs: 1000, concurrency: 1, ...time })
    const order: string[] = []
    const first = await pacer.admit('sync')
    const waits = (
      [
        ['prefetch', 'p1'],
        ['sync', 's1'],
        ['user-read', 'r1'],
        ['sync', 's2'],
        ['user-write', 'w1'],
        ['user-read', 'r2'],
        ['user-write', 'w2'],
      ] as [Lane, string][]
    ).map(([lane, name]) =>
      pacer.admit(lane).then((turn) => {
        order.push(name)
        turn.done()
      }),
    )
    await flush()
    expect(order).toEqual([])
    first.done()
    await Promise.all(waits)
    expect(order).toEqual(['w1', 'w2', 'r1', 'r2', 's1', 's2', 'p1'])
  })

  it('holds every request during a pause and never shortens one', async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 100, windowMs: 1000, concurrency: 10, ...time })
    const start = time.clock()
    pacer.pauseUntil(start + 5000)
    pacer.pauseUntil(start + 2000)
    const turn = await pacer.admit('user-write')
    expect(time.clock() - start).toBeGreaterThanOrEqual(5000)
    turn.done()
  })

  it('limits requests in flight and lets the next one go when one is done', async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 100, windowMs: 1000, concurrency: 2, ...time })
    const turns: Turn[] = []
    const all = Array.from({ length: 5 }, () => pacer.admit('user-read').then((t) => turns.push(t)))
    await flush()
    expect(turns).toHaveLength(2)
    expect(pacer.waiting).toBe(3)
    turns[0].done()
    turns[0].done() // twice is once
    await flush()
    expect(turns).toHaveLength(3)
    turns.slice(1).forEach((t) => t.done())
    await flush()
    turns.slice(3).forEach((t) => t.done())
    await Promise.all(all)
    expect(turns).toHaveLength(5)
  })

  it("counts the requests made before it (a sign-in's) in the window until a window after they are answered", async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 10, windowMs: 1000, marginMs: 0, concurrency: 100, ...time })
    let answer!: () => void
    const inFlight = new Promise<void>((resolve) => (answer = resolve))
    pacer.track(Promise.resolve())
    pacer.track(Promise.reject(new Error('refused')))
    pacer.track(inFlight)
    const start = time.clock()
    const sentAt: number[] = []
    const all = Array.from({ length: 10 }, () => pacer.admit('sync').then((turn) => (sentAt.push(turn.at), turn.done())))
    await flush()
    // Seven go at once; the others wait for the tracked requests to leave the window.
    expect(sentAt.filter((at) => at === start)).toHaveLength(7)
    answer()
    await Promise.all(all)
    expect(sentAt.filter((at) => at === start)).toHaveLength(7)
    expect(Math.min(...sentAt.filter((at) => at !== start))).toBeGreaterThanOrEqual(start + 1000)
  })

  it('drops a waiting request when its signal aborts, and refuses everything once closed', async () => {
    const time = virtualTime()
    const pacer = new Pacer({ max: 100, windowMs: 1000, concurrency: 1, ...time })
    const held = await pacer.admit('sync')
    const controller = new AbortController()
    const aborted = pacer.admit('user-read', controller.signal)
    const other = pacer.admit('sync')
    controller.abort(new Error('cancelled'))
    await expect(aborted).rejects.toThrow('cancelled')
    expect(pacer.waiting).toBe(1)
    pacer.close(new Error('closed'))
    await expect(other).rejects.toThrow('closed')
    await expect(pacer.admit('user-write')).rejects.toThrow('closed')
    held.done()
  })
})
