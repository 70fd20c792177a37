import { describe, expect, it } from 'vitest'
import { itemLink, linkInArgv, parseItemLink } from './links.ts'

const DOC = '0c4a6a8e-3b1f-4c55-9d2e-6f7a8b9c0d1e'

describe('links to an epic or a doc', () => {
  it('reads Outpost’s deep links and makes them', () => {
    expect(parseItemLink('outpost://acme/epic/12')).toEqual({ workspace: 'acme', kind: 'epic', id: '12' })
    expect(parseItemLink(`outpost://acme/doc/${DOC}`)).toEqual({ workspace: 'acme', kind: 'doc', id: DOC })
    expect(parseItemLink(itemLink('acme-corp', 'epic', 4242))).toEqual({ workspace: 'acme-corp', kind: 'epic', id: '4242' })
    expect(parseItemLink(itemLink('acme', 'doc', DOC.toUpperCase()))).toEqual({ workspace: 'acme', kind: 'doc', id: DOC })
  })

  it('reads the service’s web addresses of epics and docs, with or without the name after them', () => {
    expect(parseItemLink('https://app.shortcut.com/acme/epic/12')).toEqual({ workspace: 'acme', kind: 'epic', id: '12' })
    expect(parseItemLink('https://app.shortcut.com/acme/epic/12/search-that-understands-typos')).toEqual({ workspace: 'acme', kind: 'epic', id: '12' })
    expect(parseItemLink(`https://app.shortcut.com/acme/write/doc/${DOC}`)).toEqual({ workspace: 'acme', kind: 'doc', id: DOC })
    expect(parseItemLink(`https://app.shortcut.com/acme/write/doc/${DOC}/release-checklist`)).toEqual({ workspace: 'acme', kind: 'doc', id: DOC })
    // The local service's own app_url, as it answers them.
    expect(parseItemLink('  http://127.0.0.1:4100/demo/epic/50  ')).toEqual({ workspace: 'demo', kind: 'epic', id: '50' })
  })

  it('is no link for other text, other items and malformed ids', () => {
    for (const text of [
      '',
      'epic 12',
      'outpost://acme/epic/twelve',
      'outpost://acme/epic/12/extra',
      'outpost://acme/story/12',
      `outpost://acme/doc/not-a-uuid`,
      'https://app.shortcut.com/acme/story/12',
      'https://app.shortcut.com/acme/epics',
      'https://example.com/',
      'javascript:alert(1)//acme/epic/1',
      'ftp://acme/epic/1',
      'https://app.shortcut.com/ac me/epic/1',
      'outpost://acme/epic/12 and more',
    ])
      expect(parseItemLink(text), text).toBeUndefined()
  })

  it('finds the deep link among a launch’s arguments', () => {
    expect(linkInArgv(['/opt/Outpost/outpost', '--no-sandbox', 'outpost://acme/epic/7'])).toBe('outpost://acme/epic/7')
    expect(linkInArgv(['/opt/Outpost/outpost', 'outpost://acme/nothing'])).toBeUndefined()
    expect(linkInArgv(['/opt/Outpost/outpost'])).toBeUndefined()
  })
})
