// UploadedFile and LinkedFile as v3 renders them: urls of the served bytes,
// and the @mentions found in descriptions.
import type { LinkedFileV3, UploadedFileV3 } from '../../../src-shared/api/v3/files.ts'
import type { ServiceContext } from '../../context.ts'
import type { MemberRecord } from '../members/member.ts'
import type { FileRecord, LinkedFileRecord } from './store.ts'

/** Image types the service offers a thumbnail for (the same bytes, see README). */
const THUMBNAIL_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/**
 * A file name made safe as one URL path segment: no separators, no dot-only
 * names that a URL parser would resolve, only characters that need no escaping.
 */
export function urlName(filename: string): string {
  const base = filename.split(/[/\\]/).pop() ?? ''
  const safe = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 200)
  return safe.length > 0 ? safe : 'file'
}

export const fileUrl = (origin: string, f: FileRecord) => `${origin}/media/files/${f.id}/${urlName(f.filename)}`
export const hasThumbnail = (f: FileRecord) => THUMBNAIL_TYPES.has(f.content_type.split(';')[0].trim().toLowerCase())
export const thumbnailUrl = (origin: string, f: FileRecord) => (hasThumbnail(f) ? `${origin}/media/thumbnails/${f.id}/${urlName(f.filename)}` : null)

/** Who an @mention_name in a description points at. Built once per request. */
export class Mentions {
  private readonly members = new Map<string, string>()
  private readonly groups = new Map<string, string>()

  constructor(ctx: ServiceContext) {
    for (const m of ctx.col<MemberRecord>('member').all()) this.members.set(m.profile.mention_name.toLowerCase(), m.id)
    for (const g of ctx.col<{ id: string; created_at: string; updated_at: string; mention_name?: unknown }>('group').all()) {
      if (typeof g.mention_name === 'string') this.groups.set(g.mention_name.toLowerCase(), g.id)
    }
  }

  of(text: string | null): { member_mention_ids: string[]; group_mention_ids: string[]; mention_ids: string[] } {
    const members = new Set<string>()
    const groups = new Set<string>()
    for (const match of (text ?? '').matchAll(/(^|[^\w@])@([A-Za-z0-9][A-Za-z0-9._-]*)/g)) {
      const name = match[2].replace(/[.]+$/, '').toLowerCase()
      const member = this.members.get(name)
      const group = this.groups.get(name)
      if (member) members.add(member)
      else if (group) groups.add(group)
    }
    // mention_ids is the deprecated name of member_mention_ids.
    return { member_mention_ids: [...members], group_mention_ids: [...groups], mention_ids: [...members] }
  }
}

export function uploadedFileV3(origin: string, mentions: Mentions, f: FileRecord): UploadedFileV3 {
  return {
    content_type: f.content_type,
    created_at: f.created_at,
    description: f.description,
    entity_type: 'file',
    external_id: f.external_id,
    filename: f.filename,
    ...mentions.of(f.description),
    id: f.id,
    name: f.name,
    size: f.size,
    story_ids: f.story_ids,
    thumbnail_url: thumbnailUrl(origin, f),
    updated_at: f.updated_at,
    uploader_id: f.uploader_id,
    url: fileUrl(origin, f),
  }
}

export function linkedFileV3(mentions: Mentions, f: LinkedFileRecord): LinkedFileV3 {
  return {
    content_type: f.content_type,
    created_at: f.created_at,
    description: f.description,
    entity_type: 'linked-file',
    ...mentions.of(f.description),
    id: f.id,
    name: f.name,
    size: f.size,
    story_ids: f.story_ids,
    thumbnail_url: f.thumbnail_url,
    type: f.type,
    updated_at: f.updated_at,
    uploader_id: f.uploader_id,
    url: f.url,
  }
}
