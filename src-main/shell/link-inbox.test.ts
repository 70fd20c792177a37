import { describe, expect, it } from 'vitest'
import { LinkInbox } from './link-inbox.ts'

describe('the deep links the OS hands over', () => {
  it('are kept until taken, each once, and the window is told of each; other text is ignored', () => {
    let told = 0
    const inbox = new LinkInbox(() => told++)
    expect(inbox.push('outpost://acme/epic/12')).toBe(true)
    expect(inbox.push('--no-sandbox')).toBe(false)
    expect(inbox.push('outpost://acme/epic/oops')).toBe(false)
    expect(inbox.push('outpost://acme/epic/13')).toBe(true)
    expect(told).toBe(2)
    expect(inbox.take()).toEqual(['outpost://acme/epic/12', 'outpost://acme/epic/13'])
    expect(inbox.take()).toEqual([])
  })
})
