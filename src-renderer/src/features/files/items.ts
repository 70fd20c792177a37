// Uploaded files and linked files (a URL to a file elsewhere) as one list.
import type { CachedFile, CachedLinkedFile, EntityId } from '../../data/types.ts'

interface Common {
  /** Unique across both kinds, and the route's id: `12` for a file, `link:34` for a linked file. */
  key: string
  id: EntityId
  name: string
  description: string | null
  contentType: string | null
  size: number | null
  createdAt: string
  uploaderId: string | null
}

export type FileItem = (Common & { kind: 'file'; file: CachedFile }) | (Common & { kind: 'link'; link: CachedLinkedFile })

export type FileFilter = 'all' | 'files' | 'links'

export const LINK_PREFIX = 'link:'

export function fileItem(file: CachedFile, knownSize?: number): FileItem {
  return {
    kind: 'file',
    key: String(file.id),
    id: file.id,
    name: file.name,
    description: file.description,
    contentType: file.content_type,
    size: file.size || knownSize || 0,
    createdAt: file.created_at,
    uploaderId: file.uploader_id,
    file,
  }
}

export function linkItem(link: CachedLinkedFile): FileItem {
  return {
    kind: 'link',
    key: `${LINK_PREFIX}${link.id}`,
    id: link.id,
    name: link.name,
    description: link.description,
    contentType: link.content_type,
    size: link.size,
    createdAt: link.created_at,
    uploaderId: link.uploader_id,
    link,
  }
}

/** Newest first; the query matches names and descriptions. */
export function itemsOf(
  files: readonly CachedFile[],
  links: readonly CachedLinkedFile[],
  filter: FileFilter,
  query: string,
  sizes?: ReadonlyMap<string, number>,
): FileItem[] {
  const q = query.trim().toLowerCase()
  const all = [...(filter === 'links' ? [] : files.map((f) => fileItem(f, sizes?.get(String(f.id))))), ...(filter === 'files' ? [] : links.map(linkItem))]
  const shown = q
    ? all.filter(
        (i) =>
          i.name.toLowerCase().includes(q) || (i.description ?? '').toLowerCase().includes(q) || (i.kind === 'link' && i.link.url.toLowerCase().includes(q)),
      )
    : all
  return shown.sort((a, b) => b.createdAt.localeCompare(a.createdAt))
}

/** Where a linked file points, shortened for display: "docs.google.com/…/d/1x". */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url)
    const path = u.pathname.length > 24 ? `${u.pathname.slice(0, 10)}…${u.pathname.slice(-10)}` : u.pathname
    return `${u.host}${path === '/' ? '' : path}`
  } catch {
    return url
  }
}

/** Service id → local id, for uploads of ours that the service has confirmed (their dropped-image thumbnails follow them). */
export async function confirmedLocalIds(resolve: (localId: string) => Promise<EntityId>, localIds: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const pairs = await Promise.all(localIds.map(async (local) => [String(await resolve(local)), local] as const))
  return new Map(pairs.filter(([server, local]) => server !== local))
}
