// Well-formed requests built from a route's schemas, for the table-driven tests:
// the smallest body a route accepts, a value set at a field's path, real ids in the
// path, and the string fields of a body with their limits.
import type { RunningService } from '../../src-server/index.ts'
import { Tokens } from '../../src-server/auth.ts'
import { KINDS } from '../../src-server/kinds.ts'
import type { MemberRecord } from '../../src-server/resources/members/member.ts'
import type { CommentRecord } from '../../src-server/resources/epics/records.ts'
import { kindOfField } from './arbitraries.ts'
import { pathParams, storedIds, type JsonSchema, type RouteInfo } from './harness.ts'

/** A field's place in a body: keys, and 0 for the first item of a list. */
export type FieldPath = (string | number)[]

/** Every string field of a body schema (array items at index 0), with its maxLength when it has one. */
export function stringFields(schema: JsonSchema | undefined, path: FieldPath = []): { field: FieldPath; limit?: number; plain: boolean }[] {
  if (!schema) return []
  if (schema.anyOf) return schema.anyOf.flatMap((s) => stringFields(s, path))
  if (schema.type === 'object') return Object.entries(schema.properties ?? {}).flatMap(([k, s]) => stringFields(s, [...path, k]))
  if (schema.type === 'array') return stringFields(schema.items, [...path, 0])
  // Plain: free text, not an id, a date, a colour or a URL pattern.
  if (schema.type === 'string') return [{ field: path, limit: schema.maxLength, plain: !schema.format && !schema.pattern }]
  return []
}

let counter = 0
/** Exactly n characters (code points) of `unit` after a unique prefix, so names never collide; URL-shaped where a URL is expected. */
export function uniqueText(n: number, field: FieldPath, unit = 'x'): string {
  const key = String(field.filter((p) => typeof p === 'string').at(-1))
  const prefix = /url|external_link/.test(key) ? `http://127.0.0.1:9/${(counter++).toString(36)}-` : `${(counter++).toString(36)}-`
  return prefix + unit.repeat(Math.max(0, n - prefix.length))
}

export class Bodies {
  /** A token made for DELETE /admin/tokens/:id paths, never one a test calls with. */
  private readonly tokenToDisable: string

  constructor(private readonly service: RunningService) {
    const admin = service.ctx
      .col<MemberRecord>('member')
      .all()
      .find((m) => m.role === 'admin')!
    this.tokenToDisable = new Tokens(service.ctx).create('v4_ro', admin.id, 'made to be disabled').id
  }

  /** The smallest body the schema accepts: required fields only, with plain valid values. */
  minimal(schema: JsonSchema | undefined, key = '', parent = ''): unknown {
    if (!schema) return undefined
    if (schema.anyOf) return this.minimal(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0], key, parent)
    if (schema.enum) return schema.enum[0]
    if (schema.const !== undefined) return schema.const
    const kind = kindOfField(key, parent)
    switch (schema.type) {
      case 'object': {
        const out: Record<string, unknown> = {}
        for (const name of schema.required ?? []) out[name] = this.minimal(schema.properties?.[name], name, key)
        return out
      }
      case 'array':
        return (schema.minItems ?? 0) > 0 ? [this.minimal(schema.items, key, parent)] : []
      case 'string':
        if (schema.format === 'uuid') return kind ? storedIds(this.service, kind)[0] : undefined
        if (schema.format === 'date-time') return new Date().toISOString()
        if (schema.pattern?.startsWith('^#')) return '#3a7bd5'
        return uniqueText(Math.min(schema.maxLength ?? 12, 12), [key])
      case 'integer':
        return kind ? storedIds(this.service, kind)[0] : (schema.minimum ?? 1)
      case 'boolean':
        return false
      default:
        return null
    }
  }

  /** The route's smallest body with `value` at the field's path (objects and first list items made on the way). */
  with(route: RouteInfo, field: FieldPath, value: unknown): Record<string, unknown> {
    const schema = route.schema.body!
    const body = (this.minimal(schema) ?? {}) as Record<string, unknown>
    let node: Record<string | number, unknown> = body
    let s: JsonSchema | undefined = schema
    field.forEach((step, i) => {
      s = s?.anyOf?.find((b) => b.type !== 'null') ?? s
      const child: JsonSchema | undefined = typeof step === 'number' ? s?.items : s?.properties?.[step]
      if (i === field.length - 1) {
        node[step] = value
        return
      }
      if (node[step] === undefined) node[step] = typeof field[i + 1] === 'number' ? [] : (this.minimal(child, String(step)) ?? {})
      node = node[step] as Record<string | number, unknown>
      s = child
    })
    return body
  }

  /** The route's path with ids of entities that exist (a comment under its own epic). */
  path(route: RouteInfo): string {
    const comment = this.service.ctx.col<CommentRecord>('epic_comment').all()[0]
    const values = pathParams(route.url).map((p) => {
      if (p.name === 'workspace') return this.service.workspace
      if (p.name === 'commentId') return String(comment.id)
      if (route.url.includes(':commentId') && p.name === 'id') return String(comment.epic_id)
      if (p.name === 'filename') return 'file.txt'
      if (p.segment === 'schemas') return 'get-epics'
      if (p.segment === 'tokens') return this.tokenToDisable
      const id = p.kind ? storedIds(this.service, p.kind)[0] : undefined
      // Nothing of the kind stored (yet): an id of the right shape.
      return String(id ?? (p.kind && KINDS[p.kind].intId ? 1 : '00000000-0000-4000-8000-000000000000'))
    })
    let i = 0
    return route.url.replace(/:[A-Za-z_]+/g, () => values[i++])
  }
}
