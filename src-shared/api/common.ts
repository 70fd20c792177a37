// Building blocks of the API contract shared by the service, the gateway and
// the data layer. Each resource's shapes live in v3/ and v4/ beside this file.
import { Type, type TSchema, type Static } from 'typebox'
import { LIMITS } from './limits.ts'

/** String limits (spec part 2 §8) live in limits.ts: plain constants the renderer imports without the schemas. */
export { LIMITS }

/** v4 page size bounds (spec part 2 §8). */
export const PAGE_LIMIT = { min: 1, max: 100, default: 10 } as const

/** Items in one bulk request (not shown in the spec; see the README). */
export const BULK_MAX = 100

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
export const Str = (maxLength: number) => Type.String({ maxLength })
/** CSS hexadecimal colours only: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`. */
export const Color = Type.String({ pattern: '^#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' })
export const DateTime = Type.String({ format: 'date-time' })
export const Uuid = Type.String({ format: 'uuid' })
export const Id = Type.Integer({ minimum: 1 })
export const Loose = Type.Unknown()

/** The one error body of every failed request. */
export const ErrorBody = Type.Object({
  message: Type.String(),
  tag: Type.String(),
  errors: Type.Optional(Type.Record(Type.String(), Type.String())),
})
export type ErrorBody = Static<typeof ErrorBody>

/** A v4 slim reference: `{entity_type: '<kind>:slim', id, name, uri}` plus per-kind extras. */
export const Slim = Type.Object(
  {
    entity_type: Type.String(),
    id: Type.Union([Type.Integer(), Type.String()]),
    name: Type.Optional(Type.String()),
    uri: Type.Optional(Type.String()),
    app_url: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
)
export type Slim = Static<typeof Slim> & { [extra: string]: unknown }

/** v4 related collections come wrapped as `page<T>` of slim references. */
export const PageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    current_items: Type.Integer(),
    entities: Type.Array(item),
    list_url: Type.String(),
    total_items: Type.Integer(),
  })
export interface PageOf<T> {
  current_items: number
  entities: T[]
  list_url: string
  total_items: number
}

/** The envelope of every v4 list response. */
export const ListBody = <T extends TSchema>(item: T) =>
  Type.Object({
    entities: Type.Array(item),
    current_items: Type.Integer(),
    current_page: Type.Integer(),
    total_items: Type.Integer(),
    total_pages: Type.Integer(),
    next_page_url: Type.Optional(Type.String()),
  })
export interface ListBody<T> {
  entities: T[]
  current_items: number
  current_page: number
  total_items: number
  total_pages: number
  next_page_url?: string
}

/** Query parameters common to every v4 list; each operation narrows order_by and filter. */
export const listQuery = (orderBy: readonly string[], filter: readonly string[], extra: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max })),
      cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
      order_by: Type.Optional(Type.Union(orderBy.map((v) => Type.Literal(v)))),
      order_dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
      filter: Type.Optional(Type.Union(filter.map((v) => Type.Literal(v)))),
      fields: Type.Optional(Type.String({ maxLength: 2048 })),
      ...extra,
    },
    { additionalProperties: false },
  )
export interface ListQuery {
  limit?: number
  cursor?: string
  order_by?: string
  order_dir?: 'asc' | 'desc'
  filter?: string
  fields?: string
}

/** Operations that return or create one entity accept only `fields`. */
export const FieldsQuery = Type.Object({ fields: Type.Optional(Type.String({ maxLength: 2048 })) }, { additionalProperties: false })

export const Enums = {
  objectiveState: ['done', 'in progress', 'to do'],
  healthStatus: ['At Risk', 'No Health', 'Off Track', 'On Track'],
  groupColorKey: [
    'black',
    'blue',
    'brass',
    'fuchsia',
    'gray',
    'green',
    'midnight-blue',
    'orange',
    'pink',
    'purple',
    'red',
    'sky-blue',
    'slate',
    'turquoise',
    'yellow',
    'yellow-green',
  ],
  linkedFileType: ['box', 'dropbox', 'google', 'onedrive', 'url'],
  docContentFormat: ['html', 'markdown'],
} as const

/** One of a fixed set of strings, typed as their union. */
export const OneOf = <const V extends readonly string[]>(values: V) => Type.Enum([...values])

/** v4 answers one entity as `{$schema, entity}`; callers want the entity. Lists and v3 answers pass through. */
export function unwrapEntity(answer: unknown): unknown {
  if (answer !== null && typeof answer === 'object' && !Array.isArray(answer) && 'entity' in answer && !('entities' in answer)) {
    return (answer as { entity: unknown }).entity
  }
  return answer
}
