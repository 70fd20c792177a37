// Reading an answer's body into memory: decoded as it streams when the service
// compressed it (the gateway asks for brotli or gzip), and refused once its
// decoded size passes a limit, so that a few kilobytes that inflate to
// gigabytes (a decompression bomb, or a broken proxy) end as a clear error
// instead of taking the main side's memory.
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { Readable, Transform } from 'node:stream'

/** What the gateway asks for: compressed answers, as production APIs send them (brotli or gzip). */
export const ACCEPT_ENCODING = 'br, gzip'

/**
 * The most an answer may hold once decoded (256 MiB). The largest answer Outpost asks for is the v3 epic
 * list: about 18 MB at 10,000 epics, 92 MB at 50,000. Past about 512 MB, text cannot even be one string.
 */
export const MAX_ANSWER_BYTES = 256 * 2 ** 20

/** An answer larger than the gateway reads once decoded: not read, and not asked again. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError'
  constructor(
    readonly limit: number,
    readonly encoding: string | undefined,
  ) {
    super(
      `The service's answer was larger than Outpost reads (over ${Math.round(limit / 2 ** 20)} MB${encoding ? ` once decoded from ${encoding}` : ''}); it was not read.`,
    )
  }
}

const DECODERS: Record<string, () => Transform> = {
  br: createBrotliDecompress,
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
}

/** The decoders a Content-Encoding names, in the order to apply them (the last one applied first). */
function decodersFor(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
  return codings.reverse().map((c) => {
    const decoder = DECODERS[c]
    if (!decoder) throw new Error(`The service sent its answer in an encoding Outpost cannot read (${c}).`)
    return decoder()
  })
}

/** The text a read that failed on its way (the link cut, the connection reset) had decoded, by its error. */
const receivedBefore = new WeakMap<object, string>()

/** What the read that failed with `error` had decoded before it failed (undefined: none, or not a read's error). */
export const receivedOf = (error: unknown): string | undefined => (typeof error === 'object' && error !== null ? receivedBefore.get(error) : undefined)

/**
 * The body as text, decoded from its Content-Encoding, at most `limit` bytes once decoded (else AnswerTooLargeError).
 * A read that fails on its way keeps what it decoded, for receivedOf.
 */
export async function readBody(body: Readable, contentEncoding: string | undefined, limit = MAX_ANSWER_BYTES): Promise<string> {
  const decoders = decodersFor(contentEncoding)
  let stream: Readable = body
  for (const decoder of decoders) {
    // An error anywhere in the chain ends the read with it; destroying the chain frees the decoders.
    stream.on('error', (error) => decoder.destroy(error))
    stream = stream.pipe(decoder)
  }
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > limit) throw new AnswerTooLargeError(limit, contentEncoding)
      chunks.push(chunk)
    }
  } catch (error) {
    if (!(error instanceof AnswerTooLargeError) && typeof error === 'object' && error !== null && size > 0) {
      receivedBefore.set(error, Buffer.concat(chunks, size).toString('utf8'))
    }
    throw error
  } finally {
    body.destroy()
    for (const decoder of decoders) decoder.destroy()
  }
  return Buffer.concat(chunks, size).toString('utf8')
}
