// The app's routes, as data: what `#/epics/12` means and back. Plain functions
// (the router in router.svelte.ts keeps the current one as state).
import type { EntityId } from '../data/types.ts'

export type Section = 'epics' | 'docs' | 'files' | 'browse' | 'settings'
export type BrowseKind = 'objectives' | 'categories' | 'teams'

export type Route =
  | { section: 'epics'; id?: string }
  | { section: 'docs'; id?: string }
  | { section: 'files'; id?: string }
  | { section: 'browse'; kind: BrowseKind; id?: string }
  | { section: 'settings' }

export const DEFAULT_HASH = '#/epics'
const BROWSE_KINDS: readonly BrowseKind[] = ['objectives', 'categories', 'teams']

/** `#/epics/12` -> { section: 'epics', id: '12' }; anything unknown -> undefined. */
export function parseHash(hash: string): Route | undefined {
  const path = hash.replace(/^#\/?/, '').split('?')[0] ?? ''
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p)
      } catch {
        return p
      }
    })
  const [section, a, b] = parts
  switch (section) {
    case 'epics':
    case 'docs':
    case 'files':
      return a ? { section, id: a } : { section }
    case 'browse': {
      const kind = (a ?? 'objectives') as BrowseKind
      if (!BROWSE_KINDS.includes(kind)) return undefined
      return b ? { section, kind, id: b } : { section, kind }
    }
    case 'settings':
      return { section }
    default:
      return undefined
  }
}

export function hashOf(route: Route): string {
  const id = 'id' in route && route.id !== undefined ? `/${encodeURIComponent(route.id)}` : ''
  if (route.section === 'browse') return `#/browse/${route.kind}${id}`
  if (route.section === 'settings') return '#/settings'
  return `#/${route.section}${id}`
}

/** A route's id as the cache types it: integers for int kinds, strings for uuids and local ids. */
export function idFromRoute(value: string, kind: 'int' | 'uuid'): EntityId {
  if (kind === 'int' && /^\d+$/.test(value)) return Number(value)
  return value
}

/** The id in a route (`#/epics/local:…` works too). */
export function routeId(id: EntityId): string {
  return encodeURIComponent(String(id))
}
