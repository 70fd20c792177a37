// The service's final state against the model: every intended entity there
// exactly once with the intended fields, every deleted one gone, every link as
// intended, and nothing the actions did not make.
//   lost:       an intended entity (or link) is missing
//   duplicated: an intended create is there more than once
//   wrong:      there, but a field differs; or there when it should be gone; or there unasked
import { htmlToMarkdown, markdownToHtml } from '../../src-server/resources/docs/markdown.ts'
import { REF_FIELDS, SET_FIELDS, TAG_FIELD, linkKey, tagOf, type Entity, type Kind, type Model } from './model.ts'
import type { Fields, ServiceState } from './service-state.ts'

export interface Verdict {
  lost: number
  duplicated: number
  wrong: number
  /** One line per finding. */
  details: string[]
  /** Entities checked (live and deleted), links checked. */
  checked: { entities: number; links: number }
}

interface Found {
  sid: string | number
  fields: Fields
  /** Comments: a deleted placeholder (kept while it has replies). */
  placeholder?: boolean
  epicId?: number
  parentId?: number | null
}

function serviceEntities(s: ServiceState): Record<Kind, Found[]> {
  const of = <K extends string | number>(map: Map<K, Fields>) => [...map].map(([sid, fields]) => ({ sid, fields }))
  return {
    epic: of(s.epics),
    comment: [...s.comments.values()].map((c) => ({ sid: c.id, fields: { text: c.text }, placeholder: c.deleted, epicId: c.epicId, parentId: c.parentId })),
    health: s.health.map((h) => ({ sid: h.id, fields: { status: h.status, text: h.text }, epicId: h.epicId })),
    doc: of(s.docs),
    file: of(s.files),
    linkedFile: of(s.linkedFiles),
    category: of(s.categories),
    objective: of(s.objectives),
    label: of(s.labels),
  }
}

const show = (v: unknown) => JSON.stringify(v)

/**
 * `ids`: service ids the client's id map gives created entities (read at the end). Used only to
 * recognise a deleted comment's placeholder (it keeps no text, so no tag) as the parent of its replies.
 */
