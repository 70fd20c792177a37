// Local search: a full-text index (MiniSearch) over epics, docs, files, linked
// files and epic comments as the UI shows them (cache + overlay), and the
// answers to queries. This module is the wiring: the index follows the cache
// (follower.ts), titles are ordered for queries of letters in idle time
// (title-order.ts), and ranking.ts ranks what a query matches. The index lives
// in memory only: a serialised copy is read back in one long task that cannot
// be sliced (MiniSearch.loadJSON), where a rebuild runs in slices, and a copy
// on disk could be stale.
import MiniSearch, { type Query } from 'minisearch'
import type { EntityId } from '../types.ts'
import { documentKey, type SearchDocument, type SearchKind } from './documents.ts'
import { isBodyTerm, isStopWord, normaliseTerm, snippet, terms, tokenize } from './text.ts'
import { ARCHIVED_FACTOR, keepBest, startsTitleWords, titleTier, titleWords, type Ranked } from './ranking.ts'
import { Lru } from './lru.ts'
import { IdleTitleOrder } from './title-order.ts'
import { IndexFollower, type SearchOptions, type SearchStats } from './follower.ts'
import type { OutpostDb } from '../db.ts'

export type { SearchKind } from './documents.ts'
export { SEARCH_MARKS, type SearchOptions, type SearchStats } from './follower.ts'

export interface SearchResult {
  kind: SearchKind
  id: EntityId
  /** The entity's title; for a comment, the title of its epic. */
  title: string
  /** A short piece of the body around the first match (or its start). */
  snippet?: string
  /** Higher first: the whole part is the title tier (3 exact, 2 starts with, 1 every word prefixes a title word, 0 elsewhere), the fraction the relevance. */
  score: number
  archived: boolean
  /** For a comment: its epic. */
  epicId?: EntityId
}

export interface QueryOptions {
  /** Only these kinds (default: all). */
  kinds?: readonly SearchKind[]
  /** At most this many results (default 20). */
  limit?: number
  /** Cut a snippet of each result's body (default true); a caller that shows none saves the work. */
  snippets?: boolean
}

export interface LocalSearch {
  /** Resolves once the whole cache is indexed; until then queries answer from what is indexed so far. */
  ready: Promise<void>
  /** Synchronous: a keystroke's answer, best first. */
  query(text: string, options?: QueryOptions): readonly SearchResult[]
  /**
   * A Svelte-store-shaped counter bumped whenever the index changes (build
   * progress, a sync page, an offline edit): re-run the query on it.
   */
  version: { subscribe(run: (version: number) => void): () => void }
  /** Resolves once every change seen so far is in the index (tests; a UI has no need). */
  settled(): Promise<void>
  stats(): SearchStats
  dispose(): void
}

/**
 * Query terms shorter than this match whole words only in bodies (titles take any prefix): a short prefix
 * matches nearly every body through many of its words, and costs the most.
 */
const BODY_PREFIX_FROM = 4
/** How much more a match in a title weighs than one in a body. */
const TITLE_BOOST = 4
/**
 * After changes, the titles' order is made once the index has been still this
 * long: a sync brings pages a second or two apart, and each drops it again.
 */
const QUIET_MS = 2_000
/**
 * Query words' matches kept between keystrokes, counted in documents: the phrase being typed and the last
 * few. A word that matches most of the index is costly to score again; kept, its next use costs a lookup.
 */
const KEPT_MATCHES = 60_000
/**
 * A query word whose matches are at most this many documents narrows the query's others: they are
 * scored only on those documents (see matchesOfEvery).
 */
const NARROWS_AT = 2_000
/**
 * Answers kept, most recently used last: typing back over a phrase, or asking
 * again what was asked a moment ago (the palette's first letters, a query
 * typed again), costs a lookup.
 */
const KEPT_ANSWERS = 32

/** A document one query word matched: its relevance, and the document's words that matched. */
interface WordMatch {
  score: number
  terms: string[]
}

/**
 * Allowed typos per query term: none for short ones, one, then two (a swap of two letters is two
 * edits). None in a number: one digit off is another number ("epic 2607" is not "Epic 2617"), and
 * the numbers of 50,000 titles within two edits of one are hundreds of terms to score.
 */
function typosFor(term: string): number | false {
  return term.length < 4 || /^\d+$/.test(term) ? false : term.length < 6 ? 1 : 2
}

/** One query word: a prefix or a typo of a title word, a body word. */
function wordQuery(word: string): Query {
  const fuzzy = typosFor(word)
  // Matched alike in both fields: one query, whose fields are scored in one pass, where two queries'
  // answers would be merged document by document after.
  if (word.length >= BODY_PREFIX_FROM) return { queries: [word], fields: ['title', 'body'], prefix: true, fuzzy }
  return {
    combineWith: 'OR',
    queries: [
      { queries: [word], fields: ['title'], prefix: true, fuzzy },
      { queries: [word], fields: ['body'], prefix: false, fuzzy },
    ],
  }
}

