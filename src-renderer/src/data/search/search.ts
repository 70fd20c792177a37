// Local search: a full-text index (MiniSearch) over epics, docs, files, linked
// files and epic comments as the UI shows them (cache + overlay). It is built
// from the cache when the window opens, in slices that keep the main thread
// free, and then follows every committed write to those tables (changes.ts).
// It lives in memory only: a serialised copy read back would be one task of
// more than half a second that cannot be sliced (MiniSearch.loadJSON; 13 MB
// for the benchmark's cache), where the rebuild runs in ~8 ms slices, and a
// copy on disk could be stale.
import MiniSearch from 'minisearch'
import type { IndexableType } from 'dexie'
import type { OutpostDb } from '../db.ts'
import { typedId } from '../outbox/kinds.ts'
import type { EntityId, OverlayRow } from '../types.ts'
import {
  SEARCH_KINDS,
  TABLE_OF,
  documentKey,
  entityState,
  isSearchKind,
  readRows,
  type EntityState,
  type SearchDocument,
  type SearchKind,
} from './documents.ts'
import { emptyChangeSet, isEmpty, mergeChanges, parseOverlayKey, watchChanges, type ChangeSet } from './changes.ts'
import { Slicer } from './slices.ts'
import { yieldToEventLoop } from '../../lib/yield.ts'
import { onHandedRows, type HandedKind, type HandedListener, type HandedRows } from '../handed-rows.ts'
import { isBodyTerm, isStopWord, normaliseTerm, snippet, terms, tokenize } from './text.ts'
import { ARCHIVED_FACTOR, keepBest, startsTitleWords, titleTier, titleWords, type Ranked } from './ranking.ts'
import { Lru } from './lru.ts'
import { mergeRuns, weighingOf, weighRun, type TitleOrder, type Weighing } from './title-order.ts'

export type { SearchKind } from './documents.ts'

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

