// Copies of the files the user dropped, in the app's durable staging folder
// (`<data>/staging/<account>/<uuid>-<safe name>`). A queued upload reads its
// copy, so it survives the original being moved, renamed or deleted, and a
// restart; the copy is removed once the upload has gone (files.discard), or
// swept when no queued upload names it any more (sweep.ts). One folder per
// workspace, because each workspace has its own outbox: a sweep with one
// outbox's list must never touch the copies another one still needs.
import { randomUUID } from 'node:crypto'
import { constants, createWriteStream } from 'node:fs'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { tooLargeToUpload, UPLOAD_LIMIT_BYTES, type StagedFile } from '../../src-shared/ipc.ts'
import { safeFileName } from './safe-name.ts'

/** The staging folder of one workspace (account). */
export function accountStagingFolder(stagingDir: string, accountId: string): string {
  return join(stagingDir, safeFileName(accountId))
}

/** A new, unique place for a staged copy of `name`. */
export function newStagedPath(stagingDir: string, name: string): string {
  return join(stagingDir, `${randomUUID()}-${safeFileName(name)}`)
}

const STAGED_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-(.+)$/

/** The name of the file a staged copy was made from (`<uuid>-photo.png` → `photo.png`). */
export function stagedFileName(path: string): string {
  const name = basename(path)
  return STAGED_NAME.exec(name)?.[1] ?? name
}

/** Where a copy is written until it is whole (`.<uuid>.part`): never read by an upload, swept when a crash left it. */
export const PARTIAL_STAGED = /^\.[0-9a-f-]{36}\.part$/

/** Writes through a temporary name, so a copy cut short never stands where an upload would read it. */
async function put(stagingDir: string, name: string, write: (temp: string) => Promise<void>): Promise<StagedFile> {
  await mkdir(stagingDir, { recursive: true })
  const path = newStagedPath(stagingDir, name)
  const temp = join(stagingDir, `.${randomUUID()}.part`)
  try {
    await write(temp)
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
  return { path, size: (await stat(path)).size }
}

/** Why a dropped file cannot be copied: it went away, Outpost may not read it, or it is not a file. */
export type UnreadableReason = 'gone' | 'denied' | 'folder' | 'not-a-file'

const WHY: Record<UnreadableReason, (name: string) => string> = {
  gone: (name) => `${name} is no longer where it was dropped from (moved or deleted): drop it again.`,
  denied: (name) => `Outpost is not allowed to read ${name} (permission denied): check its permissions, then drop it again.`,
  folder: (name) => `${name} is a folder: drop the files in it instead.`,
  'not-a-file': (name) => `${name} is not a regular file (a device, a pipe or a socket): Outpost uploads files only.`,
}

/** The OS's error codes for a file that cannot be read, by reason; any other failure is not the file's. */
const REASON_OF_CODE: Record<string, UnreadableReason> = {
  ENOENT: 'gone',
  ENOTDIR: 'gone',
  ELOOP: 'gone',
  EACCES: 'denied',
  EPERM: 'denied',
  EISDIR: 'folder',
}

/** A dropped file Outpost cannot read, in the user's words; `code` is the OS's (`EACCES`) when it said one. */
export class UnreadableFileError extends Error {
  override readonly name = 'UnreadableFileError'
  constructor(
    readonly reason: UnreadableReason,
    readonly file: string,
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(WHY[reason](basename(file)), options)
  }
}

/** The error of reading `file`, as an UnreadableFileError when its code says why; unchanged otherwise. */
export function unreadable(error: unknown, file: string): unknown {
  const code = (error as { code?: unknown } | null)?.code
  const reason = typeof code === 'string' ? REASON_OF_CODE[code] : undefined
  return reason ? new UnreadableFileError(reason, file, code as string, { cause: error }) : error
}

// Should the file have become a pipe since it was looked at, opening it does not wait for a writer.
const READ_NOW = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/**
 * Copies a file from disk (one the user dropped or picked) into the staging
 * folder. A file that cannot be read (gone, no permission, a folder, a pipe)
 * fails with UnreadableFileError, whether it was so from the start or became
 * so while it was copied; a failure to write the copy is not the file's and
 * is thrown as it came.
 */
export async function stageCopy(stagingDir: string, source: string, name: string, limit = UPLOAD_LIMIT_BYTES): Promise<StagedFile> {
  const refuse = (error: unknown): never => {
    throw unreadable(error, source)
  }
  const kind = (info: { isFile(): boolean; isDirectory(): boolean; size: number }) => {
    if (info.isDirectory()) throw new UnreadableFileError('folder', source, 'EISDIR')
    if (!info.isFile()) throw new UnreadableFileError('not-a-file', source)
    // Said before any of it is read (the service would refuse it after the whole upload).
    if (info.size > limit) throw new TooLargeError(name, limit)
  }
  kind(await stat(source).catch(refuse))
  const handle = await open(source, READ_NOW).catch(refuse)
  try {
    kind(await handle.stat().catch(refuse))
    return await put(stagingDir, name, async (temp) => {
      const input = handle.createReadStream({ autoClose: false, start: 0 })
      let readError: unknown
      input.once('error', (error) => (readError = error))
      await pipeline(input, atMost(limit, name), createWriteStream(temp, { flags: 'wx' })).catch((error: unknown) => {
        throw readError === undefined ? error : unreadable(readError, source)
      })
    })
  } finally {
    await handle.close()
  }
}

/** A staged copy refused for its size: more than `limit` bytes came. */
export class TooLargeError extends Error {
  override readonly name = 'TooLargeError'
  constructor(
    readonly file: string,
    readonly limit: number,
  ) {
    super(tooLargeToUpload(file, limit))
  }
}

/**
 * Writes the bytes the page hands over as they come (the browser host, where
 * the page has no paths) into the staging folder; more than `limit` bytes
 * fail with TooLargeError, and nothing is left behind.
 */
export function stageStream(stagingDir: string, name: string, input: AsyncIterable<Uint8Array>, limit: number): Promise<StagedFile> {
  return put(stagingDir, name, (temp) => pipeline(input, atMost(limit, name), createWriteStream(temp, { flags: 'wx' })))
}

/** A pipeline step passing bytes on until more than `limit` came (a file that grew since it was measured, a page's stream). */
function atMost(limit: number, name: string) {
  return async function* (source: AsyncIterable<Uint8Array>) {
    let size = 0
    for await (const chunk of source) {
      size += chunk.byteLength
      if (size > limit) throw new TooLargeError(name, limit)
      yield chunk
    }
  }
}
