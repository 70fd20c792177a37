// Finding docs: in the cache (title and text, always), and on the service
// (its fuzzy title search, when online) for docs this computer has not seen.
import type { Transport } from '../../data/transport.ts'
import type { CachedDoc } from '../../data/types.ts'
import { markdownExcerpt } from '../ui/markdown.ts'

export interface DocHit {
  doc: CachedDoc
  /** Where the text matched, when not in the title. */
  snippet: string
}

/** Docs whose title or Markdown contains every word of the query; title matches first. */
export function searchDocs(docs: readonly CachedDoc[], query: string, ranked?: ReadonlyMap<string, number> | null): DocHit[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  if (words.length === 0) return docs.map((doc) => ({ doc, snippet: markdownExcerpt(withoutTitle(doc.content_markdown), 140) }))
  const hits: { hit: DocHit; score: number }[] = []
  for (const doc of docs) {
    const title = doc.title.toLowerCase()
    const body = doc.content_markdown.toLowerCase()
    const inTitle = words.every((w) => title.includes(w))
    const inBody = !inTitle && words.every((w) => title.includes(w) || body.includes(w))
    const indexScore = ranked?.get(String(doc.id))
    if (!inTitle && !inBody && indexScore === undefined) continue
    hits.push({ hit: { doc, snippet: snippetAround(doc.content_markdown, words) }, score: (inTitle ? 100 : 0) + (inBody ? 10 : 0) + (indexScore ?? 0) })
  }
  return hits.sort((a, b) => b.score - a.score || b.hit.doc.updated_at.localeCompare(a.hit.doc.updated_at)).map((h) => h.hit)
}

/** Server HTML without a leading heading that repeats the doc's title (the reader shows the title above it). */
export function htmlWithoutTitle(html: string, title: string): string {
  const match = /^\s*<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)
  if (!match) return html
  const text = match[1]
    .replace(/<[^>]*>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
  return text.toLowerCase() === title.trim().toLowerCase() ? html.slice(match[0].length) : html
}

/** Markdown without a leading heading that repeats the doc's title. */
export function markdownWithoutTitle(markdown: string, title: string): string {
  const match = /^\s*#\s+([^\n]*)\n?/.exec(markdown)
  return match && match[1].trim().toLowerCase() === title.trim().toLowerCase() ? markdown.slice(match[0].length) : markdown
}

/** The Markdown without its leading heading: docs usually repeat their title there. */
export function withoutTitle(markdown: string): string {
  return markdown.replace(/^\s*#{1,6}\s+[^\n]*\n?/, '')
}

/** A short piece of plain text around the first word found. */
export function snippetAround(markdown: string, words: string[]): string {
  const text = markdownExcerpt(withoutTitle(markdown), 100_000)
  const lower = text.toLowerCase()
  const at = words
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0]
  if (at === undefined || at < 60) return text.slice(0, 140) + (text.length > 140 ? '…' : '')
  const start = text.lastIndexOf(' ', at - 40) + 1
  return `…${text.slice(start, start + 140)}${start + 140 < text.length ? '…' : ''}`
}

export interface RemoteDoc {
  id: string
  title: string
  updated_at?: string
}

/** The service's doc search (v4 `documents.search`: fuzzy title match). */
export async function searchDocsOnService(transport: Transport, query: string, signal?: AbortSignal): Promise<RemoteDoc[]> {
  const answer = await transport.call<unknown>('documents.search', { query: { query, limit: 25, fields: 'id,title,updated_at' }, lane: 'user-read' })
  if (signal?.aborted) return []
  const list = Array.isArray(answer) ? answer : ((answer as { entities?: unknown[] } | null)?.entities ?? [])
  return (list as Partial<RemoteDoc>[])
    .filter((d): d is RemoteDoc => typeof d?.id === 'string')
    .map((d) => ({ id: d.id, title: d.title ?? 'Untitled doc', updated_at: d.updated_at }))
}

/** The service's hits this computer does not have yet. */
export function notInCache(remote: readonly RemoteDoc[], cached: readonly CachedDoc[]): RemoteDoc[] {
  const known = new Set(cached.map((d) => String(d.id)))
  return remote.filter((r) => !known.has(r.id))
}
