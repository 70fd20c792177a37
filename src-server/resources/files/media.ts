// The bytes of uploaded files, served at each file's url (and thumbnail_url).
// /media/* is authenticated by the core like the API (v3 token or Bearer).
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { Id } from '../../../src-shared/api/common.ts'
import type { ApiApp, Deps } from '../../resource.ts'
import { ApiError } from '../../errors.ts'
import { hasThumbnail } from './render.ts'
import { blobs, files } from './store.ts'

/** Types a browser may show in place; anything else (HTML, SVG...) is a download. */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'text/plain',
  'text/csv',
  'text/markdown',
  'application/pdf',
  'application/json',
])

const MediaParams = Type.Object({ id: Id, filename: Type.String({ maxLength: 1024 }) })

/** RFC 6266 with an ASCII fallback and the exact UTF-8 name in filename*. */
export function contentDisposition(type: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_').replace(/[/]/g, '_') || 'file'
  const exact = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${type}; filename="${ascii}"; filename*=UTF-8''${exact}`
}

export function mediaRoutes(app: ApiApp, { ctx }: Deps): void {
  const serve = async (id: number, reply: FastifyReply, thumbnail = false) => {
    const file = files(ctx).get(id)
    const blob = file ? blobs(ctx).get(id) : undefined
    if (!file || !blob) throw ApiError.notFound(`File ${id} does not exist.`)
    if (thumbnail && !hasThumbnail(file)) throw ApiError.notFound(`File ${id} has no thumbnail: it is not an image.`)
    const mime = blob.content_type.split(';')[0].trim().toLowerCase()
    return reply
      .header('content-type', blob.content_type)
      .header('content-length', String(blob.size))
      .header('content-disposition', contentDisposition(INLINE_TYPES.has(mime) ? 'inline' : 'attachment', file.name))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('cache-control', 'private, no-cache')
      .send(blob.bytes)
  }

  app.get('/media/files/:id/:filename', { schema: { params: MediaParams } }, async (req, reply) => serve(req.params.id, reply))
  app.get('/media/thumbnails/:id/:filename', { schema: { params: MediaParams } }, async (req, reply) => serve(req.params.id, reply, true))
}
