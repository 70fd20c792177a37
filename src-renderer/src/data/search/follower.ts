// The index as it follows the cache: built from it when the window opens, in
// slices that keep the main thread free, then kept up with every committed
// write to the tables it indexes (changes.ts), in passes paced while commits
// keep coming. Rows a bootstrap hands the window before storing them
// (../handed-rows.ts) go in as they come, until the cache holds them.
import type MiniSearch from 'minisearch'
import type { IndexableType } from 'dexie'
import type { OutpostDb } from '../db.ts'
import { typedId } from '../outbox/kinds.ts'
import type { EntityId, OverlayRow } from '../types.ts'
import {
  SEARCH_KINDS,
  TABLE_OF,
  documentKey,
  entityState,
  idOfKey,
  isSearchKind,
  readRows,
  type EntityState,
  type SearchDocument,
  type SearchKind,
} from './documents.ts'
import { emptyChangeSet, isEmpty, mergeChanges, parseOverlayKey, watchChanges, type ChangeSet } from './changes.ts'
import { Slicer } from './slices.ts'
import { rescanOverlay, rescanTable } from './rescan.ts'
import { onHandedRows, type HandedKind, type HandedListener, type HandedRows } from '../handed-rows.ts'

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

export interface SearchStats {
  documents: number
  building: boolean
  /** Time from createSearch to the index holding the whole cache, in ms. */
  buildMs: number
  /** Longest slice of indexing work between two yields to the event loop, in ms. */
  longestSliceMs: number
  slices: number
}

/** What the follower tells the search it feeds. */
export interface FollowerHooks {
  /** Documents were added, replaced or removed: what was worked out from the index is stale. */
  wordsChanged(): void
  /** A document kept its words, but what a result shows of it changed (archived, a comment's epic). */
  shownChanged(): void
  /** The index took in more (part of the build, a pass, handed rows): a query on screen runs again. */
  indexed(): void
  /** The build or a pass ended: the index may now stay still a while. */
  caughtUp(after: 'build' | 'pass'): void
}

/** Rows read per IndexedDB request while building; docs are ~10 KB each (markdown + HTML). */
const BUILD_PAGE: Record<SearchKind, number> = { epic: 500, doc: 50, file: 500, linkedFile: 500, comment: 500 }
/**
 * Rows read per IndexedDB request when taking in changes. Each request is a transaction that waits behind the sync
 * worker's writes while a bootstrap runs, so a pass makes few of them.
 */
const REFRESH_BATCH: Record<SearchKind, number> = { ...BUILD_PAGE, doc: 100 }
/** The order a pass takes its kinds in: the small rows first, docs (~10 KB of text each) last. */
const PASS_ORDER: readonly SearchKind[] = ['epic', 'file', 'linkedFile', 'comment', 'doc']
/** See SearchOptions.startDelayMs. */
const WINDOW_START_DELAY_MS = 1_000
/**
 * While commits keep coming (a sync writing page after page), changes are taken in at most every PACE times as long
 * as the last pass took: the index follows at a fifth of the window's time at most, one pass for several commits.
 * After a quiet spell a change is taken in at once.
 */
const PACE = 4
/** The longest wait the pace asks for: after a pass over a whole bootstrap, the next need not wait four times as long. */
const MAX_PACE_MS = 1_000

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

