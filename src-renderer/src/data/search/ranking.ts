// How a query ranks what matches it, apart from the index: the title tiers
// (the title is the query, starts with it, or each query word starts one of
// its words), archived entities weighing less, and the best few kept as they
// are found.
import type { SearchDocument } from './documents.ts'

/** An archived entity's relevance is this share of a live one's. */
export const ARCHIVED_FACTOR = 0.5

export interface Ranked {
  rank: number
  key: string
  document: SearchDocument
}

/** Inserts a document into `best` (sorted by rank, highest first) if it is among the best `limit`. */
export function keepBest(best: Ranked[], limit: number, rank: number, key: string, document: SearchDocument): void {
  if (best.length === limit && rank <= best[limit - 1].rank) return
  let at = best.length
  while (at > 0 && best[at - 1].rank < rank) at--
  best.splice(at, 0, { rank, key, document })
  if (best.length > limit) best.pop()
}

/** Query words as what starts a title word: the word itself (the title's first) or after a space (any other). */
export interface TitleWords {
  words: readonly string[]
  spaced: readonly string[]
}

export function titleWords(words: readonly string[]): TitleWords {
  return { words, spaced: words.map((word) => ' ' + word) }
}

/** True if each word starts some word of the title (its terms, space-separated). */
export function startsTitleWords(titleTerms: string, { words, spaced }: TitleWords): boolean {
  for (let i = 0; i < words.length; i++) if (!titleTerms.startsWith(words[i]) && !titleTerms.includes(spaced[i])) return false
  return true
}

/** 3: the title is the query; 2: it starts with it; 1: every query word starts a title word; 0: none of these. */
export function titleTier(titleTerms: string, phrase: string, words: TitleWords): number {
  if (titleTerms === phrase) return 3
  if (titleTerms.startsWith(phrase)) return 2
  return startsTitleWords(titleTerms, words) ? 1 : 0
}
