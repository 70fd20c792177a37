import { afterEach, describe, expect, it, vi } from 'vitest'
import { LINK_LOAN_MS, LinkInbox } from './link-inbox.ts'

afterEach(() => vi.useRealTimers())

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
    inbox.close()
  })

  it('are done with once the window that took them says it opened them', () => {
    vi.useFakeTimers()
    let told = 0
    const inbox = new LinkInbox(() => told++)
    inbox.push('outpost://acme/epic/12')
    expect(inbox.take()).toEqual(['outpost://acme/epic/12'])
    inbox.opened(['outpost://acme/epic/12'])
    vi.advanceTimersByTime(LINK_LOAN_MS * 3)
    expect(inbox.take()).toEqual([])
    expect(told).toBe(1)
  })

  it('go back first in line, in order, and are told again, when the window that took them never says it opened them', () => {
    vi.useFakeTimers()
    let told = 0
    const inbox = new LinkInbox(() => told++)
    inbox.push('outpost://acme/epic/12')
    inbox.push('outpost://acme/doc/5f9a3c2e-0000-4000-8000-000000000001')
    // A window takes both and goes away (closing, reloading) before it opens them.
    expect(inbox.take()).toHaveLength(2)
    vi.advanceTimersByTime(LINK_LOAN_MS / 2)
    inbox.push('outpost://acme/epic/14')
    expect(told).toBe(3)
    vi.advanceTimersByTime(LINK_LOAN_MS / 2)
    expect(told).toBe(4)
    // The next window gets them before the one that came since, and says it opened them: none comes back.
    const again = inbox.take()
    expect(again).toEqual(['outpost://acme/epic/12', 'outpost://acme/doc/5f9a3c2e-0000-4000-8000-000000000001', 'outpost://acme/epic/14'])
    inbox.opened(again)
    vi.advanceTimersByTime(LINK_LOAN_MS * 2)
    expect(inbox.take()).toEqual([])
    expect(told).toBe(4)
  })

  it('says one of two same links opened: the other still comes back', () => {
    vi.useFakeTimers()
    const inbox = new LinkInbox(() => {})
    inbox.push('outpost://acme/epic/12')
    inbox.push('outpost://acme/epic/12')
    inbox.take()
    inbox.opened(['outpost://acme/epic/12', 'outpost://acme/epic/99'])
    vi.advanceTimersByTime(LINK_LOAN_MS)
    expect(inbox.take()).toEqual(['outpost://acme/epic/12'])
  })

  it('gives nothing back once the app is closing', () => {
    vi.useFakeTimers()
    let told = 0
    const inbox = new LinkInbox(() => told++)
    inbox.push('outpost://acme/epic/12')
    inbox.take()
    inbox.close()
    vi.advanceTimersByTime(LINK_LOAN_MS * 2)
    expect(told).toBe(1)
    expect(inbox.take()).toEqual([])
  })

  it('go back at once, first in line and in order, when the page that took them goes; another page’s stay lent', () => {
    vi.useFakeTimers()
    let told = 0
    const inbox = new LinkInbox(() => told++)
    inbox.push('outpost://acme/epic/12')
    expect(inbox.take('window:1')).toEqual(['outpost://acme/epic/12'])
    inbox.push('outpost://acme/epic/13')
    expect(inbox.take('window:1')).toEqual(['outpost://acme/epic/13'])
    inbox.push('outpost://acme/epic/14')
    expect(inbox.take('window:2')).toEqual(['outpost://acme/epic/14'])
    inbox.push('outpost://acme/epic/15')
    expect(told).toBe(4)
    // Window 1 closes (or reloads) before it opened them: no waiting for the loan's time.
    inbox.release('window:1')
    expect(told).toBe(5)
    expect(inbox.take('window:3')).toEqual(['outpost://acme/epic/12', 'outpost://acme/epic/13', 'outpost://acme/epic/15'])
    // A page that opened what it took gives nothing back as it goes.
    inbox.opened(['outpost://acme/epic/14'])
    inbox.release('window:2')
    expect(inbox.take('window:4')).toEqual([])
    expect(told).toBe(5)
  })
})
