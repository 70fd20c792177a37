// A list answer cut on its way (the link dropped mid-answer) still holds the
// elements that came whole. The v3 list of every epic is one answer of tens of
// megabytes, which no published operation gives in part from a given place;
// its paginated twin does, by page number. Kept, the elements that came let a
// sync that resumes ask only for the pages after them.

const OPEN_ARRAY = 0x5b // [
const OPEN_OBJECT = 0x7b // {
const CLOSE_ARRAY = 0x5d // ]
const CLOSE_OBJECT = 0x7d // }
const QUOTE = 0x22 // "
const BACKSLASH = 0x5c // \
const COMMA = 0x2c // ,

/**
 * Of the text of a JSON array cut short, the elements before the last separator at the array's own level (each
 * whole; the one after it may not be). Undefined when the text is not the start of an array, is the whole array,
 * or holds no element whole yet.
 */
export function elementsBefore(text: string): unknown[] | undefined {
  const start = text.search(/\S/)
  if (start < 0 || text.charCodeAt(start) !== OPEN_ARRAY) return undefined
  let depth = 0
  let inString = false
  let lastSeparator = -1
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--
      // The array closed: the answer was whole after all, and is not this function's to read.
      if (depth === 0) return undefined
    } else if (c === COMMA && depth === 1) lastSeparator = i
  }
  if (lastSeparator < 0) return undefined
  try {
    return JSON.parse(`${text.slice(start, lastSeparator)}]`) as unknown[]
  } catch {
    // Not JSON up to there (a broken proxy's page): nothing is kept.
    return undefined
  }
}
