// v3 UploadedFile and LinkedFile (spec part 1 §2.3) and the bodies of the v3
// file and linked-file operations (part 2 §4.4).
import { Type, type Static } from 'typebox'
import { DateTime, Enums, Id, LIMITS, Nullable, Str, Uuid } from '../common.ts'

export const UploadedFileV3 = Type.Object({
  content_type: Type.String(),
  created_at: Type.String(),
  description: Nullable(Type.String()),
  entity_type: Type.Literal('file'),
  external_id: Nullable(Type.String()),
  /** The name the file had when uploaded (Content-Disposition filename). */
  filename: Type.String(),
  group_mention_ids: Type.Array(Type.String()),
  id: Type.Integer(),
  member_mention_ids: Type.Array(Type.String()),
  mention_ids: Type.Array(Type.String()),
  name: Type.String(),
  size: Type.Integer(),
  story_ids: Type.Array(Type.Integer()),
  /** Images only: where a thumbnail is served (null otherwise). */
  thumbnail_url: Nullable(Type.String()),
  updated_at: Type.String(),
  uploader_id: Type.String(),
  /** Where the bytes are served; authenticated like the API. */
  url: Type.String(),
})
export type UploadedFileV3 = Static<typeof UploadedFileV3>

// Type.Enum rather than common's OneOf, whose static type is never for readonly arrays.
export const LinkedFileType = Type.Enum([...Enums.linkedFileType])

export const LinkedFileV3 = Type.Object({
  content_type: Nullable(Type.String()),
  created_at: Type.String(),
  description: Nullable(Type.String()),
  entity_type: Type.Literal('linked-file'),
  group_mention_ids: Type.Array(Type.String()),
  id: Type.Integer(),
  member_mention_ids: Type.Array(Type.String()),
  mention_ids: Type.Array(Type.String()),
  name: Type.String(),
  size: Nullable(Type.Integer()),
  story_ids: Type.Array(Type.Integer()),
  thumbnail_url: Nullable(Type.String()),
  type: LinkedFileType,
  updated_at: Type.String(),
  uploader_id: Type.String(),
  url: Type.String(),
})
export type LinkedFileV3 = Static<typeof LinkedFileV3>

/** Form fields of POST /files (multipart/form-data): file0 is required. */
export const UPLOAD_FILE_FIELDS = ['file0', 'file1', 'file2', 'file3'] as const
export const UPLOAD_STORY_FIELD = 'story_id'

/** The official client caps external_id at 128, as elsewhere. */
export const UpdateFileV3 = Type.Object(
  {
    created_at: Type.Optional(DateTime),
    description: Type.Optional(Type.String()),
    external_id: Type.Optional(Str(LIMITS.externalId)),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.fileName })),
    updated_at: Type.Optional(DateTime),
    uploader_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
)
export type UpdateFileV3 = Static<typeof UpdateFileV3>

const linkedFileFields = {
  content_type: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  size: Type.Optional(Type.Integer({ minimum: 0 })),
  story_id: Type.Optional(Id),
  thumbnail_url: Type.Optional(Str(LIMITS.url)),
  uploader_id: Type.Optional(Uuid),
}

export const CreateLinkedFileV3 = Type.Object(
  {
    ...linkedFileFields,
    name: Type.String({ minLength: 1, maxLength: LIMITS.linkedFileName }),
    type: LinkedFileType,
    url: Type.String({ minLength: 1, maxLength: LIMITS.url }),
  },
  { additionalProperties: false },
)
export type CreateLinkedFileV3 = Static<typeof CreateLinkedFileV3>

export const UpdateLinkedFileV3 = Type.Object(
  {
    ...linkedFileFields,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.linkedFileName })),
    type: Type.Optional(LinkedFileType),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.url })),
  },
  { additionalProperties: false },
)
export type UpdateLinkedFileV3 = Static<typeof UpdateLinkedFileV3>
