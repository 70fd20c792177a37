// The titles in the order a query of letters ranks them (shorter, more
// specific titles first; archived ones weigh less), and the titles by their
// words: made in runs (idle time weighs a run at a time) merged at the end.
import { ARCHIVED_FACTOR } from './ranking.ts'
import type { SearchDocument } from './documents.ts'

/** What a query of letters only gives a title before the tiers: the shorter, the more. */
function lettersRelevance(document: SearchDocument): number {
  return 8 / (8 + document.titleTerms.length)
}

/** A title as a query of letters weighs it: its relevance, and the most it can be (archived ones count less). */
export interface TitleWeight {
  key: string
  document: SearchDocument
  relevance: number
  most: number
}

/** Every title, best ranked by a query of letters first (as the index holds them among equals), and the titles by their words. */
export interface TitleOrder {
  order: TitleWeight[]
  exact: Map<string, TitleWeight[]>
}

/** Titles being weighed: runs each in order, the titles by their words so far, and the documents left. */
export interface Weighing {
  runs: TitleWeight[][]
  exact: Map<string, TitleWeight[]>
  rest: Iterator<[string, SearchDocument]>
}

/**
 * Weighs the next `count` documents' titles (all that are left, without it) into a run of their own,
 * sorted; false when fewer were left, so none are now.
 */
export function weighRun(weighing: Weighing, count = Infinity): boolean {
  const run: TitleWeight[] = []
  while (run.length < count) {
    const next = weighing.rest.next()
    if (next.done) break
    const [key, document] = next.value
    const relevance = lettersRelevance(document)
    const weight = { key, document, relevance, most: relevance * (document.archived ? ARCHIVED_FACTOR : 1) }
    run.push(weight)
    const same = weighing.exact.get(document.titleTerms)
    if (same) same.push(weight)
    else weighing.exact.set(document.titleTerms, [weight])
  }
  // A stable sort: equals keep the index's order, the order the full walk met them in.
  if (run.length > 0) weighing.runs.push(run.sort(byMost))
  return run.length === count
}

const byMost = (a: TitleWeight, b: TitleWeight) => b.most - a.most

/**
 * Sorted runs merged into one order; among equals the earlier run's first, so the order is that of a
 * stable sort of the runs one after another.
 */
export function mergeRuns(runs: readonly TitleWeight[][]): TitleWeight[] {
  if (runs.length <= 1) return runs[0] ?? []
  const at = runs.map(() => 0)
  const order: TitleWeight[] = []
  for (;;) {
    let best = -1
    for (let r = 0; r < runs.length; r++) {
      if (at[r] < runs[r].length && (best < 0 || runs[r][at[r]].most > runs[best][at[best]].most)) best = r
    }
    if (best < 0) return order
    order.push(runs[best][at[best]++])
  }
}

/** Every document's title, none weighed yet. */
export const weighingOf = (documents: Map<string, SearchDocument>): Weighing => ({ runs: [], exact: new Map(), rest: documents.entries() })
