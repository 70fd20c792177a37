// v3 files and linked files (part 2 §4.4). Uploads are multipart/form-data:
// file0 (required) to file3, and story_id; each file's name is the filename of
// its part's Content-Disposition.
import multipart from '@fastify/multipart'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { Id, LIMITS } from '../../../src-shared/api/common.ts'
import { CreateLinkedFileV3, UPLOAD_FILE_FIELDS, UPLOAD_STORY_FIELD, UpdateFileV3, UpdateLinkedFileV3 } from '../../../src-shared/api/v3/files.ts'
import type { ApiApp, Deps } from '../../resource.ts'
import { ApiError } from '../../errors.ts'
import { origin } from '../../pages.ts'
import { linkedFileV3, Mentions, uploadedFileV3 } from './render.ts'
import { checkStory, checkUploader, deleteFile, files, linkedFiles, storeUpload, type FileRecord, type LinkedFileRecord, type Upload } from './store.ts'

const IdParams = Type.Object({ id: Id })

/** A part's type when it is a well-formed MIME type, application/octet-stream otherwise. */
function contentTypeOf(mimetype: string | undefined): string {
  const t = (mimetype ?? '').trim()
  return /^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\r\n]*"|[\w.+-]+))*$/.test(t) ? t : 'application/octet-stream'
}

