// One replayer at a time per database: a second pass waits for the first.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { v4 } from '../../../../src-server/testing.ts'
import type { CachedEpic } from '../types.ts'
import { processLock, webLock } from './lock.ts'
import { actionsFor, counting, fillCache, gated, replayFast, startKit, type Kit } from './test-kit.ts'

describe('processLock', () => {
  it('runs tasks of one name one after another, and of different names side by side', async () => {
    const lock = processLock()
    const log: string[] = []
    const task = (name: string, ms: number) => async () => {
      log.push(`start ${name}`)
      await new Promise((r) => setTimeout(r, ms))
      log.push(`end ${name}`)
      return name
    }
    const results = await Promise.all([lock.run('a', task('a1', 20)), lock.run('a', task('a2', 1)), lock.run('b', task('b1', 5))])
    expect(results).toEqual(['a1', 'a2', 'b1'])
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'))
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'))
  })

  it('lets go after a task fails', async () => {
    const lock = processLock()
    await expect(lock.run('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await lock.run('x', async () => 'next')).toBe('next')
  })

  it('webLock hands the task to a Web Locks manager', async () => {
    const names: string[] = []
    const lock = webLock({ request: (name, task) => (names.push(name), task()) })
    expect(await lock.run('outpost-outbox:x', async () => 42)).toBe(42)
    expect(names).toEqual(['outpost-outbox:x'])
  })
})

describe('one replayer per database', () => {
  let kit: Kit
  beforeEach(async () => {
    kit = await startKit()
    await fillCache(kit.db, kit.transport)
  })
  afterEach(async () => kit.close())

  it('a second window asking for a pass waits for the first, and finds nothing left to send', async () => {
    const { db } = kit
    const epic = (await db.epics.orderBy('id').first()) as CachedEpic
    const sent = counting(kit.transport)
    const t = gated(sent, 'epics.update')
    await actionsFor(db, t).updateEpic(epic.id, { name: 'Sent by one window only' })
    const lock = processLock()
    // Two windows: two database objects on the same IndexedDB, one lock.
    const other = kit.openDb()
    const first = replayFast(db, t, { lock })
    await t.reached
    const second = replayFast(other, t, { lock })
    await new Promise((r) => setTimeout(r, 20))
    t.open()
    const [a, b] = await Promise.all([first, second])
    expect(a.confirmed).toBe(1)
    expect(b.confirmed).toBe(0)
    expect(sent.counts.get('epics.update')).toBe(1)
    expect((await v4(kit.service).get(`/epics/${epic.id}`)).body.name).toBe('Sent by one window only')
    other.close()
  })
})
