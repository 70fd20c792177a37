import { describe, expect, it } from 'vitest'
import { DEFAULT_HASH, hashOf, parseHash, type Route } from './routes.ts'

describe('routes', () => {
  it('reads every screen the shell routes to', () => {
    expect(parseHash('#/epics')).toEqual({ section: 'epics' })
    expect(parseHash('#/epics/12')).toEqual({ section: 'epics', id: '12' })
    expect(parseHash('#/epics/new')).toEqual({ section: 'epics', id: 'new' })
    expect(parseHash('#/docs/3f2c0a1e-uuid')).toEqual({ section: 'docs', id: '3f2c0a1e-uuid' })
    expect(parseHash('#/files')).toEqual({ section: 'files' })
    expect(parseHash('#/browse/teams')).toEqual({ section: 'browse', kind: 'teams' })
    expect(parseHash('#/browse')).toEqual({ section: 'browse', kind: 'objectives' })
    expect(parseHash('#/settings')).toEqual({ section: 'settings' })
  })

  it('decodes ids, local ones included, and ignores a query after the path', () => {
    expect(parseHash('#/epics/local%3Aabc')).toEqual({ section: 'epics', id: 'local:abc' })
    expect(parseHash('#/docs?q=plan')).toEqual({ section: 'docs' })
  })

  it('knows nothing of unknown places (the router falls back to the default)', () => {
    expect(parseHash('')).toBeUndefined()
    expect(parseHash('#outpost-secret=abc')).toBeUndefined()
    expect(parseHash('#/browse/elsewhere')).toBeUndefined()
    expect(parseHash('#/nowhere')).toBeUndefined()
    expect(parseHash(DEFAULT_HASH)).toEqual({ section: 'epics' })
  })

  it('writes what it reads', () => {
    const routes: Route[] = [
      { section: 'epics' },
      { section: 'epics', id: 'local:1b2c' },
      { section: 'docs', id: 'a b' },
      { section: 'files', id: '7' },
      { section: 'browse', kind: 'categories' },
      { section: 'settings' },
    ]
    for (const route of routes) expect(parseHash(hashOf(route))).toEqual(route)
  })
})
