// Dexie live queries as Svelte 5 state that outlives the screen reading it.
// A `Live` subscribes while some component reads it and keeps its last value
// when none does, so coming back to a list (10,000 epics) paints at once from
// memory while the query runs again underneath.
import { createSubscriber } from 'svelte/reactivity'
import type { OutpostDb } from '../data/db.ts'
import { FIRST_SCREEN_EPICS, takeEarlyFirstScreen } from '../first-paint/early-cache.ts'
import { readFirstScreen, saveFirstScreen } from '../first-paint/saved-rows.ts'
import { epicIdsIn, newestOrder, replaceInOrder } from '../data/epic-order.ts'
import { watchTables, type ChangedKeys, type Watched } from '../data/watch.ts'
import { liveSource, metaRow, overlayOf, tablesSource, type Source } from '../data/live-source.ts'
import { afterNextFrame } from '../lib/frames.ts'
import { yieldToEventLoop } from '../lib/yield.ts'
import { byId, writeStatesOf, type WriteState } from './lookup.ts'
import { SYNC_STATUS_KEY, syncStatus, type SyncStatus } from '../data/data-layer.ts'
import { HandedInList, onHandedRows } from '../data/handed-rows.ts'
import {
  mergedCategories,
  mergedDocs,
  mergedEpics,
  mergedEpicsById,
  mergedFiles,
  mergedHandedEpics,
  mergedLabels,
  mergedLinkedFiles,
  mergedObjectives,
  recentEpics,
} from '../data/overlay.ts'
import type {
  CachedCategory,
  CachedDoc,
  CachedEpic,
  CachedEpicState,
  CachedFile,
  CachedGroup,
  CachedLabel,
  CachedLinkedFile,
  CachedMember,
  CachedObjective,
  EntityKind,
  OutboxRecord,
} from '../data/types.ts'

/**
 * A read of whole tables, re-run at a pace while commits keep coming (the big
 * lists: see data/watch.ts). A small read (`first`) answers first, so a list
 * paints its first screen before its thousands of rows are read; the whole
 * read starts once that screen is painted.
 */
const watchedSource =
  <T>(db: OutpostDb, watched: Watched[], read: () => Promise<T>, first: () => Promise<T>, update?: (changed: ChangedKeys) => Promise<T>): Source<T> =>
  (observer) => {
    let stopped = false
    let stop: () => void = () => undefined
    const watch = () => {
      if (stopped) return
      stop = watchTables(db, watched, read, observer, update)
    }
    first().then(
      (value) => {
        if (stopped) return
        observer.next(value, true)
        // Once that screen is painted; stopped before then, `watch` starts nothing.
        void afterNextFrame(250).then(watch)
      },
      // The whole read reports what is wrong, if anything is.
      () => watch(),
    )
    return () => {
      stopped = true
      stop()
    }
  }

/** How long the epics stay unchanged before the first screen is saved for the next start. */
const SAVE_FIRST_SCREEN_AFTER_MS = 2_000

/**
 * The epics (10,000): at once the first screen the window showed last time
 * (first-paint/saved-rows.ts), then the most recent from the cache (read as the
 * window opened when it could be: first-paint/early-cache.ts), then all of them,
 * re-read at a pace while a bootstrap commits (data/watch.ts). Once the list
 * has been still for a moment, its first screen is saved for the next start.
 */
