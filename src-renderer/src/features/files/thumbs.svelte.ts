// Image thumbnails under the CSP (img-src 'self' data: blob:): never the
// service's URLs, only bytes this computer has. Those are the images dropped
// in this session (kept as blob: URLs) and, where the shell can read the file
// cache (Workspace.files.read), downloaded images.
import { SvelteMap } from 'svelte/reactivity'
import type { CachedFileContent, EntityId } from '../../data/types.ts'
import type { Workspace } from '../context.ts'
import { previews } from './uploads.svelte.ts'

/** blob: URLs read from the file cache, by file id. */
const fromCache = new SvelteMap<string, string>()
/** Reads under way (not reactive: nothing shows them). */
const loading: Record<string, true> = {}

/** Largest image read into memory for a thumbnail. */
const MAX_BYTES = 15_000_000

/** The thumbnail of a file, if this computer has its bytes; `localIds` maps a service id back to the local id of its upload. */
export function thumbnailOf(id: EntityId, localIds: ReadonlyMap<string, string>): string | undefined {
  const key = String(id)
  return previews.get(key) ?? previews.get(localIds.get(key) ?? '') ?? fromCache.get(key)
}

/** Reads a downloaded image's bytes for its thumbnail (once). */
export function loadThumbnail(ws: Workspace, content: CachedFileContent): void {
  const key = String(content.id)
  const read = ws.files?.read
  if (!read || fromCache.has(key) || loading[key] || content.size > MAX_BYTES) return
  loading[key] = true
  read(content)
    .then((blob) => fromCache.set(key, URL.createObjectURL(blob)))
    .catch(() => undefined)
    .finally(() => delete loading[key])
}