export interface SearchStats {
  documents: number
  building: boolean
  /** Time from createSearch to the index holding the whole cache, in ms. */
  buildMs: number
  /** Longest slice of indexing work between two yields to the event loop, in ms. */
  longestSliceMs: number
  slices: number
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

export interface SearchOptions {
  /** Milliseconds clock for slicing and stats (default performance.now). */
  now?: () => number
  /** Longest slice of indexing work before yielding to the event loop, in ms (default 8). */
  sliceMs?: number
  /** Told the length of each slice of indexing work, in ms (benchmarks). */
  onSlice?: (ms: number) => void
  /** Told when building or applying a change failed (default console.error). */
  onError?: (error: unknown) => void
  /**
   * How long to wait before reading the cache to build the index, in ms
   * (default: 1,000 in a window, 0 elsewhere). A window that just opened reads
   * the same cache for its first screen: that goes first.
   */
  startDelayMs?: number
}

/**
 * Query terms shorter than this match whole words only in bodies (titles take
 * any prefix): "de" or "the" as a prefix over 10 MB of docs matches nearly
 * every doc through hundreds of words and costs the most.
 */
const BODY_PREFIX_FROM = 4
const TITLE_BOOST = 4
/** Rows read per IndexedDB request while building; docs are ~10 KB each (markdown + HTML). */
const BUILD_PAGE: Record<SearchKind, number> = { epic: 500, doc: 50, file: 500, linkedFile: 500, comment: 500 }
/**
 * Rows read per IndexedDB request when taking in changes. Each request is a transaction that waits behind the sync
 * worker's writes while a bootstrap runs: 100 rows a request made a pass over 45,000 epics take 19 s at 50,000 epics.
 */
const REFRESH_BATCH: Record<SearchKind, number> = { ...BUILD_PAGE, doc: 100 }
/** The order a pass takes its kinds in: the small rows first, docs (~10 KB of text each) last. */
const PASS_ORDER: readonly SearchKind[] = ['epic', 'file', 'linkedFile', 'comment', 'doc']
/** Rows a rescan compares between two turns of the event loop. */
const RESCAN_SLICE = 2_000
/** See SearchOptions.startDelayMs. */
const WINDOW_START_DELAY_MS = 1_000
/** Work for idle time is done by then even if the window never idles. */
const IDLE_TIMEOUT_MS = 5_000
/** Titles weighed between two looks at the idle period's time left (about a millisecond's work), and sorted. */
const WEIGH_SLICE = 1_000
/** An idle period with less left than this is given back. */
const IDLE_SLICE_MS = 2
/**
 * Slices an idle callback weighs at most. An idle period can last 50 ms, and a callback is a task all the
 * same: a key pressed meanwhile waits for it (weighing while time was left, with the sort at the end, made
 * tasks of 61 ms).
 */
const IDLE_SLICES = 4
/**
 * After changes, the titles' order is made once the index has been still this
 * long: a sync brings pages a second or two apart, and each drops it again.
 */
const QUIET_MS = 2_000
/**
 * While commits keep coming (a sync writing page after page, from its worker or this window), changes are
 * taken in at most every PACE times as long as taking in the last ones took: the index follows at a fifth of
 * the window's time at most, and each pass takes in every commit since (one rescan for several pages, not
 * one a page). After a quiet spell a change is taken in at once.
 */
const PACE = 4
/** The longest wait the pace asks for: a pass over a whole bootstrap can take seconds, the next one need not wait for four times that. */
const MAX_PACE_MS = 1_000
/**
 * Query words' matches kept between keystrokes, counted in documents: the
 * phrase being typed and the last few (~6 MB at most). A word that
 * matches most of the index ("epic" in a workspace of epics) costs 10-20 ms to
 * score again; kept, its next use costs a lookup.
 */
const KEPT_MATCHES = 60_000
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
 * User Timing marks: when the index first holds the whole cache, and when it
 * last started and finished catching up with changes (it is up to date when
 * `settled` is the later). DevTools shows them in a profile; the interface
 * benchmark waits on them. One of each is kept: the timeline keeps marks
 * until they are cleared.
 */
export const SEARCH_MARKS = { ready: 'outpost:search-ready', updating: 'outpost:search-updating', settled: 'outpost:search-settled' } as const

function mark(name: string, detail: Record<string, number> = {}): void {
  performance.clearMarks(name)
  performance.mark(name, { detail })
}

/** Allowed typos per query term: none for short ones, one, then two (a swap of two letters is two edits). */
function typosFor(term: string): number | false {
  return term.length < 4 ? false : term.length < 6 ? 1 : 2
}

export function createSearch(db: OutpostDb, options: SearchOptions = {}): LocalSearch {
  const now = options.now ?? (() => performance.now())
  const onError = options.onError ?? ((error: unknown) => console.error('search:', error))
  const slicer = new Slicer(now, options.sliceMs ?? 8, options.onSlice)
  /** The handed rows' own slices (data/handed-rows.ts): they may go in beside the build's. */
  const handSlicer = new Slicer(now, options.sliceMs ?? 8, options.onSlice)
  const startedAt = now()

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
    // Vacuumed here, not by itself: MiniSearch's own vacuum walks the index across its pauses, and a document
    // added or discarded during one breaks the walk (an uncaught TypeError in `dive`). See vacuumIfDirty.
    autoVacuum: false,
  })
  /**
   * Drops replaced documents' old terms, in small batches like everything else here, once enough of the
   * index is dirt. Called at the end of a build or a pass, which awaits it: nothing adds or discards
   * meanwhile (only those two run `apply`, one at a time); queries read the index as it is vacuumed.
   */
  const vacuumIfDirty = async (): Promise<void> => {
    vacuuming = true
    try {
      // Rows the sync handed meanwhile (they go in beside a build or a pass) are in first.
      await handing
      if (!disposed && index.dirtCount >= 100 && index.dirtFactor >= 0.1) await index.vacuum({ batchSize: 200, batchWait: 10 })
    } finally {
      vacuuming = false
    }
  }
  let vacuuming = false
  /** What is indexed, by key: the source of titles and snippets. */
  const documents = new Map<string, SearchDocument>()
  /** updated_at of every server row read (searchable or not), by key: what a rescan compares. */
  const serverStamps = new Map<string, string>()
  /** updatedAt of every overlay row read, by key. */
  const overlayStamps = new Map<string, number>()
  /** What recent query words matched, most recently used last (see matchesOf); emptied when the index changes. */
  const wordMatches = new Lru<string, Map<string, WordMatch>>(KEPT_MATCHES, (matches) => matches.size)
  /** Titles in the order a query of letters ranks them (see titleOrder); dropped when the index changes. */
  let shortest: TitleOrder | null = null
  /** Recent answers by what was asked (the query's words and the options), most recently used last; emptied when the index changes. */
  const answers = new Lru<string, readonly SearchResult[]>(KEPT_ANSWERS)
  /** The wait before asking for idle time (prepareWhenIdle). */
  let preparing: ReturnType<typeof setTimeout> | undefined
  /** The titles weighed so far in idle time, and the documents left to weigh; dropped when the index changes. */
  let weighing: Weighing | null = null

  /**
   * Orders the titles for queries of letters while the window is idle, `afterMs`
   * from now unless asked again before: the first letter typed then does not
   * pay for the sort of every title (10-15 ms for the benchmark's 13,000).
   */
  function prepareWhenIdle(afterMs: number): void {
    if (typeof requestIdleCallback !== 'function' || shortest) return
    clearTimeout(preparing)
    preparing = setTimeout(() => requestIdleCallback(weighInIdle, { timeout: IDLE_TIMEOUT_MS }), afterMs)
  }

  /**
   * Weighs and sorts titles WEIGH_SLICE at a time while the idle period lasts, IDLE_SLICES at most, and
   * asks for another period for the rest; the last one merges the sorted slices. In one go, 13,000 titles'
   * weights and their sort were a task of 57-59 ms in the benchmark.
   */
  function weighInIdle(deadline: IdleDeadline): void {
    if (disposed || building || working !== null || shortest) return
    weighing ??= weighingOf(documents)
    for (let slices = 0; slices < IDLE_SLICES && (slices === 0 || deadline.timeRemaining() > IDLE_SLICE_MS); slices++) {
      if (!weighRun(weighing, WEIGH_SLICE)) {
        titleOrder()
        return
      }
    }
    requestIdleCallback(weighInIdle, { timeout: IDLE_TIMEOUT_MS })
  }

  /**
   * Every title, best ranked by a query of letters first, and the titles by their words: made now from
   * what idle time has not weighed yet (all of it, if none has), and kept until the index changes.
   */
  function titleOrder(): TitleOrder {
    if (shortest) return shortest
    const titles = weighing ?? weighingOf(documents)
    weighRun(titles)
    weighing = null
    return (shortest = { order: mergeRuns(titles.runs), exact: titles.exact })
  }

  /** Drops the titles' order, made or under way. */
  function dropTitleOrder(): void {
    shortest = null
    weighing = null
  }

  /** Drops what was worked out from the index: it changed. */
  function forget(): void {
    wordMatches.clear()
    dropTitleOrder()
    answers.clear()
  }

  let pending = emptyChangeSet()
  /** Rows the sync handed before storing them (data/handed-rows.ts), for the next pass. */
  let handed: HandedRows[] = []
  /** Keys indexed from handed rows that no read of the cache has found since: kept while a read misses them. */
  const handedKeys = new Set<string>()
  const nothingPending = () => isEmpty(pending) && handed.length === 0
  let building = true
  let disposed = false
  let buildMs = 0
  let working: Promise<void> | null = null
  let version = 0
  const listeners = new Set<(version: number) => void>()

  const bump = () => {
    version++
    for (const run of listeners) run(version)
  }

  const stopWatching = watchChanges(db, (changes) => {
    mergeChanges(pending, changes)
    schedule()
  })
  const onHanded =
    <K extends HandedKind>(kind: K): HandedListener<K> =>
    (rows) => {
      if (rows) {
        handed.push({ kind, rows } as HandedRows)
        // A build or a pass under way reads behind the sync's writes: they go in beside it, not after it.
        if ((building || working !== null) && !vacuuming) takeHanded().catch(onError)
        else schedule('now')
        return
      }
      // The run ended: what the cache holds of them now is read, and those it does not hold go.
      handed = handed.filter((h) => h.kind !== kind)
      const left = [...handedKeys].filter((key) => key.startsWith(`${kind}:`))
      if (left.length === 0) return
      const ids = pending.rows.get(kind) ?? new Set<EntityId>()
      pending.rows.set(kind, ids)
      for (const key of left) {
        ids.add(idOfKey(key))
        handedKeys.delete(key)
      }
      schedule()
    }
  const stopHanded = [onHandedRows(db, 'epic', onHanded('epic')), onHandedRows(db, 'doc', onHanded('doc'))]

  /**
   * Indexes the handed rows the index does not hold yet, with the user's changes laid over them. They are
   * titles a user may be typing now: they go in beside a build or a pass under way, as soon as they come (one
   * `apply` at a time all the same: each is synchronous, and a vacuum waits for them), else a pass is made for
   * them at once. In slices of their own.
   */
  async function applyHanded(): Promise<void> {
    handSlicer.begin('user-visible')
    let added = 0
    try {
      while (handed.length > 0 && !disposed) {
        const { kind, rows } = handed.shift()!
        const overlays = new Map((await handSlicer.wait(db.overlay.where('kind').equals(kind).toArray())).map((o) => [o.id, o]))
        for (const row of rows) {
          const key = documentKey(kind, row.id)
          if (serverStamps.has(key) || disposed) continue
          apply(entityState(kind, row.id, row, overlays.get(String(row.id))))
          handedKeys.add(key)
          added++
          if (handSlicer.spent) await handSlicer.pause()
        }
      }
    } finally {
      handSlicer.end()
    }
    // A query on screen runs again now, not once the pass under way ends.
    if (added > 0) bump()
  }
  /** The handed rows taken in, one taker at a time. */
  let handing: Promise<void> = Promise.resolve()
  const takeHanded = (): Promise<void> => (handing = handing.then(applyHanded, applyHanded))

  function apply(state: EntityState): void {
    const { key, document } = state
    if (state.serverStamp === undefined) serverStamps.delete(key)
    else serverStamps.set(key, state.serverStamp)
    if (state.overlayStamp === undefined) overlayStamps.delete(key)
    else overlayStamps.set(key, state.overlayStamp)
    const old = documents.get(key)
    if (old && document && old.title === document.title && old.body === document.body) {
      // Same words: no need to touch the index (a state or owner change, say). Of the rest, a query
      // reads only whether it is archived (shown, and weighing less) and a comment's epic: answers
      // and the titles' order, which hold the document as it was, go when one of those changed.
      documents.set(key, document)
      if (old.archived !== document.archived || old.epicId !== document.epicId) {
        answers.clear()
        dropTitleOrder()
      }
      return
    }
    if (old) {
      index.discard(key)
      documents.delete(key)
    }
    if (document) {
      index.add(document)
      documents.set(key, document)
    }
    forget()
  }

  async function build(): Promise<void> {
    if (disposed) return
    slicer.begin('background')
    const overlays = new Map<string, OverlayRow>()
    for (const row of await slicer.wait(db.overlay.toArray())) {
      if (isSearchKind(row.kind)) overlays.set(documentKey(row.kind, row.id), row)
    }
    for (const kind of SEARCH_KINDS) {
      const table = db.table(TABLE_OF[kind])
      let last: IndexableType | undefined
      for (;;) {
        const from = last === undefined ? table.toCollection() : table.where(':id').above(last)
        const page = (await slicer.wait(from.limit(BUILD_PAGE[kind]).toArray())) as Record<string, unknown>[]
        if (disposed) return
        if (page.length === 0) break
        for (const row of page) {
          const key = documentKey(kind, row.id as EntityId)
          const overlay = overlays.get(key)
          overlays.delete(key)
          handedKeys.delete(key)
          apply(entityState(kind, row.id as EntityId, row, overlay))
          if (slicer.spent) await slicer.pause()
        }
        last = page[page.length - 1].id as IndexableType
      }
      bump()
    }
    // Overlay rows with no server row: entities created offline.
    for (const overlay of overlays.values()) {
      const kind = overlay.kind as SearchKind
      apply(entityState(kind, typedId(kind, overlay.id), undefined, overlay))
      if (slicer.spent) await slicer.pause()
    }
    slicer.end()
    await vacuumIfDirty()
  }

  /** Keys of rows of `kind` whose updated_at differs from what was indexed, or that appeared or went. */
  async function rescan(kind: SearchKind): Promise<EntityId[]> {
    const table = db.table(TABLE_OF[kind])
    const [stamps, ids] = await db.transaction('r', table, () => Promise.all([table.orderBy('updated_at').keys(), table.orderBy('updated_at').primaryKeys()]))
    const changed: EntityId[] = []
    const seen = new Set<string>()
    for (let i = 0; i < ids.length; i++) {
      // 10,000 epics compared at once would be a task of their own; a turn of the event loop now and then.
      if (i > 0 && i % RESCAN_SLICE === 0) await yieldToEventLoop()
      const id = ids[i] as EntityId
      const key = documentKey(kind, id)
      seen.add(key)
      handedKeys.delete(key)
      // A doc indexed without its markdown gets it later under the same updated_at: read those again. Not a doc of
      // the list of every doc (no version yet, ''): the page that completes it brings a version.
      const contentless = kind === 'doc' && stamps[i] !== '' && documents.get(key)?.body === ''
      if (serverStamps.get(key) !== stamps[i] || contentless) changed.push(id)
    }
    const prefix = `${kind}:`
    for (const key of serverStamps.keys()) {
      if (key.startsWith(prefix) && !seen.has(key) && !handedKeys.has(key)) changed.push(idOfKey(key))
    }
    return changed
  }

  /** Overlay rows written, changed or removed since last read. */
  async function rescanOverlay(): Promise<[SearchKind, EntityId][]> {
    const changed: [SearchKind, EntityId][] = []
    const seen = new Set<string>()
    for (const row of await db.overlay.toArray()) {
      if (!isSearchKind(row.kind)) continue
      const key = documentKey(row.kind, row.id)
      seen.add(key)
      if (overlayStamps.get(key) !== row.updatedAt) changed.push([row.kind, idOfKey(key)])
    }
    for (const key of overlayStamps.keys()) {
      if (!seen.has(key)) changed.push([key.slice(0, key.indexOf(':')) as SearchKind, idOfKey(key)])
    }
    return changed
  }

  /** The typed id of a key: as the cache's table keys it (a number for int kinds, unless local). */
  function idOfKey(key: string): EntityId {
    const at = key.indexOf(':')
    return typedId(key.slice(0, at) as SearchKind, key.slice(at + 1))
  }

  async function applyChanges(changes: ChangeSet): Promise<void> {
    const work = new Map<SearchKind, Set<EntityId>>()
    const add = (kind: SearchKind, id: EntityId) => {
      let ids = work.get(kind)
      if (!ids) work.set(kind, (ids = new Set()))
      ids.add(id)
    }
    for (const [kind, ids] of changes.rows) for (const id of ids) add(kind, id)
    for (const kind of changes.rescan) for (const id of await slicer.wait(rescan(kind))) add(kind, id)
    if (changes.rescanOverlay) for (const [kind, id] of await slicer.wait(rescanOverlay())) add(kind, id)
    for (const key of changes.overlay) {
      const [kind, id] = parseOverlayKey(key)
      add(kind, typedId(kind, id))
    }
    // Kinds whose rows are small first: a pass over thousands of docs' text does not hold back the epics' titles.
    for (const kind of PASS_ORDER) {
      const ids = work.get(kind)
      if (!ids) continue
      const all = [...ids]
      for (let i = 0; i < all.length; i += REFRESH_BATCH[kind]) {
        const ids = all.slice(i, i + REFRESH_BATCH[kind])
        const [rows, overlays] = await slicer.wait(readRows(db, kind, ids))
        if (disposed) return
        for (let j = 0; j < ids.length; j++) {
          const key = documentKey(kind, ids[j])
          // A handed row the cache does not hold yet stays as it was handed.
          if (rows[j] === undefined && handedKeys.has(key)) continue
          handedKeys.delete(key)
          apply(entityState(kind, ids[j], rows[j], overlays[j]))
          if (slicer.spent) await slicer.pause()
        }
      }
    }
  }

  async function drain(): Promise<void> {
    mark(SEARCH_MARKS.updating)
    slicer.begin('user-visible')
    try {
      // What came in meanwhile waits for the next pass (see PACE).
      const changes = pending
      pending = emptyChangeSet()
      if (handed.length > 0) await slicer.wait(takeHanded())
      await applyChanges(changes)
      bump()
      await vacuumIfDirty()
    } finally {
      slicer.end()
    }
    if (!disposed && nothingPending()) mark(SEARCH_MARKS.settled, { documents: documents.size })
    prepareWhenIdle(QUIET_MS)
  }

  let paced: ReturnType<typeof setTimeout> | undefined
  let lastEnd = -Infinity
  let lastDuration = 0

  /** Takes in the pending changes now, or once the pace allows (`now`: at once, as `settled` needs). */
  function schedule(at: 'paced' | 'now' = 'paced'): void {
    if (working || building || disposed || nothingPending()) return
    if (at === 'now') {
      clearTimeout(paced)
      paced = undefined
    } else {
      if (paced !== undefined) return
      const wait = lastEnd + Math.min(PACE * lastDuration, MAX_PACE_MS) - now()
      if (wait > 0) {
        paced = setTimeout(() => {
          paced = undefined
          schedule()
        }, wait)
        return
      }
    }
    const start = now()
    working = drain()
      .catch(onError)
      .finally(() => {
        working = null
        lastEnd = now()
        lastDuration = lastEnd - start
        // Handed epics are titles the user may be typing now: they do not wait for the pace.
        schedule(handed.length > 0 ? 'now' : 'paced')
      })
  }

  const startDelayMs = options.startDelayMs ?? (typeof document === 'undefined' ? 0 : WINDOW_START_DELAY_MS)
  const started = startDelayMs > 0 ? new Promise((resolve) => setTimeout(resolve, startDelayMs)) : Promise.resolve()
  const ready = started.then(build).then(
    () => {
      building = false
      buildMs = now() - startedAt
      if (!disposed) mark(SEARCH_MARKS.ready, { documents: documents.size, buildMs })
      bump()
      schedule()
      prepareWhenIdle(0)
    },
    (error: unknown) => {
      building = false
      onError(error)
      throw error
    },
  )
  // Callers that never await `ready` must not see an unhandled rejection; onError was told.
  ready.catch(() => {})

  function query(text: string, { kinds, limit = 20, snippets = true }: QueryOptions = {}): readonly SearchResult[] {
    const words = terms(text)
    if (words.length === 0 || limit <= 0 || disposed) return []
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
      const titles = titleOrder()
      for (const { key, document, relevance } of titles.exact.get(phrase) ?? []) consider(key, document, relevance)
      for (const { key, document, relevance, most } of titles.order) {
        if (best.length === limit && best[limit - 1].rank >= 2 + most / (1 + most)) break
        if (document.titleTerms !== phrase) consider(key, document, relevance)
      }
    } else {
      // Every word must match (AND). What MiniSearch's AND would score: the sum of each word's
      // relevance, times the number of distinct words.
      wordMaps = indexed.map(matchesOf)
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
    const hits = index.search({
      combineWith: 'OR',
      queries: [
        { queries: [word], fields: ['title'], prefix: true, fuzzy: typosFor(word) },
        { queries: [word], fields: ['body'], prefix: word.length >= BODY_PREFIX_FROM, fuzzy: typosFor(word) },
      ],
    })
    for (const hit of hits) found.set(hit.id as string, { score: hit.score, terms: hit.terms })
    // The least recently used go first; the word just asked for stays, however many it matched.
    wordMatches.set(word, found)
    return found
  }

  function commentTitle(comment: SearchDocument): string {
    const epic = comment.epicId === undefined ? undefined : documents.get(documentKey('epic', comment.epicId))
    return epic?.title ?? ''
  }

  return {
    ready,
    query,
    version: {
      subscribe(run) {
        run(version)
        listeners.add(run)
        return () => listeners.delete(run)
      },
    },
    async settled() {
      await ready
      while (!disposed && (working || !nothingPending())) {
        schedule('now')
        await working
      }
    },
    stats: () => ({
      documents: documents.size,
      building,
      buildMs,
      longestSliceMs: Math.max(slicer.longest, handSlicer.longest),
      slices: slicer.slices + handSlicer.slices,
    }),
    dispose() {
      disposed = true
      clearTimeout(preparing)
      clearTimeout(paced)
      stopWatching()
      for (const stop of stopHanded) stop()
      listeners.clear()
      documents.clear()
      forget()
    },
  }
}