function epicsSource(db: OutpostDb): Source<CachedEpic[]> {
  // The last whole list, newest first: a commit that names its epics changes only those in it.
  let list: CachedEpic[] = []
  /** Epics the sync handed before storing them, until read from the cache. */
  const handed = new HandedInList()
  const watched = watchedSource(
    db,
    [{ table: 'epics' }, overlayOf('epic')],
    async () => (list = handed.withWhole(await mergedEpics(db).then(newestFirst))),
    () => takeEarlyFirstScreen(db) ?? recentEpics(db, FIRST_SCREEN_EPICS),
    async (changed) => {
      const fresh = await mergedEpicsById(db, epicIdsIn(changed))
      handed.keepIn(fresh)
      await yieldToEventLoop()
      return (list = replaceInOrder(list, fresh))
    },
  )
  /** Takes in the handed epics the list lacks, or, once the run ended (null), reads what is left of them from the cache. */
  const takeHanded = async (rows: readonly CachedEpic[] | null): Promise<boolean> => {
    let fresh: Map<string, CachedEpic | undefined>
    if (rows) fresh = handed.take(list, await mergedHandedEpics(db, rows))
    else if (handed.size > 0) fresh = await mergedEpicsById(db, handed.end())
    else return false
    if (fresh.size === 0) return false
    await yieldToEventLoop()
    list = replaceInOrder(list, fresh)
    return true
  }
  return (observer) => {
    let saving: ReturnType<typeof setTimeout> | undefined
    let latest: CachedEpic[] | undefined
    const save = () => {
      clearTimeout(saving)
      saving = undefined
      if (latest) saveFirstScreen(db.name, latest)
      latest = undefined
    }
    const saved = readFirstScreen(db.name)
    if (saved?.length) observer.next(saved, true)
    // One at a time, in the order they came: the rows, then the run's end. Those of a run that ended while
    // nothing listened are not the list's: the hub tells those of a run under way again.
    handed.clear()
    let handing = Promise.resolve()
    const stopHanded = onHandedRows(db, 'epic', (rows) => {
      // With them the list holds every epic: whole, though the cache's own read may not have come yet.
      handing = handing
        .then(() => takeHanded(rows))
        .then(
          (changed) => {
            if (changed) observer.next(list)
          },
          (error: unknown) => observer.error(error),
        )
    })
    const stop = watched({
      // The list as it is now: handed epics may have come since this read began.
      next: (value, partial) => {
        if (!partial) value = list
        observer.next(value, partial)
        if (partial) return
        latest = value
        clearTimeout(saving)
        saving = setTimeout(save, SAVE_FIRST_SCREEN_AFTER_MS)
      },
      error: (error) => observer.error(error),
    })
    addEventListener('pagehide', save)
    return () => {
      removeEventListener('pagehide', save)
      save()
      stopHanded()
      stop()
    }
  }
}

/**
 * The epics latest updated first, sorted in a task of their own: the list's
 * default order (epic-filter.ts sorts each new list once per order), which
 * then finds them in order (a sorted run costs its sort one comparison an
 * epic, where 10,000 in key order cost ~14 each), in the task that updates it.
 * Equal times keep their key order, as they would in that sort.
 */
async function newestFirst(epics: CachedEpic[]): Promise<CachedEpic[]> {
  await yieldToEventLoop()
  return epics.sort(newestOrder)
}

export class Live<T> {
  #value = $state.raw<T | undefined>(undefined)
  #error = $state.raw<unknown>(undefined)
  #loaded = $state(false)
  #complete = $state(false)
  readonly #subscribe: () => void

  /** A query (run as a Dexie liveQuery) or another source of answers. */
  constructor(source: (() => Promise<T>) | { source: Source<T> }) {
    const start = typeof source === 'function' ? liveSource(source) : source.source
    this.#subscribe = createSubscriber(() =>
      start({
        next: (value, partial = false) => {
          // Coming back to a list shows the whole of it from memory, not a first screen.
          if (partial && this.#complete) return
          this.#value = value
          this.#error = undefined
          this.#loaded = true
          this.#complete = !partial
        },
        error: (error: unknown) => {
          this.#error = error
          this.#loaded = true
        },
      }),
    )
  }

  /** The last answer (undefined until the first one). */
  get value(): T | undefined {
    this.#subscribe()
    return this.#value
  }

  /** True once the query answered at least once (with rows or an error). */
  get loaded(): boolean {
    this.#subscribe()
    return this.#loaded
  }

  /** True once the answer is whole (not only a list's first screen). */
  get complete(): boolean {
    this.#subscribe()
    return this.#complete
  }

  get error(): unknown {
    this.#subscribe()
    return this.#error
  }
}

const byName = <T extends { name: string }>(list: T[]) => list.sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }))

/**
 * What the screens of one workspace read again and again: its lists and its
 * reference data (members, teams, states, labels...), made once per database.
 */
