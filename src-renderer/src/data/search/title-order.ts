// The titles in the order a query of letters ranks them (shorter, more
// specific titles first; archived ones weigh less), and the titles by their
// words: made in runs (idle time weighs a run at a time) merged at the end,
// and kept until the index changes.
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

/** Work for idle time is done by then even if the window never idles. */
const IDLE_TIMEOUT_MS = 5_000
/** Titles weighed and sorted between two looks at the idle period's time left: about a millisecond's work. */
const WEIGH_SLICE = 1_000
/** An idle period with less left than this is given back. */
const IDLE_SLICE_MS = 2
/**
 * Slices an idle callback weighs at most. An idle period can last 50 ms, and a callback is a task all the
 * same: a key pressed meanwhile waits for it.
 */
const IDLE_SLICES = 4

/** The titles' order of an index's documents: made in idle time when it can be, else when a query first needs it. */
export class IdleTitleOrder {
  /** The order made, until the index changes. */
  #order: TitleOrder | null = null
  /** The titles weighed so far in idle time, and the documents left to weigh. */
  #weighing: Weighing | null = null
  /** The wait before asking for idle time. */
  #preparing: ReturnType<typeof setTimeout> | undefined

  constructor(
    /** What is indexed, by key. */
    private readonly documents: Map<string, SearchDocument>,
    /** True while the index is being built or changed (or is gone): idle time then waits. */
    private readonly busy: () => boolean,
  ) {}

  /**
   * Orders the titles while the window is idle, `afterMs` from now unless asked again before: the first
   * letter typed then does not pay for the sort of every title.
   */
  prepareWhenIdle(afterMs: number): void {
    if (typeof requestIdleCallback !== 'function' || this.#order) return
    clearTimeout(this.#preparing)
    this.#preparing = setTimeout(() => requestIdleCallback(this.#weighInIdle, { timeout: IDLE_TIMEOUT_MS }), afterMs)
  }

  /**
   * Every title, best ranked by a query of letters first, and the titles by their words: made now from
   * what idle time has not weighed yet (all of it, if none has), and kept until the index changes.
   */
  get(): TitleOrder {
    if (this.#order) return this.#order
    const titles = this.#weighing ?? weighingOf(this.documents)
    weighRun(titles)
    this.#weighing = null
    return (this.#order = { order: mergeRuns(titles.runs), exact: titles.exact })
  }

  /** Drops the order, made or under way: the index changed. */
  drop(): void {
    this.#order = null
    this.#weighing = null
  }

  dispose(): void {
    clearTimeout(this.#preparing)
  }

  /**
   * Weighs and sorts titles WEIGH_SLICE at a time while the idle period lasts, IDLE_SLICES at most, and
   * asks for another period for the rest; the last one merges the sorted slices. In one go, weighing and
   * sorting every title would be a long task.
   */
  #weighInIdle = (deadline: IdleDeadline): void => {
    if (this.busy() || this.#order) return
    this.#weighing ??= weighingOf(this.documents)
    for (let slices = 0; slices < IDLE_SLICES && (slices === 0 || deadline.timeRemaining() > IDLE_SLICE_MS); slices++) {
      if (!weighRun(this.#weighing, WEIGH_SLICE)) {
        this.get()
        return
      }
    }
    requestIdleCallback(this.#weighInIdle, { timeout: IDLE_TIMEOUT_MS })
  }
}
