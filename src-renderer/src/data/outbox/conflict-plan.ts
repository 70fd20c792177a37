// An update planned against the entity as the service has it now: each field
// is sent (the service still has what it was made over, or only this side
// changed it), already so (applied, its answer lost, or the same change made
// elsewhere), or a conflict for the user; a 404 is "deleted elsewhere".
import { sameValue, type WritableKind } from './kinds.ts'
import { REQUESTS, type Row } from './requests.ts'
import type { FieldConflict, OutboxRecord } from '../types.ts'

export interface Plan {
  r: OutboxRecord
  send: Row
  conflicts: Record<string, FieldConflict>
  /** The entity as the service has it, when fetched. */
  theirs?: Row
  gone?: boolean
}

export const UNCHANGED = Symbol('unchanged since base')

export function planOf(r: OutboxRecord, theirs: Row | typeof UNCHANGED | null): Plan {
  if (theirs === null) return { r, send: {}, conflicts: {}, gone: true }
  const kept = REQUESTS[r.kind as WritableKind]?.kept ?? ((_field: string, value: unknown) => value)
  const send: Row = {}
  const conflicts: Record<string, FieldConflict> = {}
  // The service still has the version the write was made over: nothing changed there since, whatever the
  // cache showed of it then (a bootstrap stores epics from the v3 list before their descriptions come).
  const sameVersion = theirs !== UNCHANGED && r.baseUpdatedAt !== undefined && sameValue(theirs.updated_at, r.baseUpdatedAt)
  for (const [field, mine] of Object.entries(r.payload)) {
    if (theirs === UNCHANGED) {
      send[field] = mine
      continue
    }
    const now = theirs[field]
    // Already so: mine was applied (an answer lost), or the same change was made elsewhere.
    if (sameValue(now, mine) || sameValue(now, kept(field, mine)) || sameMarkdown(field, now, mine)) continue
    const base = field in r.base ? r.base[field] : now
    // The service's own form of the base is the base (a restored write keeps the base it was made over, in my form).
    if (sameVersion || sameValue(now, base) || sameMarkdown(field, now, base)) send[field] = mine
    else conflicts[field] = { base, mine, theirs: now }
  }
  return { r, send, conflicts, ...(theirs !== UNCHANGED && { theirs }) }
}

/**
 * A doc's markdown as the service gives it back is its own rendering of what was sent (it keeps docs as
 * HTML: `<b>x</b>` comes back as `**x**`, `a\b` as `a\\b`). Mine is applied when the words are the same.
 */
function sameMarkdown(field: string, theirs: unknown, mine: unknown): boolean {
  if (field !== 'content_markdown' || typeof theirs !== 'string' || typeof mine !== 'string') return false
  const words = (md: string) =>
    md
      .replace(/<[^>]*>/g, ' ')
      .match(/[\p{L}\p{N}]+/gu)
      ?.join(' ') ?? ''
  return words(theirs) === words(mine)
}
