// v4 epic search: words match names and descriptions; a few search operators
// of the real service narrow the result (see the README for the list).
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import { labels } from '../labels/label.ts'
import { objectives } from '../objectives/objective.ts'
import { epicStates, groups, members, type EpicRecord } from './records.ts'

interface Operator {
  key: string
  value: string
  negated: boolean
}

interface ParsedQuery {
  words: string[]
  operators: Operator[]
}

const KEYS = ['is', 'state', 'owner', 'requester', 'team', 'objective', 'label', 'id', 'external_id', 'has'] as const
const IS_VALUES = ['archived', 'started', 'unstarted', 'done', 'completed', 'overdue']
const HAS_VALUES = ['owner', 'deadline', 'label', 'objective', 'team']

/** Splits a query into words and known `key:value` operators (quotes group words; `!` or `-` negates an operator). */
export function parseQuery(query: string): ParsedQuery {
  const words: string[] = []
  const operators: Operator[] = []
  for (const match of query.matchAll(/([!-]?)([a-z_]+):(?:"([^"]*)"|(\S+))|"([^"]*)"|(\S+)/gi)) {
    const [, neg, key, quotedValue, value, phrase, word] = match
    const k = key?.toLowerCase()
    if (k !== undefined && (KEYS as readonly string[]).includes(k)) {
      const v = (quotedValue ?? value ?? '').trim()
      if (k === 'is' && !IS_VALUES.includes(v.toLowerCase())) {
        throw ApiError.badRequest(`is: takes one of ${IS_VALUES.join(', ')}.`, { query: `unknown is:${v}` })
      }
      if (k === 'has' && !HAS_VALUES.includes(v.toLowerCase())) {
        throw ApiError.badRequest(`has: takes one of ${HAS_VALUES.join(', ')}.`, { query: `unknown has:${v}` })
      }
      operators.push({ key: k, value: v, negated: neg !== '' })
    } else {
      // Not an operator ("http://x", "Q3:"): the text is searched for as it is.
      const text = (phrase ?? word ?? match[0]).trim().toLowerCase()
      if (text) words.push(text)
    }
  }
  return { words, operators }
}

/** Ids of the matching epics, best match first (name matches before description matches, then most recently updated). */
export function searchEpics(ctx: ServiceContext, all: EpicRecord[], query: string): number[] {
  const { words, operators } = parseQuery(query)
  const tests = operators.map((op) => {
    const test = operatorTest(ctx, op)
    return op.negated ? (e: EpicRecord) => !test(e) : test
  })
  const wantsArchived = operators.some((op) => op.key === 'is' && op.value.toLowerCase() === 'archived')
  const scored: { e: EpicRecord; score: number }[] = []
  for (const e of all) {
    if (!wantsArchived && e.archived) continue
    if (!tests.every((t) => t(e))) continue
    const name = e.name.toLowerCase()
    const description = e.description.toLowerCase()
    if (!words.every((w) => name.includes(w) || description.includes(w))) continue
    const score = words.length === 0 ? 0 : words.filter((w) => name.includes(w)).length / words.length + (name.includes(words.join(' ')) ? 1 : 0)
    scored.push({ e, score })
  }
  scored.sort((a, b) => b.score - a.score || (a.e.updated_at < b.e.updated_at ? 1 : a.e.updated_at > b.e.updated_at ? -1 : b.e.id - a.e.id))
  return scored.map((s) => s.e.id)
}

function operatorTest(ctx: ServiceContext, op: Operator): (e: EpicRecord) => boolean {
  const value = op.value.toLowerCase()
  switch (op.key) {
    case 'is': {
      if (value === 'archived') return (e) => e.archived
      if (value === 'started') return (e) => e.started && !e.completed
      if (value === 'unstarted') return (e) => !e.started
      if (value === 'overdue') {
        const now = ctx.now()
        return (e) => !e.completed && e.deadline !== null && e.deadline < now
      }
      return (e) => e.completed
    }
    case 'has': {
      const field = ({ owner: 'owner_ids', label: 'label_ids', objective: 'objective_ids', team: 'group_ids' } as const)[value as 'owner']
      if (field) return (e) => e[field].length > 0
      return (e) => e.deadline !== null
    }
    case 'state': {
      const ids = new Set(
        epicStates(ctx)
          .all()
          .filter((s) => s.name.toLowerCase() === value || s.type === value)
          .map((s) => s.id),
      )
      return (e) => ids.has(e.epic_state_id)
    }
    case 'owner':
    case 'requester': {
      const ids = new Set(
        members(ctx)
          .all()
          .filter((m) => m.profile.mention_name.toLowerCase() === value.replace(/^@/, '') || m.id === op.value)
          .map((m) => m.id),
      )
      return op.key === 'owner' ? (e) => e.owner_ids.some((id) => ids.has(id)) : (e) => ids.has(e.requested_by_id)
    }
    case 'team': {
      const ids = new Set(
        groups(ctx)
          .all()
          .filter((g) => g.id === op.value || g.name.toLowerCase() === value || g.mention_name?.toLowerCase() === value.replace(/^@/, ''))
          .map((g) => g.id),
      )
      return (e) => e.group_ids.some((id) => ids.has(id))
    }
    case 'objective': {
      const ids = new Set(
        objectives(ctx)
          .all()
          .filter((o) => String(o.id) === op.value || o.name.toLowerCase() === value)
          .map((o) => o.id),
      )
      return (e) => e.objective_ids.some((id) => ids.has(id))
    }
    case 'label': {
      const ids = new Set(
        labels(ctx)
          .all()
          .filter((l) => String(l.id) === op.value || l.name.toLowerCase() === value)
          .map((l) => l.id),
      )
      return (e) => e.label_ids.some((id) => ids.has(id))
    }
    case 'id':
      return (e) => String(e.id) === op.value
    default:
      // external_id: exact, so a client can find the epic a lost create made.
      return (e) => e.external_id === op.value
  }
}
