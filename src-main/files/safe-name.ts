// A file name from elsewhere (the service, a dropped file) made safe as the
// last part of a path in one of our folders: no separator or dot segment that
// could lead out of the folder, no character or device name an OS refuses or
// treats specially, and short enough for every file system once our own
// prefixes (`<uuid>-` in staging, `.<name>.<hex>.part` while downloading) are added.
import { basename } from 'node:path'

/** Longest safe name, in UTF-8 bytes: ext4 and NTFS take 255 per name, and our prefixes and suffixes take up to 45 more. */
export const SAFE_NAME_MAX_BYTES = 200

/** Names Windows keeps for devices whatever the extension (`CON`, `nul.txt`, `COM1.log`): opening one opens the device. */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|conin\$|conout\$|clock\$|com[0-9¹²³]|lpt[0-9¹²³])( *\..*)?$/i

/** A file name that is safe as the last part of a path on every OS. */
export function safeFileName(name: string): string {
  const cleaned = Array.from(basename(name.replace(/\\/g, '/')), (c) => (c.charCodeAt(0) < 0x20 || c === '\u007f' || '<>:"/\\|?*'.includes(c) ? '_' : c))
    .join('')
    // A leading dot hides a file (or, alone or doubled, names a folder); Windows drops trailing dots and spaces.
    .replace(/^\.+/, '_')
    .replace(/[. ]+$/, '_')
  const safe = WINDOWS_DEVICE.test(cleaned) ? `_${cleaned}` : cleaned
  return cutToBytes(safe, SAFE_NAME_MAX_BYTES) || 'file'
}

/** Cuts a name to `max` UTF-8 bytes on a character boundary, keeping a short extension. */
function cutToBytes(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name
  const dot = name.lastIndexOf('.')
  const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : ''
  let stem = ''
  let bytes = Buffer.byteLength(ext)
  for (const c of name.slice(0, name.length - ext.length)) {
    bytes += Buffer.byteLength(c)
    if (bytes > max) break
    stem += c
  }
  return stem + ext
}
