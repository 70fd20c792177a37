// Answers asked for early: each taken once by the call it answers, whatever fields that call keeps; let go
// when nobody takes them in time.
import { describe, expect, it } from 'vitest'
import { EarlyAnswers, earlyKey } from './early.ts'

describe('EarlyAnswers', () => {
  it('gives an answer to the call it answers, once', async () => {
    const early = new EarlyAnswers()
    early.add(earlyKey('epics.v3List'), Promise.resolve([{ id: 1 }]))
    expect(early.take(earlyKey('documents.v3List'))).toBeUndefined()
    expect(early.take(earlyKey('epics.v3List', { query: { includes_description: true } }))).toBeUndefined()
    expect(await early.take(earlyKey('epics.v3List'))).toEqual([{ id: 1 }])
    expect(early.take(earlyKey('epics.v3List'))).toBeUndefined()
  })

  it('lets go of an answer nobody took in time, and of a failure nobody saw', async () => {
    const early = new EarlyAnswers(20)
    early.add(earlyKey('epics.v3List'), Promise.resolve([]))
    early.add(earlyKey('documents.v3List'), Promise.reject(new Error('offline')))
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(early.take(earlyKey('epics.v3List'))).toBeUndefined()
    expect(early.take(earlyKey('documents.v3List'))).toBeUndefined()
  })
})
