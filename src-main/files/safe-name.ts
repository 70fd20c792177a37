// A file name from elsewhere (the service, a dropped file) made safe as the
// last part of a path in one of our folders.
import { basename } from 'node:path'

/** A file name that is safe as the last part of a path on every OS. */
export function safeFileName(name: string): string {
  const cleaned = Array.from(basename(name.replace(/\\/g, '/')), (c) => (c.charCodeAt(0) < 0x20 || '<>:"/\\|?*'.includes(c) ? '_' : c))
    .join('')
    .replace(/^\.+/, '_')
    .slice(0, 200)
  return cleaned || 'file'
}