export function verify(model: Model, s: ServiceState, ids: ReadonlyMap<string, string | number> = new Map()): Verdict {
  const verdict: Verdict = { lost: 0, duplicated: 0, wrong: 0, details: [], checked: { entities: 0, links: 0 } }
  const finding = (what: 'lost' | 'duplicated' | 'wrong', line: string, n = 1) => {
    verdict[what] += n
    verdict.details.push(`${what}: ${line}`)
  }
  const found = serviceEntities(s)

  // ---- which service entity is which model entity ----
  const matches = new Map<string, Found[]>()
  const keyOfSid = new Map<string, string>()
  const claimed = new Set<Found>()
  for (const kind of Object.keys(found) as Kind[]) {
    const bySid = new Map(found[kind].map((f) => [String(f.sid), f]))
    const byTag = new Map<string, Found[]>()
    for (const f of found[kind]) {
      const tag = tagOf(f.fields[TAG_FIELD[kind]])
      if (tag) byTag.set(tag, [...(byTag.get(tag) ?? []), f])
    }
    for (const e of model.entities.values()) {
      if (e.kind !== kind) continue
      let list = e.tag !== null ? (byTag.get(e.tag) ?? []) : bySid.has(String(e.sid)) ? [bySid.get(String(e.sid))!] : []
      const placeholder = e.tag !== null && list.length === 0 && ids.has(e.key) ? bySid.get(String(ids.get(e.key))) : undefined
      if (placeholder?.placeholder) list = [placeholder]
      matches.set(e.key, list)
      for (const f of list) {
        claimed.add(f)
        keyOfSid.set(`${kind}#${f.sid}`, e.key)
      }
    }
  }
  const keyOf = (kind: Kind, sid: unknown) => keyOfSid.get(`${kind}#${sid}`) ?? `${kind}#${sid}?`

  // ---- each model entity ----
  for (const e of model.entities.values()) {
    if (e.gone) continue
    const list = matches.get(e.key) ?? []
    const present = list.filter((f) => !f.placeholder)
    verdict.checked.entities++
    if (!e.live) {
      if (present.length > 0) finding('wrong', `${e.key} was deleted but the service has it (${present.map((f) => f.sid).join(', ')})`)
      continue
    }
    if (present.length === 0) {
      finding('lost', `${e.key} ${show(e.fields[TAG_FIELD[e.kind]])} is not on the service${list.length ? ' (only a deleted placeholder)' : ''}`)
      continue
    }
    if (present.length > 1) {
      finding('duplicated', `${e.key} is on the service ${present.length} times (${present.map((f) => f.sid).join(', ')})`, present.length - 1)
      continue
    }
    const diffs = differences(e, present[0], keyOf)
    if (diffs.length > 0) finding('wrong', `${e.key} (service id ${present[0].sid}): ${diffs.join('; ')}`)
  }

  // ---- what the service has that no action made ----
  for (const kind of Object.keys(found) as Kind[]) {
    for (const f of found[kind]) {
      if (claimed.has(f) || f.placeholder) continue
      // Health the seed wrote carries no tag; the soak's always does.
      if (kind === 'health' && !tagOf(f.fields.text)) continue
      // Comments of an epic that should be gone are counted with the epic.
      if ((kind === 'comment' || kind === 'health') && !model.get(keyOf('epic', f.epicId))?.live) continue
      finding('wrong', `the service has ${kind} ${f.sid} ${show(f.fields[TAG_FIELD[kind]])} that no action made`)
    }
  }

  // ---- doc-epic links ----
  const actual = new Set<string>()
  for (const [doc, epics] of s.links) for (const epic of epics) actual.add(linkKey(keyOf('doc', doc), keyOf('epic', epic)))
  for (const l of model.links) {
    verdict.checked.links++
    if (!actual.has(l)) finding('lost', `the link ${l.replace('\n', ' -> ')} is not on the service`)
  }
  for (const l of actual) if (!model.links.has(l)) finding('wrong', `the service has a link ${l.replace('\n', ' -> ')} no action made`)
  return verdict
}

function differences(e: Entity, f: Found, keyOf: (kind: Kind, sid: unknown) => string): string[] {
  const out: string[] = []
  const refs = REF_FIELDS[e.kind] ?? []
  for (const [field, want] of Object.entries(e.fields)) {
    let have = f.fields[field]
    const ref = refs.find((r) => r.field === field)
    if (ref) have = (have as unknown[]).map((id) => keyOf(ref.kind, id))
    // The service keeps a doc as HTML: the markdown it gives back is its rendering of what was written.
    if (field === 'content_markdown' && typeof want === 'string' && have === htmlToMarkdown(markdownToHtml(want))) continue
    if (!same(field, want, have)) out.push(`${field} is ${show(have)}, intended ${show(want)}`)
  }
  if (e.kind === 'comment' || e.kind === 'health') {
    const epic = keyOf('epic', f.epicId)
    if (epic !== e.epic) out.push(`under ${epic}, intended under ${e.epic}`)
  }
  if (e.kind === 'comment' && e.parent !== undefined) {
    const parent = f.parentId === null || f.parentId === undefined ? null : keyOf('comment', f.parentId)
    if (parent !== e.parent) out.push(`a reply to ${parent}, intended to ${e.parent}`)
  }
  return out
}

/** Fields holding a time: equal as instants, whatever the precision the service writes them with. */
const TIME_FIELDS = new Set(['deadline', 'planned_start_date'])

function same(field: string, a: unknown, b: unknown): boolean {
  if (TIME_FIELDS.has(field) && typeof a === 'string' && typeof b === 'string') return Date.parse(a) === Date.parse(b)
  if (SET_FIELDS.has(field) && Array.isArray(a) && Array.isArray(b)) {
    const x = [...new Set(a.map(String))].sort()
    const y = [...new Set(b.map(String))].sort()
    return x.length === y.length && x.every((v, i) => v === y[i])
  }
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null)
}
