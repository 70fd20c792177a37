// v3 Doc and DocSlim (spec part 1 §2.3), the bodies of the v3 doc operations
// (part 2 §4.4), and the server-sent events editors receive when a doc changes.
import { Type, type Static } from 'typebox'
import { Enums, LIMITS, Nullable } from '../common.ts'

export const DocSlimV3 = Type.Object({
  app_url: Type.String(),
  id: Type.String(),
  title: Type.String(),
})
export type DocSlimV3 = Static<typeof DocSlimV3>

/** The content selected by content_format is a string; the other one is null. */
export const DocV3 = Type.Object({
  app_url: Type.String(),
  archived: Type.Boolean(),
  content_html: Nullable(Type.String()),
  content_markdown: Nullable(Type.String()),
  created_at: Type.String(),
  id: Type.String(),
  title: Type.String(),
  updated_at: Type.String(),
})
export type DocV3 = Static<typeof DocV3>

export const DocContentFormat = Type.Enum([...Enums.docContentFormat])
export type DocContentFormat = Static<typeof DocContentFormat>

export const DocTitle = Type.String({ minLength: 1, maxLength: LIMITS.docTitle })

/** POST /documents. content_format says what `content` is (default html); storage is always HTML. */
export const CreateDocV3 = Type.Object(
  {
    title: DocTitle,
    content: Type.String(),
    content_format: Type.Optional(DocContentFormat),
  },
  { additionalProperties: false },
)
export type CreateDocV3 = Static<typeof CreateDocV3>

/**
 * PUT /documents/{id}. content_format is the format of `content` (default html)
 * and of the answer (default markdown, so content read with GET can be written back).
 */
export const UpdateDocV3 = Type.Object(
  {
    title: Type.Optional(DocTitle),
    content: Type.Optional(Type.String()),
    content_format: Type.Optional(DocContentFormat),
  },
  { additionalProperties: false },
)
export type UpdateDocV3 = Static<typeof UpdateDocV3>

/** DELETE /documents/{id} takes the official client's GetDoc body; it may be absent. */
export const DeleteDocV3 = Nullable(Type.Object({ content_format: Type.Optional(DocContentFormat) }, { additionalProperties: false }))

export const GetDocQueryV3 = Type.Object({ content_format: Type.Optional(DocContentFormat) }, { additionalProperties: false })

/**
 * Server-sent events of GET /api/v3/documents/{id}/events and
 * GET /api/v4/{workspace}/documents/{id}/events (`text/event-stream`).
 * Each event's SSE `event:` name equals its `type`; `data:` is this JSON.
 * `doc-ready` comes first, once the subscription is live; after `doc-deleted`
 * the service ends the stream.
 */
export const DocEvent = Type.Union([
  Type.Object({ type: Type.Literal('doc-ready'), doc_id: Type.String(), title: Type.String(), updated_at: Type.String() }),
  Type.Object({
    type: Type.Literal('doc-updated'),
    doc_id: Type.String(),
    title: Type.String(),
    updated_at: Type.String(),
    /** Who made the change (member uuid). */
    member_id: Type.String(),
    /** Names of what changed: title, content, archived, description, collection_ids, epic_ids. */
    changed: Type.Array(Type.String()),
  }),
  Type.Object({ type: Type.Literal('doc-deleted'), doc_id: Type.String(), member_id: Type.String(), deleted_at: Type.String() }),
])
export type DocEvent = Static<typeof DocEvent>
