// v4 Doc and Collection (spec part 1 §2.2) and the bodies and queries of the
// v4 doc and collection operations (part 2 §4.2). The SSE event shape is in v3/docs.ts.
import { Type, type Static } from 'typebox'
import { BULK_MAX, LIMITS, Nullable, PAGE_LIMIT, PageOf, Slim, Str, Uuid } from '../common.ts'
import { DocContentFormat, DocTitle } from '../v3/docs.ts'

export { DocEvent } from '../v3/docs.ts'

/**
 * Lists, creates and updates carry both contents; a single GET carries the one
 * content_format selects (the other is null).
 */
export const DocV4 = Type.Object({
  entity_type: Type.Literal('doc'),
  archived: Type.Boolean(),
  collections: PageOf(Slim),
  content_html: Nullable(Type.String()),
  content_markdown: Nullable(Type.String()),
  created_at: Type.String(),
  creator: Nullable(Slim),
  followers: PageOf(Slim),
  id: Type.String(),
  title: Type.String(),
  updated_at: Type.String(),
  uri: Type.String(),
})
export type DocV4 = Static<typeof DocV4>

/** Collection name limit: not in the spec's §8; the official client's 63. */
export const COLLECTION_NAME_MAX = 63

/** Beyond the slim fields the spec shows, the fields of the official v4 client (no updated_at). */
export const CollectionV4 = Type.Object({
  entity_type: Type.Literal('collection'),
  archived: Type.Boolean(),
  created_at: Type.String(),
  /** Whether the calling member has favorited it. */
  favorited: Type.Boolean(),
  id: Type.String(),
  name: Type.String(),
  parent_collection: Nullable(Slim),
  uri: Type.String(),
})
export type CollectionV4 = Static<typeof CollectionV4>

export const DOC_LIST = { orderBy: ['created_at', 'updated_at'], filter: ['exclude_archived', 'include_archived'] } as const
export const COLLECTION_LIST = { orderBy: ['name', 'created_at'], filter: ['exclude_archived', 'include_archived', 'favorited'] } as const
export const DOC_FOLLOWER_LIST = { orderBy: ['name'], filter: ['exclude_disabled', 'include_disabled'] } as const

export const CreateDocV4 = Type.Object(
  {
    title: DocTitle,
    content: Type.String(),
    content_format: Type.Optional(DocContentFormat),
    description: Type.Optional(Str(LIMITS.docDescription)),
    collection_ids: Type.Optional(Type.Array(Uuid, { maxItems: BULK_MAX })),
  },
  { additionalProperties: false },
)
export type CreateDocV4 = Static<typeof CreateDocV4>

export const BulkCreateDocsV4 = Type.Object({ documents: Type.Array(CreateDocV4, { minItems: 1, maxItems: BULK_MAX }) }, { additionalProperties: false })
export type BulkCreateDocsV4 = Static<typeof BulkCreateDocsV4>

/** PATCH /documents/{id}: not shown in the spec; the create fields, all optional, plus archived. */
export const UpdateDocV4 = Type.Object(
  {
    title: Type.Optional(DocTitle),
    content: Type.Optional(Type.String()),
    content_format: Type.Optional(DocContentFormat),
    // Not nullable: a nullable string past its limit would be a 400, not the 422 naming it. "" clears it.
    description: Type.Optional(Str(LIMITS.docDescription)),
    archived: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
export type UpdateDocV4 = Static<typeof UpdateDocV4>

export const GetDocQueryV4 = Type.Object(
  {
    fields: Type.Optional(Type.String({ maxLength: 2048 })),
    content_format: Type.Optional(DocContentFormat),
  },
  { additionalProperties: false },
)
export type GetDocQueryV4 = Static<typeof GetDocQueryV4>

/** GET /documents/search. query is required unless cursor is sent (checked by the route). */
export const SearchDocsQueryV4 = Type.Object(
  {
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    archived: Type.Optional(Type.Boolean()),
    created_by_me: Type.Optional(Type.Boolean()),
    followed_by_me: Type.Optional(Type.Boolean()),
    limit: Type.Optional(Type.Integer({ minimum: PAGE_LIMIT.min, maximum: PAGE_LIMIT.max })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    fields: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: false },
)
export type SearchDocsQueryV4 = Static<typeof SearchDocsQueryV4>

/** POST /collections: not shown in the spec; the official client's CreateCollectionParams. */
export const CreateCollectionV4 = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: COLLECTION_NAME_MAX }),
    parent_collection_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
)
export type CreateCollectionV4 = Static<typeof CreateCollectionV4>
