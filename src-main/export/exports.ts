// Exports under way: each is a new folder the main side made (in the folder
// the user picked, or the browser host's `exports/`), and the renderer hands
// it what to write, a part at a time. Only this module writes there, and only
// inside that folder: a path is relative, its parts are made safe one by one
// (safe-name.ts), `..` and `.` are refused, a file is created new (never over
// one that is there, never through a link), and the folders on the way are
// checked to really lie inside the export's folder.
import { randomUUID } from 'node:crypto'
import { constants } from 'node:fs'
import { copyFile, lstat, mkdir, open, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { EXPORT_MANIFEST, EXPORT_PATH_DEPTH, type ExportCopied, type ExportManifest, type ExportWritten } from '../../src-shared/ipc.ts'
import { findCached, type MarkFile } from '../files/file-cache.ts'
import { isParentReallyInside, isReallyInside } from '../files/folders.ts'
import { safeFileName } from '../files/safe-name.ts'

/** The request's fault: a path that leads out, a file written twice, an export that is not under way. */
export class ExportRefused extends Error {
  override readonly name = 'ExportRefused'
}

/** The disk's: no permission, no room, a read-only folder. */
export class ExportWriteFailed extends Error {
  override readonly name = 'ExportWriteFailed'
}

/** Exports open at once; one a window forgot (it was closed mid-way) is dropped after IDLE_MS. */
const MAX_OPEN = 4
const IDLE_MS = 30 * 60 * 1000

/** The workspace an export is of: its account (whose file cache is copied) and names. */
export interface ExportWorkspace {
  accountId: string
  name: string
  slug: string
  baseUrl: string
}

interface OpenExport {
  id: string
  folder: string
  workspace: ExportWorkspace
  /** Paths written, by their case-folded form (two names that differ only in case are one file on macOS and Windows). */
  written: Map<string, { path: string; bytes: number }>
  files: ExportManifest['files']
  copied: Set<number>
  touchedAt: number
}

export interface ExportsOptions {
  /** The file cache (`<data>/files`): copies come from here only. */
  cacheDir: string
  /** Marks a file's copy as come from the internet, as its download was (the file's own address is not kept: the service's stands for it). */
  markFile?: MarkFile
  now?: () => number
}

/**
 * A relative export path made safe, part by part: `epics/12 Launch: Q3.md` →
 * `['epics', '12 Launch_ Q3.md']`. Refused: an absolute path, a backslash
 * (a separator on Windows), empty, `.` and `..` parts, more than
 * EXPORT_PATH_DEPTH parts, and the manifest's own name.
 */
export function exportPath(path: string): string[] {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) throw new ExportRefused(`“${path}” is absolute: an export writes only inside its own folder.`)
  if (path.includes('\\')) throw new ExportRefused(`“${path}” has a backslash: export paths are separated by /.`)
  const parts = path.split('/')
  if (parts.some((p) => p === '..')) throw new ExportRefused(`“${path}” leads out of the export's folder (..): refused.`)
  if (parts.some((p) => p === '' || p === '.')) throw new ExportRefused(`“${path}” has an empty or “.” part.`)
  if (parts.length > EXPORT_PATH_DEPTH) throw new ExportRefused(`“${path}” is more than ${EXPORT_PATH_DEPTH} folders deep.`)
  const safe = parts.map(safeFileName)
  if (safe.length === 1 && safe[0].toLowerCase() === EXPORT_MANIFEST) throw new ExportRefused(`${EXPORT_MANIFEST} is written when the export finishes.`)
  return safe
}

/** `2026-11-26T15:20:32.123Z` → `20261126-152032`. */
function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
}

/**
 * A cached file's place in the export, `<id>-<name>`, as one safe name: a service's file name may hold
 * separators and dot parts (`a/b/c`, `x/`, `a/./b`), which are flattened into it, never followed.
 */
export function exportFileName(fileId: number, name: string): string {
  return safeFileName(`${fileId}-${name.replace(/[/\\]/g, '_')}`)
}