function isTooLarge(e: unknown): boolean {
  return (e as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE'
}

/** Reads the form: the files by field (file0..file3) and story_id. */
async function readUpload(req: FastifyRequest, maxFileBytes: number): Promise<{ uploads: Upload[]; storyId?: number }> {
  if (!req.isMultipart()) throw ApiError.badRequest('Upload files as multipart/form-data (file0 to file3, and story_id).', { file0: 'is required' })
  const found = new Map<string, Upload>()
  let storyId: number | undefined
  try {
    for await (const part of req.parts()) {
      const field = part.fieldname
      if (part.type === 'file') {
        if (!(UPLOAD_FILE_FIELDS as readonly string[]).includes(field)) {
          throw ApiError.badRequest(`Unexpected file field "${field}": send file0 to file3.`, { [field]: 'is not an accepted field' })
        }
        if (found.has(field)) throw ApiError.badRequest(`${field} was sent twice.`, { [field]: 'was sent twice' })
        if ([...(part.filename ?? '')].length > LIMITS.fileName) {
          const reason = `name must be at most ${LIMITS.fileName} characters`
          throw ApiError.unprocessable(`Too long: ${field} ${reason}.`, { [field]: reason })
        }
        const bytes = await part.toBuffer()
        found.set(field, { filename: part.filename || field, content_type: contentTypeOf(part.mimetype), bytes })
      } else if (field === UPLOAD_STORY_FIELD) {
        const text = String(part.value).trim()
        if (!/^[1-9]\d{0,15}$/.test(text)) throw ApiError.badRequest('story_id must be a story id (a positive integer).', { story_id: 'must be an integer' })
        storyId = Number(text)
      } else if ((UPLOAD_FILE_FIELDS as readonly string[]).includes(field)) {
        throw ApiError.badRequest(`${field} must be a file part (with a filename).`, { [field]: 'must be a file' })
      } else {
        throw ApiError.badRequest(`Unexpected form field "${field}".`, { [field]: 'is not an accepted field' })
      }
    }
  } catch (e) {
    if (isTooLarge(e)) {
      const name = (e as { part?: { fieldname?: string; filename?: string } }).part
      throw new ApiError(
        413,
        'payload_too_large',
        `${name?.fieldname ?? 'A file'}${name?.filename ? ` ("${name.filename}")` : ''} is larger than the ${maxFileBytes} bytes this service accepts per file.`,
        name?.fieldname ? { [name.fieldname]: `must be at most ${maxFileBytes} bytes` } : undefined,
      )
    }
    if (e instanceof ApiError) throw e
    // busboy's own complaints (truncated body, no boundary...) are the client's fault.
    throw ApiError.badRequest(`The upload is not well-formed multipart/form-data: ${(e as Error).message}.`, { file0: 'malformed multipart body' })
  }
  if (!found.has('file0')) throw ApiError.badRequest('file0 is required: send at least one file.', { file0: 'is required' })
  const uploads = UPLOAD_FILE_FIELDS.map((f) => found.get(f)).filter((u): u is Upload => u !== undefined)
  return { uploads, storyId }
}

export function fileRoutesV3(app: ApiApp, deps: Deps): void {
  const { ctx } = deps
  app.register(async (scope: ApiApp) => {
    // Registered here, so only this scope parses multipart bodies.
    await scope.register(multipart, {
      preservePath: true,
      limits: { fileSize: deps.maxFileBytes, files: UPLOAD_FILE_FIELDS.length + 4, fields: 16, parts: 24 },
    })

    scope.post('/files', async (req, reply) => {
      const { uploads, storyId } = await readUpload(req, deps.maxFileBytes)
      const made = ctx.tx(() => {
        checkStory(ctx, storyId)
        const at = ctx.now()
        return uploads.map((u) => storeUpload(ctx, req.auth.member.id, u, storyId, at))
      })
      const mentions = new Mentions(ctx)
      return reply.code(201).send(made.map((f) => uploadedFileV3(origin(req), mentions, f)))
    })
  })

  app.get('/files', async (req) => {
    const mentions = new Mentions(ctx)
    return files(ctx)
      .all()
      .map((f) => uploadedFileV3(origin(req), mentions, f))
  })

  app.get('/files/:id', { schema: { params: IdParams } }, async (req) => uploadedFileV3(origin(req), new Mentions(ctx), files(ctx).require(req.params.id)))

  app.put('/files/:id', { schema: { params: IdParams, body: UpdateFileV3 } }, async (req) => {
    const f = ctx.tx(() => {
      const current = files(ctx).require(req.params.id)
      checkUploader(ctx, req.body.uploader_id)
      const next: FileRecord = { ...current, ...req.body, updated_at: req.body.updated_at ?? ctx.now() }
      return files(ctx).update(next)
    })
    return uploadedFileV3(origin(req), new Mentions(ctx), f)
  })

  app.delete('/files/:id', { schema: { params: IdParams } }, async (req, reply) => {
    ctx.tx(() => deleteFile(ctx, req.params.id))
    return reply.code(204).send()
  })

  app.get('/linked-files', async () => {
    const mentions = new Mentions(ctx)
    return linkedFiles(ctx)
      .all()
      .map((f) => linkedFileV3(mentions, f))
  })

  app.post('/linked-files', { schema: { body: CreateLinkedFileV3 } }, async (req, reply) => {
    const { story_id: storyId, ...body } = req.body
    const f = ctx.tx(() => {
      checkStory(ctx, storyId)
      checkUploader(ctx, body.uploader_id)
      const now = ctx.now()
      return linkedFiles(ctx).insert({
        id: ctx.nextId(),
        content_type: body.content_type ?? null,
        created_at: now,
        description: body.description ?? null,
        name: body.name,
        size: body.size ?? null,
        story_ids: storyId === undefined ? [] : [storyId],
        thumbnail_url: body.thumbnail_url ?? null,
        type: body.type,
        updated_at: now,
        uploader_id: body.uploader_id ?? req.auth.member.id,
        url: body.url,
      })
    })
    return reply.code(201).send(linkedFileV3(new Mentions(ctx), f))
  })

  app.get('/linked-files/:id', { schema: { params: IdParams } }, async (req) => linkedFileV3(new Mentions(ctx), linkedFiles(ctx).require(req.params.id)))

  // story_id attaches the file to one more story; the others stay.
  app.put('/linked-files/:id', { schema: { params: IdParams, body: UpdateLinkedFileV3 } }, async (req) => {
    const { story_id: storyId, ...patch } = req.body
    const f = ctx.tx(() => {
      const current = linkedFiles(ctx).require(req.params.id)
      checkStory(ctx, storyId)
      checkUploader(ctx, patch.uploader_id)
      const storyIds = storyId === undefined || current.story_ids.includes(storyId) ? current.story_ids : [...current.story_ids, storyId]
      const next: LinkedFileRecord = { ...current, ...patch, story_ids: storyIds, updated_at: ctx.now() }
      return linkedFiles(ctx).update(next)
    })
    return linkedFileV3(new Mentions(ctx), f)
  })

  app.delete('/linked-files/:id', { schema: { params: IdParams } }, async (req, reply) => {
    ctx.tx(() => {
      if (!linkedFiles(ctx).delete(req.params.id)) throw ApiError.notFound(`Linked file ${req.params.id} does not exist.`)
    })
    return reply.code(204).send()
  })
}
