// Copies of the files the user dropped, in the app's durable staging folder
// (`<data>/staging/<uuid>-<safe name>`). A queued upload reads its copy, so it
// survives the original being moved, renamed or deleted, and a restart; the
// copy is removed once the upload has gone (files.discard).
import { randomUUID } from 'node:crypto'
import { copyFile, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { StagedFile } from '../../src-shared/ipc.ts'
import { safeFileName } from './safe-name.ts'

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

/** Copies a file from disk (one the user dropped or picked) into the staging folder. */
export function stageCopy(stagingDir: string, source: string, name: string): Promise<StagedFile> {
  return put(stagingDir, name, (temp) => copyFile(source, temp))
}

/** Writes bytes the page handed over (the browser host, where the page has no paths) into the staging folder. */
export function stageBytes(stagingDir: string, name: string, bytes: Uint8Array): Promise<StagedFile> {
  return put(stagingDir, name, (temp) => writeFile(temp, bytes, { flag: 'wx' }))
}