/**
 * Query words likeliest to match few documents first: those holding a digit (an id, a number in a
 * title), then the longer.
 */
function byNarrowness(a: string, b: string): number {
  return Number(/\d/.test(b)) - Number(/\d/.test(a)) || b.length - a.length
}

function every<T>(items: Iterable<T>, test: (item: T) => boolean): boolean {
  for (const item of items) if (!test(item)) return false
  return true
}

export function createSearch(db: OutpostDb, options: SearchOptions = {}): LocalSearch {
  const index = new MiniSearch<SearchDocument>({
    idField: 'key',
    fields: ['title', 'body'],
    tokenize,
    // At query time there is no field name: query terms keep their stop words, the title may hold them.
    processTerm: (term, field) => {
      const normal = normaliseTerm(term)
      return normal && (field !== 'body' || isBodyTerm(normal)) ? normal : null
    },
    searchOptions: { boost: { title: TITLE_BOOST } },
    // Vacuumed by the follower, not by itself: MiniSearch's own vacuum walks the index across its pauses, and a
    // document added or discarded during one breaks the walk (an uncaught TypeError in `dive`).
    autoVacuum: false,
  })
  /** What is indexed, by key: the source of titles and snippets. */
  const documents = new Map<string, SearchDocument>()
  /** What recent query words matched, most recently used last (see matchesOf); emptied when the index changes. */
  const wordMatches = new Lru<string, Map<string, WordMatch>>(KEPT_MATCHES, (matches) => matches.size)
  /**
   * The current query's words scored on a few documents only (matchesAmong), by word: the next
   * keystroke's candidates are most often among the same few ("epic 26073" after "epic 2607").
   */
  const narrowMatches = new Map<string, { among: ReadonlyMap<string, unknown>; matches: Map<string, WordMatch> }>()
  /** Recent answers by what was asked (the query's words and the options), most recently used last; emptied when the index changes. */
  const answers = new Lru<string, readonly SearchResult[]>(KEPT_ANSWERS)
  let version = 0
  const listeners = new Set<(version: number) => void>()

  // Idle time waits while the follower works on the index.
  const titleOrder = new IdleTitleOrder(documents, () => follower.isDisposed || follower.busy)

  /** Drops what was worked out from the index: it changed. */
  function forget(): void {
    wordMatches.clear()
    narrowMatches.clear()
    titleOrder.drop()
    answers.clear()
  }

  const follower = new IndexFollower(db, index, documents, options, {
    wordsChanged: forget,
    // Answers and the titles' order hold each document as it was: they go when what a result shows of one changed.
    shownChanged() {
      answers.clear()
      titleOrder.drop()
    },
    indexed() {
      version++
      for (const run of listeners) run(version)
    },
    caughtUp: (after) => titleOrder.prepareWhenIdle(after === 'build' ? 0 : QUIET_MS),
  })

  function query(text: string, { kinds, limit = 20, snippets = true }: QueryOptions = {}): readonly SearchResult[] {
    const words = terms(text)
    if (words.length === 0 || limit <= 0 || follower.isDisposed) return []
    const asked = `${limit} ${snippets} ${kinds?.join(',') ?? '*'} ${words.join(' ')}`
    const answer = answers.get(asked) ?? answerOf(words, kinds, limit, snippets)
    answers.set(asked, answer)
    return answer
  }

  function answerOf(words: string[], kinds: readonly SearchKind[] | undefined, limit: number, snippets: boolean): SearchResult[] {
    // Stop words are not in bodies: among other words they would only narrow the results to titles
    // holding them. They still count for the title tier ("the design" ranks "The design system" first).
    const searched = words.some((word) => !isStopWord(word)) ? words.filter((word) => !isStopWord(word)) : words
    // A single letter starts a word of a third of all titles: asking the index would score thousands of
    // documents. It is checked against the title of each candidate instead.
    const letters = titleWords(searched.filter((word) => word.length === 1))
    const indexed = [...new Set(searched.filter((word) => word.length > 1))]
    const wanted = kinds ? new Set(kinds) : null
    const phrase = words.join(' ')
    const allWords = titleWords(words)
    // Thousands of documents may be considered a keystroke: nothing is made for one until it is among the best.
    const best: Ranked[] = []
    const consider = (key: string, document: SearchDocument | undefined, relevance: number) => {
      if (!document || (wanted && !wanted.has(document.kind))) return
      if (letters.words.length > 0 && !startsTitleWords(document.titleTerms, letters)) return
      relevance *= document.archived ? ARCHIVED_FACTOR : 1
      keepBest(best, limit, titleTier(document.titleTerms, phrase, allWords) + relevance / (1 + relevance), key, document)
    }
    let wordMaps: Map<string, WordMatch>[] = []
    if (indexed.length === 0) {
      // Letters only: every title, shorter (more specific) ones first. The titles are walked in that
      // order and the walk ends where none left could rank among the best: a title that is the query
      // (the one tier above starting with it) is looked up instead.
      const titles = titleOrder.get()
      for (const { key, document, relevance } of titles.exact.get(phrase) ?? []) consider(key, document, relevance)
      for (const { key, document, relevance, most } of titles.order) {
        if (best.length === limit && best[limit - 1].rank >= 2 + most / (1 + most)) break
        if (document.titleTerms !== phrase) consider(key, document, relevance)
      }
    } else {
      // Every word must match (AND). What MiniSearch's AND would score: the sum of each word's
      // relevance, times the number of distinct words.
      wordMaps = matchesOfEvery(indexed)
      const [fewest, ...others] = [...wordMaps].sort((a, b) => a.size - b.size)
      for (const [key, first] of fewest) {
        let relevance = first.score
        for (const other of others) {
          const match = other.get(key)
          if (!match) {
            relevance = -1
            break
          }
          relevance += match.score
        }
        if (relevance >= 0) consider(key, documents.get(key), relevance * indexed.length)
      }
    }
    return best.map(({ rank, key, document }) => {
      // The document's words that matched: where the snippet is cut.
      const matched = wordMaps.length ? wordMaps.flatMap((matches) => matches.get(key)?.terms ?? []) : letters.words
      return {
        kind: document.kind,
        id: document.id,
        title: document.kind === 'comment' ? commentTitle(document) : document.title,
        ...(snippets ? { snippet: snippet(document.body, matched) } : {}),
        score: rank,
        archived: document.archived,
        ...(document.epicId === undefined ? {} : { epicId: document.epicId }),
      }
    })
  }

  /**
   * The documents one query word matches (a prefix or a typo of a title word,
   * a body word), kept for the next keystrokes: typing "design sys" after
   * "design sy" asks the index only about "sys". A common word can match
   * most of the index, and scoring it is most of a query's cost.
   */
  function matchesOf(word: string): Map<string, WordMatch> {
    const kept = wordMatches.get(word)
    if (kept) return kept
    const found = new Map<string, WordMatch>()
    const hits = index.search(wordQuery(word))
    for (const hit of hits) found.set(hit.id as string, { score: hit.score, terms: hit.terms })
    // The least recently used go first; the word just asked for stays, however many it matched.
    wordMatches.set(word, found)
    return found
  }

  /**
   * Each word's matches, for a query that needs every word (AND). The kept ones are used as they
   * are; the others are asked for one by one, the likeliest narrowest first. Once a word matches
   * few documents (NARROWS_AT), the words left are scored on those documents only, with the same
   * scores: "seeded epic 3495" scores "seeded" and "epic" on the few dozen documents "3495"
   * matches, not on every epic. Only whole matches are kept for the next keystrokes.
   */
  function matchesOfEvery(words: readonly string[]): Map<string, WordMatch>[] {
    const found = new Map<string, Map<string, WordMatch>>()
    let narrowest: Map<string, WordMatch> | undefined
    const narrower = (matches: Map<string, WordMatch>) => {
      if (!narrowest || matches.size < narrowest.size) narrowest = matches
    }
    for (const word of words) {
      const kept = wordMatches.get(word)
      if (!kept) continue
      found.set(word, kept)
      narrower(kept)
    }
    for (const word of narrowMatches.keys()) if (!words.includes(word)) narrowMatches.delete(word)
    for (const word of words.filter((word) => !found.has(word)).sort(byNarrowness)) {
      if (narrowest && narrowest.size <= NARROWS_AT) {
        found.set(word, matchesAmong(word, narrowest))
      } else {
        const matches = matchesOf(word)
        found.set(word, matches)
        narrower(matches)
      }
    }
    return words.map((word) => found.get(word)!)
  }

  /**
   * The documents among `candidates` one query word matches, scored as matchesOf would (a falsy
   * boost leaves a document out before it is scored). Kept while the query narrows: a superset of
   * the candidates' matches serves an intersection as well.
   */
  function matchesAmong(word: string, candidates: ReadonlyMap<string, unknown>): Map<string, WordMatch> {
    const kept = narrowMatches.get(word)
    if (kept && every(candidates.keys(), (key) => kept.among.has(key))) return kept.matches
    const found = new Map<string, WordMatch>()
    const hits = index.search(wordQuery(word), { boostDocument: (key) => (candidates.has(key as string) ? 1 : 0) })
    for (const hit of hits) found.set(hit.id as string, { score: hit.score, terms: hit.terms })
    narrowMatches.set(word, { among: candidates, matches: found })
    return found
  }

  function commentTitle(comment: SearchDocument): string {
    const epic = comment.epicId === undefined ? undefined : documents.get(documentKey('epic', comment.epicId))
    return epic?.title ?? ''
  }

  return {
    ready: follower.ready,
    query,
    version: {
      subscribe(run) {
        run(version)
        listeners.add(run)
        return () => listeners.delete(run)
      },
    },
    settled: () => follower.settled(),
    stats: () => follower.stats(),
    dispose() {
      follower.dispose()
      titleOrder.dispose()
      listeners.clear()
      documents.clear()
      forget()
    },
  }
}