/** The index kept up with the cache, and all the state that takes: the fields below. */
export class IndexFollower {
  /** Resolves once the whole cache is indexed (LocalSearch.ready). */
  readonly ready: Promise<void>
  /** The cache it follows. */
  private readonly db: OutpostDb
  /** The full-text index it keeps. */
  private readonly index: MiniSearch<SearchDocument>
  /** What is indexed, by key: the source of titles and snippets. */
  private readonly documents: Map<string, SearchDocument>
  /** Told what changed in the index. */
  private readonly hooks: FollowerHooks
  /** Milliseconds clock for slicing, pacing and stats. */
  private readonly now: () => number
  /** Told when building or applying a change failed. */
  private readonly onError: (error: unknown) => void
  /** The build's and the passes' slices. */
  private readonly slicer: Slicer
  /** The handed rows' own slices: they may go in beside the build's. */
  private readonly handSlicer: Slicer
  /** When the follower was made: what buildMs counts from. */
  private readonly startedAt: number
  /** updated_at of every server row read (searchable or not), by key: what a rescan compares. */
  private readonly serverStamps = new Map<string, string>()
  /** updatedAt of every overlay row read, by key. */
  private readonly overlayStamps = new Map<string, number>()
  /** Changes committed since the last pass began, for the next one. */
  private pending = emptyChangeSet()
  /** Rows the sync handed before storing them, for the next taker. */
  private handed: HandedRows[] = []
  /** Keys indexed from handed rows that no read of the cache has found since: kept while a read misses them. */
  private readonly handedKeys = new Set<string>()
  /** The handed rows taken in, one taker at a time. */
  private handing: Promise<void> = Promise.resolve()
  /** True until the build ends, done or failed. */
  private building = true
  /** Disposed: every loop stops at its next step. */
  private disposed = false
  /** Time from the follower's making to the whole cache indexed, in ms (0 until then). */
  private buildMs = 0
  /** The pass under way, if any. */
  private working: Promise<void> | null = null
  /** A vacuum is under way: handed rows wait for the next pass instead of going in beside it. */
  private vacuuming = false
  /** The timer of the next paced pass, if one waits. */
  private paced: ReturnType<typeof setTimeout> | undefined
  /** When the last pass ended (clock ms): where the pace counts from. */
  private lastEnd = -Infinity
  /** How long the last pass took, in ms: the pace is a multiple of it. */
  private lastDuration = 0
  /** Stops listening for commits and handed rows. */
  private readonly stops: (() => void)[]

  constructor(db: OutpostDb, index: MiniSearch<SearchDocument>, documents: Map<string, SearchDocument>, options: SearchOptions, hooks: FollowerHooks) {
    this.db = db
    this.index = index
    this.documents = documents
    this.hooks = hooks
    this.now = options.now ?? (() => performance.now())
    this.onError = options.onError ?? ((error: unknown) => console.error('search:', error))
    this.slicer = new Slicer(this.now, options.sliceMs ?? 8, options.onSlice)
    this.handSlicer = new Slicer(this.now, options.sliceMs ?? 8, options.onSlice)
    this.startedAt = this.now()
    this.stops = [
      watchChanges(db, (changes) => {
        mergeChanges(this.pending, changes)
        this.schedule()
      }),
      onHandedRows(db, 'epic', this.onHanded('epic')),
      onHandedRows(db, 'doc', this.onHanded('doc')),
    ]
    const startDelayMs = options.startDelayMs ?? (typeof document === 'undefined' ? 0 : WINDOW_START_DELAY_MS)
    const started = startDelayMs > 0 ? new Promise((resolve) => setTimeout(resolve, startDelayMs)) : Promise.resolve()
    this.ready = started
      .then(() => this.build())
      .then(
        () => {
          this.building = false
          this.buildMs = this.now() - this.startedAt
          if (!this.disposed) mark(SEARCH_MARKS.ready, { documents: this.documents.size, buildMs: this.buildMs })
          this.hooks.indexed()
          this.schedule()
          this.hooks.caughtUp('build')
        },
        (error: unknown) => {
          this.building = false
          this.onError(error)
          throw error
        },
      )
    // Callers that never await `ready` must not see an unhandled rejection; onError was told.
    this.ready.catch(() => {})
  }

  get isDisposed(): boolean {
    return this.disposed
  }

  /** True while the build or a pass runs. */
  get busy(): boolean {
    return this.building || this.working !== null
  }

  /** Resolves once every change seen so far is in the index. */
  async settled(): Promise<void> {
    await this.ready
    while (!this.disposed && (this.working || !this.nothingPending())) {
      this.schedule('now')
      await this.working
    }
  }

  stats(): SearchStats {
    return {
      documents: this.documents.size,
      building: this.building,
      buildMs: this.buildMs,
      longestSliceMs: Math.max(this.slicer.longest, this.handSlicer.longest),
      slices: this.slicer.slices + this.handSlicer.slices,
    }
  }

