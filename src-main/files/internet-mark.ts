// The OS's "came from the internet" mark on a file Outpost writes from the
// service (a download into the file cache, a file's content copied into an
// export), written as browsers write it. Without it, a file Node writes looks
// made on this computer: SmartScreen, Office's Protected View and macro
// blocking, and Gatekeeper would never step in when the file is opened.
//
// - Windows: the NTFS stream `<file>:Zone.Identifier`, zone 3 (the internet),
//   with the service's address of the file (HostUrl) and of the workspace
//   (ReferrerUrl), credentials taken out as Chromium does.
// - macOS: the `com.apple.quarantine` extended attribute,
//   `0081;<seconds since 1970, hex>;Outpost;<UUID>`. Node has no xattr API, so
//   macOS's own `xattr` tool writes it (no native module to build and ship).
// - Linux and other systems: nothing. Their desktops have no such mark that
//   the OS or its apps act on; what keeps "Open" from running a file there is
//   the list of types it opens at all (open-directly.ts).
//
// The decision (which platform, what text) is a plain function of the platform
// and the source; the writers are handed in, so both are tested anywhere.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'

/** Where a file's bytes came from. */
export interface MarkSource {
  /** The service's address of the file's content. */
  hostUrl: string
  /** The workspace's service, which the file was fetched for. */
  referrerUrl?: string
}

export const ZONE_IDENTIFIER_STREAM = 'Zone.Identifier'
export const QUARANTINE_ATTRIBUTE = 'com.apple.quarantine'
/** Zone 3 of Windows' security zones: the internet. */
const INTERNET_ZONE = 3
/**
 * The quarantine flags browsers write on a download: 0x0001, the file came from a download; 0x0080, it
 * has not been approved by the person yet (Gatekeeper asks on first open).
 */
const QUARANTINE_FLAGS = '0081'

export type InternetMark =
  | { kind: 'zone-identifier'; stream: typeof ZONE_IDENTIFIER_STREAM; text: string }
  | { kind: 'quarantine'; attribute: typeof QUARANTINE_ATTRIBUTE; value: string }
  | { kind: 'none'; why: string }

export interface MarkWriters {
  /** Writes `text` as the named stream of the file (NTFS: `<path>:<stream>`). */
  writeStream(path: string, stream: string, text: string): Promise<void>
  /** Sets an extended attribute of the file. */
  setAttribute(path: string, name: string, value: string): Promise<void>
}

/** An http(s) address without its user name and password (as Chromium's SanitizeUrlForQuarantine); undefined when it is no URL. */
function sanitized(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    const parsed = new URL(url)
    parsed.username = ''
    parsed.password = ''
    // A URL's serialization has no line breaks; the check keeps the stream's lines its own whatever comes.
    return /[\r\n\0]/.test(parsed.href) ? undefined : parsed.href
  } catch {
    return undefined
  }
}

/** The mark a file from `source` gets on `platform`. */
export function internetMark(platform: NodeJS.Platform, source: MarkSource, made: { now: number; uuid: string }): InternetMark {
  if (platform === 'win32') {
    const referrer = sanitized(source.referrerUrl)
    const host = sanitized(source.hostUrl)
    const lines = ['[ZoneTransfer]', `ZoneId=${INTERNET_ZONE}`, ...(referrer ? [`ReferrerUrl=${referrer}`] : []), ...(host ? [`HostUrl=${host}`] : [])]
    return { kind: 'zone-identifier', stream: ZONE_IDENTIFIER_STREAM, text: `${lines.join('\r\n')}\r\n` }
  }
  if (platform === 'darwin') {
    const seconds = Math.floor(made.now / 1000).toString(16)
    return { kind: 'quarantine', attribute: QUARANTINE_ATTRIBUTE, value: `${QUARANTINE_FLAGS};${seconds};Outpost;${made.uuid.toUpperCase()}` }
  }
  return { kind: 'none', why: `${platform} has no "came from the internet" mark that the OS or its apps act on.` }
}

export interface MarkOptions {
  platform: NodeJS.Platform
  writers: MarkWriters
  now?: () => number
  uuid?: () => string
}

/** Writes the mark of `platform` on the file at `path` (nothing where there is none); answers what it wrote. */
export async function markFromInternet(path: string, source: MarkSource, options: MarkOptions): Promise<InternetMark> {
  const mark = internetMark(options.platform, source, { now: (options.now ?? Date.now)(), uuid: (options.uuid ?? randomUUID)() })
  if (mark.kind === 'zone-identifier') await options.writers.writeStream(path, mark.stream, mark.text)
  else if (mark.kind === 'quarantine') await options.writers.setAttribute(path, mark.attribute, mark.value)
  return mark
}

/** The OS's own writers: Node writes an NTFS stream by its path, and macOS's xattr tool sets an attribute. */
export const systemWriters: MarkWriters = {
  writeStream: (path, stream, text) => writeFile(`${path}:${stream}`, text, 'utf8'),
  setAttribute: async (path, name, value) => {
    await promisify(execFile)('/usr/bin/xattr', ['-w', name, value, path], { timeout: 10_000 })
  },
}
