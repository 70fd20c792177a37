// A multipart/form-data body streamed from disk, with its exact length known up
// front (no chunked encoding) and progress counted as undici pulls the bytes.
import { randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { Readable } from 'node:stream'

export interface FilePart {
  /** Form field name (file0...). */
  field: string
  path: string
  /** File name sent in Content-Disposition; what the service records. */
  name: string
  type: string
}

export interface MultipartBody {
  contentType: string
  length: number
  /** Bytes of file content in the body, the `total` of progress events. */
  fileBytes: number
  /** A fresh stream of the whole body (one per attempt). */
  open(onFileBytes: (sent: number) => void): Readable
}

/** What browsers do with a name in a quoted-string: UTF-8 as is, quote and line breaks percent-encoded. */
export function quoteName(name: string): string {
  return `"${name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`
}

export async function multipartBody(fields: Record<string, string>, files: FilePart[]): Promise<MultipartBody> {
  const boundary = `----OutpostFormBoundary${randomBytes(12).toString('hex')}`
  const sizes = await Promise.all(files.map(async (f) => (await stat(f.path)).size))
  const fieldParts = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name=${quoteName(name)}\r\n\r\n${value}\r\n`),
  )
  const fileHeads = files.map((f) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name=${quoteName(f.field)}; filename=${quoteName(f.name)}\r\n` + `Content-Type: ${f.type}\r\n\r\n`,
    ),
  )
  const crlf = Buffer.from('\r\n')
  const closing = Buffer.from(`--${boundary}--\r\n`)
  const fileBytes = sizes.reduce((a, b) => a + b, 0)
  const length =
    fieldParts.reduce((n, b) => n + b.length, 0) + fileHeads.reduce((n, b) => n + b.length, 0) + fileBytes + crlf.length * files.length + closing.length

  async function* generate(onFileBytes: (sent: number) => void): AsyncGenerator<Buffer> {
    let sent = 0
    for (const part of fieldParts) yield part
    for (let i = 0; i < files.length; i++) {
      yield fileHeads[i]
      let ofThisFile = 0
      for await (const chunk of createReadStream(files[i].path, { highWaterMark: 64 * 1024 })) {
        const bytes = chunk as Buffer
        ofThisFile += bytes.length
        // The declared length is already on the wire: a file that grew would corrupt the body.
        if (ofThisFile > sizes[i]) throw new Error(`${files[i].name} changed while it was being uploaded`)
        yield bytes
        // undici asks for the next chunk once it has written this one.
        sent += bytes.length
        onFileBytes(sent)
      }
      if (ofThisFile !== sizes[i]) throw new Error(`${files[i].name} changed while it was being uploaded`)
      yield crlf
    }
    yield closing
  }

  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    fileBytes,
    open: (onFileBytes) => Readable.from(generate(onFileBytes), { objectMode: false, highWaterMark: 64 * 1024 }),
  }
}