/** What the disk said, in words. */
function whyWriteFailed(error: unknown): string {
  const code = (error as { code?: string }).code
  return code === 'EACCES' || code === 'EPERM'
    ? 'no permission to write there'
    : code === 'ENOSPC'
      ? 'the disk is full'
      : code === 'EROFS'
        ? 'the disk is read-only'
        : code === 'ENOENT' || code === 'ENOTDIR'
          ? 'the folder is gone'
          : error instanceof Error
            ? error.message
            : String(error)
}

/** `doing`: what failed, as in “Outpost could not write epics.json”. */
function writeFailure(error: unknown, doing: string): never {
  throw new ExportWriteFailed(`Outpost could not ${doing}: ${whyWriteFailed(error)}.`)
}

/** Failures no later part would escape (the disk is full or read-only): the export stops. A folder gone stops it at the next part. */
const WHOLE_EXPORT_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EROFS'])

export class Exports {
  private readonly open = new Map<string, OpenExport>()
  private readonly now: () => number

  constructor(private readonly options: ExportsOptions) {
    this.now = options.now ?? Date.now
  }

  /** Makes `<parent>/<workspace>-<time>` (a suffix when it exists) and opens an export into it. */
  async begin(parent: string, workspace: ExportWorkspace): Promise<{ exportId: string; folder: string }> {
    const now = this.now()
    for (const [id, e] of this.open) if (now - e.touchedAt > IDLE_MS) this.open.delete(id)
    if (this.open.size >= MAX_OPEN) throw new ExportRefused(`${MAX_OPEN} exports are under way already: wait for one to finish.`)
    const info = await stat(parent).catch(() => undefined)
    if (!info?.isDirectory()) throw new ExportRefused(`${parent} is not a folder: pick a folder to export into.`)
    const base = safeFileName(`${workspace.slug}-${stamp(now)}`)
    let folder = ''
    for (let n = 1; !folder; n++) {
      const candidate = join(parent, n === 1 ? base : `${base}-${n}`)
      try {
        // Not recursive: the folder is new, so everything in it is this export's.
        await mkdir(candidate)
        folder = candidate
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST' || n >= 100) writeFailure(error, `make a new folder in ${parent}`)
      }
    }
    const id = randomUUID()
    this.open.set(id, { id, folder, workspace, written: new Map(), files: { included: [], notIncluded: [] }, copied: new Set(), touchedAt: now })
    return { exportId: id, folder }
  }

  private get(exportId: string): OpenExport {
    const e = this.open.get(exportId)
    if (!e) throw new ExportRefused('This export is not under way (it finished, was cancelled, or Outpost restarted): start it again.')
    e.touchedAt = this.now()
    return e
  }

  /**
   * Where a new file goes: its folders made, and checked to lie really inside
   * the export's folder (a link planted on the way leads nowhere else).
   */
  private async target(e: OpenExport, parts: string[]): Promise<string> {
    const path = join(e.folder, ...parts)
    const folder = await lstat(e.folder).catch(() => undefined)
    if (!folder?.isDirectory())
      throw new ExportWriteFailed(`Outpost could not write ${parts.join('/')}: the export's folder ${e.folder} is gone (moved or removed).`)
    try {
      if (parts.length > 1) await mkdir(join(e.folder, ...parts.slice(0, -1)), { recursive: true })
    } catch (error) {
      writeFailure(error, `write ${parts.join('/')}`)
    }
    if ((await isParentReallyInside(e.folder, path)) !== true) throw new ExportRefused(`“${parts.join('/')}” leads out of the export's folder: refused.`)
    return path
  }

