// Markdown the user writes, rendered for preview and for comments; always
// through the shared sanitizer before it reaches the DOM.
import { marked } from 'marked'
import { sanitizeHtml } from '../../lib/sanitize.ts'

/** Markdown as sanitized HTML, ready for `{@html}`. */
export function renderMarkdown(source: string | null | undefined): string {
  if (!source) return ''
  const html = marked.parse(source, { async: false, gfm: true, breaks: true }) as string
  return sanitizeHtml(html)
}

/** A one-line plain-text excerpt of markdown (lists, previews). */
export function markdownExcerpt(source: string | null | undefined, max = 160): string {
  if (!source) return ''
  const text = source
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[#>*_`~|-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
