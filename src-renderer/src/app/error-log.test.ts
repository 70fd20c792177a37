// The window's uncaught errors reach the main side's log, a few a minute at most.
import { describe, expect, it } from 'vitest'
import type { Bridge } from '../lib/bridge.ts'
import { reportUncaughtErrors } from './error-log.ts'

function fakeBridge() {
  const sent: unknown[] = []
  const bridge = { call: async (channel: string, request: unknown) => void sent.push([channel, request]) } as unknown as Bridge
  return { bridge, sent }
}

const event = (type: string, fields: Record<string, unknown>) => Object.assign(new Event(type), fields)

describe('uncaught errors', () => {
  it('are reported with their stack, rejections too, at most 10 a minute, until stopped', () => {
    const { bridge, sent } = fakeBridge()
    const target = new EventTarget()
    let now = 0
    const stop = reportUncaughtErrors(bridge, target as unknown as Window, () => now)
    const error = new Error('x is undefined')
    target.dispatchEvent(event('error', { error }))
    target.dispatchEvent(event('unhandledrejection', { reason: 'nope' }))
    target.dispatchEvent(event('error', { message: 'Script error.', filename: 'app.js', lineno: 3 }))
    expect(sent).toEqual([
      ['outpost:log.report', { level: 'error', message: error.stack }],
      ['outpost:log.report', { level: 'error', message: 'Unhandled rejection: nope' }],
      ['outpost:log.report', { level: 'error', message: 'Script error. (app.js:3)' }],
    ])
    for (let i = 0; i < 20; i++) target.dispatchEvent(event('unhandledrejection', { reason: i }))
    expect(sent).toHaveLength(10)
    now += 61_000
    target.dispatchEvent(event('unhandledrejection', { reason: 'later' }))
    expect(sent).toHaveLength(11)
    stop()
    target.dispatchEvent(event('unhandledrejection', { reason: 'after' }))
    expect(sent).toHaveLength(11)
  })
})