  /** Writes a new file, or adds to one this export wrote (`append`). */
  async write(exportId: string, path: string, text: string, append = false): Promise<ExportWritten> {
    const e = this.get(exportId)
    const parts = exportPath(path)
    const relative = parts.join('/')
    const key = relative.toLowerCase()
    const before = e.written.get(key)
    if (append && !before) throw new ExportRefused(`“${relative}” was not written by this export yet: nothing to add to.`)
    if (!append && before) throw new ExportRefused(`“${relative}” was written already in this export (names that differ only in case are one file).`)
    const target = await this.target(e, parts)
    // New files only ('wx'), and appending never follows a link: nothing outside is written, nothing there is overwritten.
    const flags = append ? constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0) : 'wx'
    try {
      const handle = await open(target, flags)
      try {
        await handle.writeFile(text, 'utf8')
      } finally {
        await handle.close()
      }
    } catch (error) {
      if ((error as { code?: string }).code === 'EEXIST') throw new ExportRefused(`“${relative}” is there already: an export never writes over a file.`)
      writeFailure(error, `write ${relative}`)
    }
    const bytes = (before?.bytes ?? 0) + Buffer.byteLength(text)
    e.written.set(key, { path: relative, bytes })
    return { path: relative, bytes }
  }

  /**
   * Copies a file's content from the file cache to `files/<id>-<name>`. One that is not cached, or cannot be
   * written (its name taken, refused by the disk), is listed as not included with why, and the export goes on:
   * one colleague's file never stops everyone's export. Only what would stop every later part stops it.
   */
  async copyFile(exportId: string, fileId: number, name: string): Promise<ExportCopied> {
    const e = this.get(exportId)
    if (e.copied.has(fileId)) throw new ExportRefused(`File ${fileId} is in this export already.`)
    e.copied.add(fileId)
    const notIncluded = (reason: string): ExportCopied => {
      e.files.notIncluded.push({ id: fileId, name, reason })
      return { included: false, reason }
    }
    const source = await findCached(this.options.cacheDir, e.workspace.accountId, fileId)
    if (!source || !(await isReallyInside(this.options.cacheDir, source))) {
      return notIncluded('Its content was never downloaded to this computer (open the file in Outpost while online to keep it).')
    }
    const parts = ['files', exportFileName(fileId, name)]
    const relative = parts.join('/')
    if (e.written.has(relative.toLowerCase())) return notIncluded(`${relative} was written already in this export.`)
    let target: string
    try {
      target = await this.target(e, parts)
      await copyFile(source, target, constants.COPYFILE_EXCL)
      await this.options.markFile?.(target, { hostUrl: e.workspace.baseUrl, referrerUrl: e.workspace.baseUrl })
    } catch (error) {
      if (error instanceof ExportRefused) return notIncluded(error.message)
      if (error instanceof ExportWriteFailed) throw error
      const code = (error as { code?: string }).code
      if (code === 'EEXIST') return notIncluded(`${relative} is there already: an export never writes over a file.`)
      if (code !== undefined && WHOLE_EXPORT_FAILURES.has(code)) writeFailure(error, `write ${relative}`)
      return notIncluded(`Outpost could not write ${relative}: ${whyWriteFailed(error)}.`)
    }
    const bytes = (await stat(target)).size
    e.written.set(relative.toLowerCase(), { path: relative, bytes })
    e.files.included.push({ id: fileId, name, path: relative, bytes })
    return { included: true, path: relative, bytes }
  }

  /** Writes manifest.json and closes the export. */
  async finish(exportId: string, counts: Record<string, number>, notes: string[] = []): Promise<{ folder: string; manifest: ExportManifest }> {
    const e = this.get(exportId)
    const manifest: ExportManifest = {
      format: 'outpost-export',
      version: 1,
      exportedAt: new Date(this.now()).toISOString(),
      workspace: { name: e.workspace.name, slug: e.workspace.slug, baseUrl: e.workspace.baseUrl },
      counts,
      files: e.files,
      written: [...e.written.values()],
      notes,
    }
    try {
      const handle = await open(join(e.folder, EXPORT_MANIFEST), 'wx')
      try {
        await handle.writeFile(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8')
      } finally {
        await handle.close()
      }
    } catch (error) {
      writeFailure(error, `write ${EXPORT_MANIFEST}`)
    }
    this.open.delete(exportId)
    return { folder: e.folder, manifest }
  }

  /** Stops an export and removes its folder (made by this export, so nothing else is in it). */
  async cancel(exportId: string): Promise<void> {
    const e = this.get(exportId)
    this.open.delete(exportId)
    await rm(e.folder, { recursive: true, force: true }).catch((error: unknown) => writeFailure(error, `remove ${e.folder}`))
  }
}
