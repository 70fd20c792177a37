// How text becomes search terms, and how a result gets its snippet. The same
// normalisation runs when indexing and when querying, so "Café" finds "cafe".

/** Letters and digits make words; everything else (markdown marks, punctuation, symbols) separates them. */
const SEPARATOR = /[^\p{L}\p{N}]+/u
/** Longer "words" are hashes, base64 or URLs run together: not worth a place in the index. */
const MAX_TERM_LENGTH = 40
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/
const COMBINING_MARKS = /\p{M}+/gu

export function tokenize(text: string): string[] {
  return text.split(SEPARATOR)
}

/** Lower case without diacritics; null drops the term. */
export function normaliseTerm(term: string): string | null {
  if (term.length === 0 || term.length > MAX_TERM_LENGTH) return null
  const lower = term.toLowerCase()
  return NON_ASCII.test(lower) ? lower.normalize('NFD').replace(COMBINING_MARKS, '') : lower
}

/**
 * Words too common to tell one body from another (and single letters, mostly
 * what apostrophes leave behind). Bodies are indexed without them: they make
 * the index bigger and a keystroke slower and find nothing useful. Titles keep
 * every word, so "To do" is still found.
 */
const STOP_WORDS = new Set(
  `a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was
  will with i you he she we me my your our his her its them have has had do does did been were from can would could should
  so what which who when where how all any some about up out than just also very`.split(/\s+/),
)

export function isStopWord(term: string): boolean {
  return STOP_WORDS.has(term)
}

/** A body term worth indexing: not a stop word, not a lone letter. */
export function isBodyTerm(term: string): boolean {
  return term.length > 1 && !STOP_WORDS.has(term)
}

/** The terms of a text as the index sees them, in order. */
export function terms(text: string): string[] {
  const out: string[] = []
  for (const token of tokenize(text)) {
    const term = normaliseTerm(token)
    if (term) out.push(term)
  }
  return out
}

// A link or image `[text](destination "title")` as CommonMark reads it (marked
// would too, at about ten times the cost of these patterns over a 5 KB doc). The
// destination is `<anything but angle brackets>`, or a run without spaces in
// which a parenthesis is escaped or balanced (two levels deep:
// `https://en.wikipedia.org/wiki/Foo_(bar)`); the title is quoted or in
// parentheses. The text may hold one level of brackets.
const ESCAPED = String.raw`\\.`
const BALANCED = String.raw`\((?:${ESCAPED}|[^\s()\\]|\((?:${ESCAPED}|[^\s()\\])*\))*\)`
const DESTINATION = String.raw`<(?:${ESCAPED}|[^<>\n\\])*>|(?:${ESCAPED}|[^\s()\\]|${BALANCED})*`
const TITLE = String.raw`"(?:${ESCAPED}|[^"\\])*"|'(?:${ESCAPED}|[^'\\])*'|\((?:${ESCAPED}|[^()\\])*\)`
const LINK_TEXT = String.raw`\[((?:${ESCAPED}|[^[\]\\]|\[(?:${ESCAPED}|[^[\]\\])*\])*)\]`
const TARGET = String.raw`\(\s*(?:${DESTINATION})(?:\s+(?:${TITLE}))?\s*\)`
const IMAGE = new RegExp(`!${LINK_TEXT}${TARGET}`, 'g')
const LINK = new RegExp(`${LINK_TEXT}${TARGET}`, 'g')

/**
 * Markdown as a person reads it: link targets, image addresses, code fences,
 * heading marks and emphasis go, the words stay. Good enough for indexing and
 * snippets; the doc view renders the real thing.
 */
export function markdownText(markdown: string): string {
  return (
    markdown
      .replace(/```[^\n]*\n?/g, ' ')
      // Images first, so a linked image `[![alt](img.png)](url)` leaves `alt`.
      .replace(IMAGE, '$1')
      .replace(LINK, '$1')
      .replace(/<(https?:[^>\s]*)>/g, '$1')
      .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
      .replace(/[*_~`|]+/g, '')
  )
}

const SNIPPET_LENGTH = 160
const SNIPPET_LEAD = 50

/**
 * About SNIPPET_LENGTH characters of `body` around the first of `words` it
 * contains (case-insensitive), on word boundaries, whitespace collapsed; the
 * start of the body when none is found; undefined for an empty body.
 */
export function snippet(body: string, words: readonly string[]): string | undefined {
  if (!body) return undefined
  const lower = body.toLowerCase()
  let at = -1
  for (const word of words) {
    const i = word ? indexOfWord(lower, word) : -1
    if (i >= 0 && (at < 0 || i < at)) at = i
  }
  let start = at <= SNIPPET_LEAD ? 0 : at - SNIPPET_LEAD
  if (start > 0) {
    const space = body.lastIndexOf(' ', start)
    start = space >= 0 && start - space < 20 ? space + 1 : start
  }
  let end = Math.min(body.length, start + SNIPPET_LENGTH)
  if (end < body.length) {
    const space = body.indexOf(' ', end)
    end = space >= 0 && space - end < 20 ? space : end
  }
  const text = body.slice(start, end).replace(/\s+/g, ' ').trim()
  return (start > 0 ? '…' : '') + text + (end < body.length ? '…' : '')
}

/** First place `word` starts a word of `lower`; -1 if nowhere. */
function indexOfWord(lower: string, word: string): number {
  let i = lower.indexOf(word)
  while (i > 0 && /[\p{L}\p{N}]/u.test(lower[i - 1])) i = lower.indexOf(word, i + 1)
  return i
}
