// Writes a downloaded body to the cache: into a temporary file beside the
// destination, renamed into place only once complete, so a half-written file
// never stands where a whole one is expected.
import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'

export interface DownloadProgress {
  received: number
  /** From Content-Length; undefined when the service did not say. */
  total: number | undefined
}

/** The cache folder could not be written (disk full, permissions): not a network matter, not retried. */
export class CacheWriteError extends Error {
  override name = 'CacheWriteError'
}

export async function saveBody(
  body: Readable,
  destFile: string,
  total: number | undefined,
  onProgress?: (progress: DownloadProgress) => void,
  /** Runs on the complete temporary file before it is put in place (the internet mark): the file never stands there without it. */
  beforePlace?: (tempFile: string) => Promise<void>,
): Promise<number> {
  await mkdir(dirname(destFile), { recursive: true }).catch((e: Error) => {
    throw new CacheWriteError(`Could not create the folder of ${destFile}: ${e.message}`, { cause: e })
  })
  const temp = join(dirname(destFile), `.${basename(destFile)}.${randomBytes(6).toString('hex')}.part`)
  let received = 0
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length
      onProgress?.({ received, total })
      callback(null, chunk)
    },
  })
  const file = createWriteStream(temp, { flags: 'wx' })
  let fileError: unknown
  file.once('error', (e) => (fileError = e))
  try {
    await pipeline(body, count, file).catch((error: unknown) => {
      if (fileError !== undefined) throw new CacheWriteError(`Could not write ${destFile}: ${(fileError as Error).message}`, { cause: fileError })
      throw error
    })
    if (total !== undefined && received !== total) throw new Error(`The download ended after ${received} of ${total} bytes`)
    await beforePlace?.(temp)
    await rename(temp, destFile).catch((e: Error) => {
      throw new CacheWriteError(`Could not write ${destFile}: ${e.message}`, { cause: e })
    })
    return received
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}
