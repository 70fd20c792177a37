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

/** A clock that moves only when the test says: a sleeper wakes once the test moves the clock past its wake-up. */
function steppedTime() {
  let now = 1_000_000
  let sleepers: { until: number; wake: () => void }[] = []
  return {
    start: now,
    clock: () => now,
    sleep: (ms: number) => new Promise<void>((wake) => sleepers.push({ until: now + ms, wake })),
    async to(at: number) {
      now = at
      const due = sleepers.filter((s) => s.until <= now)
      sleepers = sleepers.filter((s) => s.until > now)
      for (const s of due) s.wake()
      await flush()
    },
  }
}

/**
 * A background run of `requests`, all waiting at once, each saying how many come after it (or nothing), and
 * the user's reads, one asked at each of `userAt` (ms from the start). With 20 a window of 1,000 ms, 19 for
 * the background. When each was granted, from the start; each is answered at once.
 */
async function runBesideUser(requests: number, saysAhead: boolean, userAt: number[] = []) {
  const time = steppedTime()
  const pacer = new Pacer({ max: 20, windowMs: 1000, marginMs: 0, concurrency: 100, reserve: { slots: 0, requests: 1 }, ...time })
  const background: number[] = []
  const user: { asked: number; granted: number }[] = []
  const all = Array.from({ length: requests }, (_, i) =>
    pacer.admit('sync', undefined, saysAhead ? requests - 1 - i : undefined).then((turn) => {
      background.push(turn.at - time.start)
      turn.done()
    }),
  )
  await flush()
  const asks = [...userAt].sort((a, b) => a - b)
  for (let at = 0; background.length + user.length < requests + userAt.length; at += 50) {
    if (at > 20_000) throw new Error(`stuck: ${background.length} of ${requests}, ${user.length} of ${userAt.length}`)
    await time.to(time.start + at)
    while (asks.length > 0 && asks[0] <= at) {
      const asked = asks.shift()!
      all.push(pacer.admit('user-read').then((turn) => (user.push({ asked, granted: turn.at - time.start }), turn.done())))
    }
    await flush()
  }
  await Promise.all(all)
  const busiest = Math.max(...background.map((t) => background.filter((s) => s >= t && s < t + 1000).length))
  return { background, user, busiest }
}

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

  it('takes, for a background run that says what it still needs, the least share of each window that ends it as soon', async () => {
    // 60 requests with 19 of 20 a window for the background: 19, 19, 19 and 3, the last at 3,000 ms.
    const bursts = await runBesideUser(60, false)
    expect(bursts.busiest).toBe(19)
    expect(Math.max(...bursts.background)).toBe(3000)
    // Told what is ahead: 15 a window (60 in 4 windows) ends at 3,000 ms too.
    const shared = await runBesideUser(60, true)
    expect(shared.busiest).toBe(15)
    expect(Math.max(...shared.background)).toBe(3000)

    // The user's 5 reads half a window in: with the bursts, one goes on the reserve and the others wait for
    // the window to turn; with the share, they all go at once.
    const fiveAt500 = Array<number>(5).fill(500)
    expect((await runBesideUser(60, false, fiveAt500)).user.filter((u) => u.granted === 500)).toHaveLength(1)
    expect((await runBesideUser(60, true, fiveAt500)).user.map((u) => u.granted)).toEqual(fiveAt500)
  })

  it("keeps to the full share when less would take another turn, and forgets a run's plan a window after its last word", async () => {
    // 57 requests fill three windows of 19: no less would end them as soon.
    const full = await runBesideUser(57, true)
    expect(full.busiest).toBe(19)
    expect(Math.max(...full.background)).toBe(2000)

    const time = steppedTime()
    const pacer = new Pacer({ max: 20, windowMs: 1000, marginMs: 0, concurrency: 100, reserve: { slots: 0, requests: 1 }, ...time })
    // A run said 100 more were coming, then stopped after its first request.
    ;(await pacer.admit('sync', undefined, 100)).done()
    await time.to(time.start + 2500)
    const grantedAt: number[] = []
    const next = Array.from({ length: 19 }, () => pacer.admit('prefetch').then((turn) => (grantedAt.push(turn.at - time.start), turn.done())))
    await flush()
    await Promise.all(next)
    expect(grantedAt).toEqual(Array(19).fill(2500))
  })

  it('leaves free for the user, window after window, as much as they have been using', async () => {
    // A read every 100 ms (10 a window) beside a background of 100 requests that says nothing ahead.
    const userAt = Array.from({ length: 60 }, (_, i) => 100 + i * 100)
    const { user, background } = await runBesideUser(100, false, userAt)
    // The first window's reads find the background's burst, and wait for the window to turn. The background
    // then takes a tenth for a window, so that the reads which waited together are not left together again.
    expect(user.filter((u) => u.asked < 1000).some((u) => u.granted > u.asked)).toBe(true)
    expect(background.filter((t) => t >= 1000 && t < 2000)).toHaveLength(2)
    // From then on every read goes as it is asked, and the background has what the user leaves: 9 a window.
    expect(user.filter((u) => u.asked >= 1000).every((u) => u.granted === u.asked)).toBe(true)
    expect(background.filter((t) => t >= 2000 && t < 3000)).toHaveLength(9)
    // Two windows after the user's last read, the background has its whole share again.
    expect(background.filter((t) => t >= 8000 && t < 9000)).toHaveLength(19)
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