  dispose(): void {
    this.disposed = true
    clearTimeout(this.paced)
    for (const stop of this.stops) stop()
  }

  private nothingPending(): boolean {
    return isEmpty(this.pending) && this.handed.length === 0
  }

  private async build(): Promise<void> {
    if (this.disposed) return
    const { db, slicer } = this
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
        if (this.disposed) return
        if (page.length === 0) break
        for (const row of page) {
          const key = documentKey(kind, row.id as EntityId)
          const overlay = overlays.get(key)
          overlays.delete(key)
          this.handedKeys.delete(key)
          this.apply(entityState(kind, row.id as EntityId, row, overlay))
          if (slicer.spent) await slicer.pause()
        }
        last = page[page.length - 1].id as IndexableType
      }
      this.hooks.indexed()
    }
    // Overlay rows with no server row: entities created offline.
    for (const overlay of overlays.values()) {
      const kind = overlay.kind as SearchKind
      this.apply(entityState(kind, typedId(kind, overlay.id), undefined, overlay))
      if (slicer.spent) await slicer.pause()
    }
    slicer.end()
    await this.vacuumIfDirty()
  }

  /** Takes in the pending changes now, or once the pace allows (`now`: at once, as `settled` needs). */
  private schedule(at: 'paced' | 'now' = 'paced'): void {
    if (this.working || this.building || this.disposed || this.nothingPending()) return
    if (at === 'now') {
      clearTimeout(this.paced)
      this.paced = undefined
    } else {
      if (this.paced !== undefined) return
      const wait = this.lastEnd + Math.min(PACE * this.lastDuration, MAX_PACE_MS) - this.now()
      if (wait > 0) {
        this.paced = setTimeout(() => {
          this.paced = undefined
          this.schedule()
        }, wait)
        return
      }
    }
    const start = this.now()
    this.working = this.pass()
      .catch(this.onError)
      .finally(() => {
        this.working = null
        this.lastEnd = this.now()
        this.lastDuration = this.lastEnd - start
        // Handed epics are titles the user may be typing now: they do not wait for the pace.
        this.schedule(this.handed.length > 0 ? 'now' : 'paced')
      })
  }

  /** One pass: the handed rows, then the changes pending when it began (what comes meanwhile waits for the next). */
  private async pass(): Promise<void> {
    mark(SEARCH_MARKS.updating)
    this.slicer.begin('user-visible')
    try {
      const changes = this.pending
      this.pending = emptyChangeSet()
      if (this.handed.length > 0) await this.slicer.wait(this.takeHanded())
      await this.applyChanges(changes)
      this.hooks.indexed()
      await this.vacuumIfDirty()
    } finally {
      this.slicer.end()
    }
    if (!this.disposed && this.nothingPending()) mark(SEARCH_MARKS.settled, { documents: this.documents.size })
    this.hooks.caughtUp('pass')
  }

  private async applyChanges(changes: ChangeSet): Promise<void> {
    const { slicer } = this
    const work = new Map<SearchKind, Set<EntityId>>()
    const add = (kind: SearchKind, id: EntityId) => {
      let ids = work.get(kind)
      if (!ids) work.set(kind, (ids = new Set()))
      ids.add(id)
    }
    for (const [kind, ids] of changes.rows) for (const id of ids) add(kind, id)
    for (const kind of changes.rescan)
      for (const id of await slicer.wait(rescanTable(this.db, kind, this.serverStamps, this.documents, this.handedKeys))) add(kind, id)
    if (changes.rescanOverlay) for (const [kind, id] of await slicer.wait(rescanOverlay(this.db, this.overlayStamps))) add(kind, id)
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
        const [rows, overlays] = await slicer.wait(readRows(this.db, kind, ids))
        if (this.disposed) return
        for (let j = 0; j < ids.length; j++) {
          const key = documentKey(kind, ids[j])
          // A handed row the cache does not hold yet stays as it was handed.
          if (rows[j] === undefined && this.handedKeys.has(key)) continue
          this.handedKeys.delete(key)
          this.apply(entityState(kind, ids[j], rows[j], overlays[j]))
          if (slicer.spent) await slicer.pause()
        }
      }
    }
  }

  /** The listener for handed rows of `kind`: rows to take in, or null when the run ended. */
  private onHanded<K extends HandedKind>(kind: K): HandedListener<K> {
    return (rows) => {
      if (rows) {
        this.handed.push({ kind, rows } as HandedRows)
        // A build or a pass under way reads behind the sync's writes: they go in beside it, not after it.
        if (this.busy && !this.vacuuming) this.takeHanded().catch(this.onError)
        else this.schedule('now')
        return
      }
      // The run ended: what the cache holds of them now is read, and those it does not hold go.
      this.handed = this.handed.filter((h) => h.kind !== kind)
      const left = [...this.handedKeys].filter((key) => key.startsWith(`${kind}:`))
      if (left.length === 0) return
      const ids = this.pending.rows.get(kind) ?? new Set<EntityId>()
      this.pending.rows.set(kind, ids)
      for (const key of left) {
        ids.add(idOfKey(key))
        this.handedKeys.delete(key)
      }
      this.schedule()
    }
  }

  private takeHanded(): Promise<void> {
    const take = () => this.applyHanded()
    return (this.handing = this.handing.then(take, take))
  }

  /**
   * Indexes the handed rows the index does not hold yet, with the user's changes laid over them. They are
   * titles a user may be typing now: they go in beside a build or a pass under way, as soon as they come (one
   * `apply` at a time all the same: each is synchronous, and a vacuum waits for them), else a pass is made for
   * them at once. In slices of their own.
   */
  private async applyHanded(): Promise<void> {
    const { handSlicer } = this
    handSlicer.begin('user-visible')
    let added = 0
    try {
      while (this.handed.length > 0 && !this.disposed) {
        const { kind, rows } = this.handed.shift()!
        const overlays = new Map((await handSlicer.wait(this.db.overlay.where('kind').equals(kind).toArray())).map((o) => [o.id, o]))
        for (const row of rows) {
          const key = documentKey(kind, row.id)
          if (this.serverStamps.has(key) || this.disposed) continue
          this.apply(entityState(kind, row.id, row, overlays.get(String(row.id))))
          this.handedKeys.add(key)
          added++
          if (handSlicer.spent) await handSlicer.pause()
        }
      }
    } finally {
      handSlicer.end()
    }
    // A query on screen runs again now, not once the pass under way ends.
    if (added > 0) this.hooks.indexed()
  }

  private apply(state: EntityState): void {
    const { key, document } = state
    if (state.serverStamp === undefined) this.serverStamps.delete(key)
    else this.serverStamps.set(key, state.serverStamp)
    if (state.overlayStamp === undefined) this.overlayStamps.delete(key)
    else this.overlayStamps.set(key, state.overlayStamp)
    const old = this.documents.get(key)
    if (old && document && old.title === document.title && old.body === document.body) {
      // Same words: no need to touch the index (a state or owner change, say). Of the rest, a query
      // reads only whether it is archived (shown, and weighing less) and a comment's epic.
      this.documents.set(key, document)
      if (old.archived !== document.archived || old.epicId !== document.epicId) this.hooks.shownChanged()
      return
    }
    if (old) {
      this.index.discard(key)
      this.documents.delete(key)
    }
    if (document) {
      this.index.add(document)
      this.documents.set(key, document)
    }
    this.hooks.wordsChanged()
  }

  /**
   * Drops replaced documents' old terms, in small batches like everything else here, once enough of the
   * index is dirt. Called at the end of a build or a pass, which awaits it: nothing adds or discards
   * meanwhile (only those two run `apply`, one at a time); queries read the index as it is vacuumed.
   */
  private async vacuumIfDirty(): Promise<void> {
    this.vacuuming = true
    try {
      // Rows the sync handed meanwhile (they go in beside a build or a pass) are in first.
      await this.handing
      const { index } = this
      if (!this.disposed && index.dirtCount >= 100 && index.dirtFactor >= 0.1) await index.vacuum({ batchSize: 200, batchWait: 10 })
    } finally {
      this.vacuuming = false
    }
  }
}