export class WorkspaceData {
  readonly epics: Live<CachedEpic[]>
  readonly docs: Live<CachedDoc[]>
  readonly files: Live<CachedFile[]>
  readonly linkedFiles: Live<CachedLinkedFile[]>
  readonly objectives: Live<CachedObjective[]>
  readonly categories: Live<CachedCategory[]>
  readonly members: Live<CachedMember[]>
  readonly groups: Live<CachedGroup[]>
  readonly epicStates: Live<CachedEpicState[]>
  readonly labels: Live<CachedLabel[]>
  /** Outbox records by `${kind}:${entityId}`: their state says pending, failed or conflict. */
  readonly outbox: Live<OutboxRecord[]>
  /** The sync engine's status: whether the first sync (bootstrap) is done, and how far along. */
  readonly status: Live<SyncStatus>
  readonly memberById: ReadonlyMap<string, CachedMember>
  readonly groupById: ReadonlyMap<string, CachedGroup>
  readonly stateById: ReadonlyMap<string, CachedEpicState>
  readonly labelById: ReadonlyMap<string, CachedLabel>
  readonly objectiveById: ReadonlyMap<string, CachedObjective>
  readonly categoryById: ReadonlyMap<string, CachedCategory>
  /** The worst state of each entity's queued writes, by `${kind}:${entityId}`. */
  readonly writeStates: ReadonlyMap<string, WriteState>

  constructor(readonly db: OutpostDb) {
    this.epics = new Live({ source: epicsSource(db) })
    this.docs = new Live(async () => (await mergedDocs(db)).sort((a, b) => b.updated_at.localeCompare(a.updated_at)))
    this.files = new Live(async () => (await mergedFiles(db)).sort((a, b) => b.created_at.localeCompare(a.created_at)))
    this.linkedFiles = new Live(async () => (await mergedLinkedFiles(db)).sort((a, b) => b.created_at.localeCompare(a.created_at)))
    // The reference data, the outbox and the sync's status: read again when their own tables change (tablesSource).
    this.objectives = new Live({
      source: tablesSource(db, [{ table: 'objectives' }, overlayOf('objective')], async () =>
        (await mergedObjectives(db)).sort((a, b) => a.position - b.position),
      ),
    })
    this.categories = new Live({ source: tablesSource(db, [{ table: 'categories' }, overlayOf('category')], async () => byName(await mergedCategories(db))) })
    this.members = new Live({ source: tablesSource(db, [{ table: 'members' }], async () => byName(await db.members.toArray())) })
    this.groups = new Live({ source: tablesSource(db, [{ table: 'groups' }], async () => byName(await db.groups.toArray())) })
    this.epicStates = new Live({ source: tablesSource(db, [{ table: 'epicStates' }], () => db.epicStates.orderBy('position').toArray()) })
    // Merged: a label created here shows (and can be picked) before the service has it.
    this.labels = new Live({ source: tablesSource(db, [{ table: 'labels' }, overlayOf('label')], async () => byName(await mergedLabels(db))) })
    this.outbox = new Live({ source: tablesSource(db, [{ table: 'outbox' }], () => db.outbox.toArray()) })
    this.status = new Live({ source: tablesSource(db, [metaRow(SYNC_STATUS_KEY)], () => syncStatus(db)) })

    // Lookups by id, rebuilt when their list changes.
    this.memberById = $derived(byId(this.members.value))
    this.groupById = $derived(byId(this.groups.value))
    this.stateById = $derived(byId(this.epicStates.value))
    this.labelById = $derived(byId(this.labels.value))
    this.objectiveById = $derived(byId(this.objectives.value))
    this.categoryById = $derived(byId(this.categories.value))
    this.writeStates = $derived(writeStatesOf(this.outbox.value))
  }

  /** The worst state among an entity's queued writes, if any. */
  writeState(kind: EntityKind, id: string | number): WriteState | undefined {
    return this.writeStates.get(`${kind}:${String(id)}`)
  }
}

const perDb = new WeakMap<OutpostDb, WorkspaceData>()

/**
 * The one WorkspaceData of a database. Made under its own effect root, so its
 * derived lookups belong to no screen: they outlive the screen that first
 * asked (and go with the database, which the shell closes when it switches).
 */
export function workspaceData(db: OutpostDb): WorkspaceData {
  let data = perDb.get(db)
  if (!data) {
    $effect.root(() => {
      data = new WorkspaceData(db)
    })
    perDb.set(db, data!)
  }
  return data!
}
