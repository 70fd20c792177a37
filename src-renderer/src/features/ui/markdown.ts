// Markdown the user writes, rendered for preview and for comments; always
// through the shared sanitizer before it reaches the DOM.
import { marked } from 'marked'
import { markdownText } from '../../data/search/text.ts'
import { sanitizeHtml } from '../../lib/sanitize.ts'

/** Markdown as sanitized HTML, ready for `{@html}`. */
export function renderMarkdown(source: string | null | undefined): string {
  if (!source) return ''
  const html = marked.parse(source, { async: false, gfm: true, breaks: true }) as string
  return sanitizeHtml(html)
}

/**
 * A one-line plain-text excerpt of markdown (lists, previews): the words as a
 * person reads them (the search index's own reading, data/search/text.ts), so
 * "**bold**," stays "bold," with no space before the comma.
 */
export function markdownExcerpt(source: string | null | undefined, max = 160): string {
  if (!source) return ''
  const blocks = source
    .replace(/```[\s\S]*?```/g, ' ') // code blocks
    .replace(/^\s*[-*_|: ]{3,}\s*$/gm, ' ') // rules and table separator rows
  const text = markdownText(blocks).replace(/\s+/g, ' ').trim()
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
