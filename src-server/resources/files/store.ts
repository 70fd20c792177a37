// Uploaded files (records plus their bytes in file_blobs, written in one
// transaction) and linked files (records only: the bytes live elsewhere).
import type { ServiceContext } from '../../context.ts'
import { ApiError } from '../../errors.ts'
import type { MemberRecord } from '../members/member.ts'

export interface FileRecord {
  id: number
  content_type: string
  created_at: string
  description: string | null
  external_id: string | null
  /** The name it was uploaded with; its url keeps it even when `name` changes. */
  filename: string
  name: string
  size: number
  story_ids: number[]
  updated_at: string
  uploader_id: string
}

export interface LinkedFileRecord {
  id: number
  content_type: string | null
  created_at: string
  description: string | null
  name: string
  size: number | null
  story_ids: number[]
  thumbnail_url: string | null
  type: 'box' | 'dropbox' | 'google' | 'onedrive' | 'url'
  updated_at: string
  uploader_id: string
  url: string
}

export interface Blob {
  content_type: string
  size: number
  bytes: Buffer
}

export const files = (ctx: ServiceContext) => ctx.col<FileRecord>('file')
export const linkedFiles = (ctx: ServiceContext) => ctx.col<LinkedFileRecord>('linked_file')

/** The bytes of uploaded files, one row each, keyed by the file's id. */
export class Blobs {
  private readonly stmts

  constructor(db: ServiceContext['db']) {
    this.stmts = {
      put: db.prepare<[string, string, number, Buffer]>('INSERT OR REPLACE INTO file_blobs (id, content_type, size, bytes) VALUES (?, ?, ?, ?)'),
      get: db.prepare<[string], Blob>('SELECT content_type, size, bytes FROM file_blobs WHERE id = ?'),
      delete: db.prepare<[string]>('DELETE FROM file_blobs WHERE id = ?'),
    }
  }

  put(id: number, contentType: string, bytes: Buffer): void {
    this.stmts.put.run(String(id), contentType, bytes.length, bytes)
  }
  get(id: number): Blob | undefined {
    return this.stmts.get.get(String(id))
  }
  delete(id: number): void {
    this.stmts.delete.run(String(id))
  }
}

const blobsOf = new WeakMap<ServiceContext, Blobs>()
export function blobs(ctx: ServiceContext): Blobs {
  let b = blobsOf.get(ctx)
  if (!b) blobsOf.set(ctx, (b = new Blobs(ctx.db)))
  return b
}

/** A story a file is attached to must exist: 422 naming the field otherwise. */
export function checkStory(ctx: ServiceContext, storyId: number | undefined): void {
  if (storyId !== undefined && !ctx.col('story').has(storyId)) {
    throw ApiError.unprocessable(`Story ${storyId} does not exist.`, { story_id: 'no such story' })
  }
}

/** Uploaders are members of the workspace: 422 naming the field otherwise. */
export function checkUploader(ctx: ServiceContext, memberId: string | undefined): void {
  if (memberId !== undefined && !ctx.col<MemberRecord>('member').has(memberId)) {
    throw ApiError.unprocessable(`Member ${memberId} does not exist.`, { uploader_id: 'no such member' })
  }
}

export interface Upload {
  filename: string
  content_type: string
  bytes: Buffer
}

/**
 * Stores one uploaded file and its bytes; call inside ctx.tx. The file's story_ids
 * are the link's one source: the stories resource derives a story's file_ids from them.
 */
export function storeUpload(ctx: ServiceContext, uploader: string, upload: Upload, storyId?: number, at = ctx.now()): FileRecord {
  const record = files(ctx).insert({
    id: ctx.nextId(),
    content_type: upload.content_type,
    created_at: at,
    description: null,
    external_id: null,
    filename: upload.filename,
    name: upload.filename,
    size: upload.bytes.length,
    story_ids: storyId === undefined ? [] : [storyId],
    updated_at: at,
    uploader_id: uploader,
  })
  blobs(ctx).put(record.id, upload.content_type, upload.bytes)
  return record
}

/** Deletes the record and its bytes. */
export function deleteFile(ctx: ServiceContext, id: number): void {
  if (!files(ctx).delete(id)) throw ApiError.notFound(`File ${id} does not exist.`)
  blobs(ctx).delete(id)
}
