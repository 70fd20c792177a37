// Every write the UI offers. Each is ONE Dexie transaction that applies the
// change to the overlay and appends (or coalesces) an outbox record, so the UI
// shows it at once and it survives a kill, a crash or a reboot; replay (see
// outbox/replay.ts) takes it to the service later. Creates answer the new
// entity's local id (`local:<uuid>`), which every read and action accepts
// before and after the service has confirmed it.
//
// A read-only token refuses every write here, at once, instead of queueing
// writes that could only fail.
import type { Table } from 'dexie'
import type { OutpostDb } from './db.ts'
import type { EditableEpicField } from './epic-fields.ts'
import { merged, mergedOne } from './overlay.ts'
import { newLocalId, resolveId } from './outbox/ids.ts'
import { isLocalId, linkId, sameValue, tableKey, tableOf, UPDATABLE, type WritableKind } from './outbox/kinds.ts'
import { enqueue, type Enqueued, type NewRecord } from './outbox/queue.ts'
import { journaledTransaction, journalIdsOf, journalInside, journalRecordOf, KeptInJournal, type OutboxJournal } from './outbox/journal.ts'
import { discardRecord, resolveConflict, retryRecord, type ConflictChoice } from './outbox/records.ts'
import { UnreadableFile, type FileOnDisk, type Transport } from './transport.ts'
import { isQuotaError, StorageFullError, WRITE_NOT_SAVED_MESSAGE } from './storage-full.ts'
import type { CachedComment, CachedDocEpic, CachedEpic, CachedHealth, CachedLabel, CachedLinkedFile, CachedObjective, EntityId, EntityKind } from './types.ts'

export const READ_ONLY_MESSAGE =
  'This account signs in with a read-only API token (svc_ro_…), so changes cannot be made and nothing was queued. ' +
  'Add a read-write token (svc_rw_…) for this workspace to edit.'

/** A partial epic's description (stored from the v3 list, not downloaded yet): the user is told why it cannot be edited. */
export const DESCRIPTION_NOT_LOADED =
  "This epic's description is not downloaded yet, so it cannot be edited: it comes when the epic is opened online, or with the next sync."

/** A partial doc (stored from the v3 list, its text not downloaded yet): the user is told why it cannot be edited. */
export const DOC_NOT_LOADED = "This doc's text is not downloaded yet, so it cannot be edited: it comes when the doc is opened online, or with the next sync."

/**
 * A write refused before it was queued: read-only token, unknown entity, a field the API does not take, a field whose
 * value is not downloaded yet, or a file that cannot be read.
 */
export class WriteRefused extends Error {
  override readonly name = 'WriteRefused'
  constructor(
    readonly reason: 'read-only' | 'not-found' | 'invalid' | 'unreadable' | 'not-loaded',
    message: string,
  ) {
    super(message)
  }
}

export interface ActionsOptions {
  db: OutpostDb
  /** Only `stage` (copy a dropped file somewhere durable) and `discard` are used here. */
  transport: Pick<Transport, 'stage' | 'discard'>
  /** False for a read-only token: every write is refused at once. */
  canWrite?: boolean | (() => boolean)
  clock?: () => number
  uuid?: () => string
  /**
   * A write found storage full: room can be made meanwhile. `kept`: the change is kept in the journal, made once
   * there is room, and the action answered as saved (the user is to be told); else it threw StorageFullError.
   */
  onStorageFull?: (kept: boolean) => void
  /** The main side's journal of queued changes (outbox/journal.ts): every write is on disk there before it shows as saved. */
  journal?: OutboxJournal
  /**
   * Settles before each write (the data layer's `restore`: what a lost cache had queued, back from the journal), so
   * that a change made at start is queued after the earlier ones it brings back. Failed, or still waiting after
   * READY_WAIT_MS (for the outbox lock, held by another window's replay), the write goes on.
   */
  ready?: () => Promise<unknown>
  /**
   * A change was queued (or a queued one changed: retried, resolved) and its transaction has committed: told at once,
   * so the replay starts by itself (the data layer's `queued`). Not told of a write that was refused.
   */
  onQueued?: () => void
}

/** What the user sets on an epic (archiving has actions of its own); objectives and labels may be ones made offline. */
export type EpicFields = Partial<Omit<Pick<CachedEpic, EditableEpicField>, 'archived' | 'objective_ids' | 'label_ids'>> & {
  objective_ids?: EntityId[]
  /** Labels by id; a label made offline (createLabel) by its local id until the service has it. */
  label_ids?: EntityId[]
}

export interface DocFields {
  title?: string
  content_markdown?: string
}

export interface FileFields {
  name?: string
  description?: string | null
}

export type LinkedFileFields = Partial<Pick<CachedLinkedFile, 'name' | 'type' | 'url' | 'description' | 'content_type' | 'size' | 'thumbnail_url'>>
/** What a linked file's update may change (outbox/kinds.ts UPDATABLE). */
export type LinkedFileUpdate = Partial<Pick<CachedLinkedFile, 'name' | 'type' | 'url' | 'description'>>

export interface CategoryFields {
  name?: string
  color?: string | null
  archived?: boolean
}

export interface ObjectiveFields {
  name?: string
  description?: string
  state?: CachedObjective['state']
  archived?: boolean
  category_ids?: EntityId[]
}

export interface LabelFields {
  name: string
  /** `#rrggbb`. */
  color?: string | null
}

export type Actions = ReturnType<typeof outboxActions>

/** How long a write waits for `ready` at most: the user's save is not held up for long. */
const READY_WAIT_MS = 3000

const settledWithin = (task: Promise<unknown>, ms: number): Promise<void> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))
  return Promise.race([
    task.then(
      () => undefined,
      () => undefined,
    ),
    waited,
  ]).finally(() => clearTimeout(timer))
}

export function outboxActions(options: ActionsOptions) {
  const { db, transport } = options
  const clock = options.clock ?? Date.now
  const uuid = options.uuid ?? (() => crypto.randomUUID())

  const guard = () => {
    const canWrite = typeof options.canWrite === 'function' ? options.canWrite() : (options.canWrite ?? true)
    if (!canWrite) throw new WriteRefused('read-only', READ_ONLY_MESSAGE)
  }

  /** A queued record made ready to go again (retried, a conflict resolved): the replay is told once it has committed. */
  const requeued = async <T>(run: () => Promise<T>): Promise<T> => {
    const result = await saving(run)
    options.onQueued?.()
    return result
  }

  /** A change to a queued record (retry, discard, a conflict's choices) in one transaction: storage full, nothing of it was written, and the screen says why. */
  const saving = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (!isQuotaError(error)) throw error
      options.onStorageFull?.(false)
      throw new StorageFullError(WRITE_NOT_SAVED_MESSAGE, { cause: error })
    }
  }

  /**
   * Runs one action's transaction; staged bytes of records it made pointless go afterwards, and their journal
   * entries. Refused for want of storage, the change stays in the journal (kept) and is made once there is room:
   * the action answers as saved and the user is told (onStorageFull). Kept nowhere (no journal, or the journal
   * refused too), nothing of it is written, and the screen keeps what was typed and says why.
   */
  const write = async <T>(run: () => Promise<{ result: T; enqueued?: Enqueued }>, tables?: Table[]): Promise<T> => {
    guard()
    if (options.ready) await settledWithin(options.ready(), READY_WAIT_MS)
    // What the transaction made of the change before its commit was refused (a browser refuses at the commit).
    let ran = undefined as { result: T } | undefined
    try {
      const { result, enqueued } = await journaledTransaction(
        db,
        options.journal,
        async (journaled, done) => {
          const out = await run()
          // Entries left with nothing to send: the records the change made pointless (a create deleted before it went),
          // and its own when it cancelled out. Confirmed once the cache has committed: kept in the journal instead, the
          // change cancels them again when it is queued; lost with the cache meanwhile, they come back with it.
          if (out.enqueued) done.push(...journalIdsOf(out.enqueued.removed), ...(out.enqueued.seq === undefined ? journaled : []))
          ran = out
          return out
        },
        // Kept only whole: refused before the transaction had made all of the change, it is not made at all.
        { keep: (error) => isQuotaError(error) && ran !== undefined, tables },
      )
      if (enqueued?.seq !== undefined) options.onQueued?.()
      for (const r of enqueued?.removed ?? []) if (r.staged) await transport.discard(r.staged.path).catch(() => undefined)
      return result
    } catch (error) {
      if (!isQuotaError(error)) throw error
      if (error instanceof KeptInJournal && ran) {
        options.onStorageFull?.(true)
        return ran.result
      }
      options.onStorageFull?.(false)
      throw new StorageFullError(WRITE_NOT_SAVED_MESSAGE, { cause: error })
    }
  }

  /** Inside a write's transaction: the change journaled (on disk) and queued. */
  const queue = async (rec: NewRecord, now: number): Promise<Enqueued> => {
    if (!options.journal) return enqueue(db, rec, now)
    return enqueue(db, rec, now, await journalInside(db, options.journal, [journalRecordOf(rec)]))
  }

  const id = async (kind: EntityKind, value: EntityId) => String(await resolveId(db, kind, value))
  const ids = async (kind: EntityKind, values: EntityId[] | undefined) =>
    values === undefined ? undefined : Promise.all(values.map((v) => resolveId(db, kind, v)))

  const requireOne = async <T>(kind: EntityKind, entityId: string, what: string): Promise<T> => {
    const row = await mergedOne<T>(db, kind, entityId)
    if (!row) throw new WriteRefused('not-found', `${what} ${entityId} is not in the cache (deleted, or not synced yet).`)
    return row
  }

  const create = async (kind: WritableKind, payload: Record<string, unknown>, more: Partial<NewRecord> = {}) => {
    const uid = uuid()
    const localId = newLocalId(() => uid)
    const enqueued = await queue({ kind, entityId: localId, op: 'create', payload: defined(payload), externalId: `outpost-${uid}`, ...more }, clock())
    return { result: localId, enqueued }
  }

  /**
   * What an update reads and writes: its entity's table, the overlay, the outbox, and `meta` (local ids, the journal's
   * mark). Its transaction keeps to them: the sync's writes of other tables, and reads of them, do not hold it back.
   */
  const updateTables = (kind: WritableKind): Table[] => [tableOf(db, kind), db.overlay, db.outbox, db.meta]

  /** An update action: its fields (or what makes them, inside the transaction) queued in a write kept to its tables. */
  const updating = <F extends object>(kind: WritableKind, rawId: EntityId, fields: F | (() => Promise<F>), what: string) =>
    write(async () => update(kind, rawId, typeof fields === 'function' ? await fields() : fields, what), updateTables(kind))

  /** Queues the fields that differ from what the user sees now; their current values are the record's base. */
  const update = async (kind: WritableKind, rawId: EntityId, fields: object, what: string, params?: NewRecord['params']) => {
    const entityId = await id(kind, rawId)
    const current = await requireOne<Record<string, unknown>>(kind, entityId, what)
    const payload: Record<string, unknown> = {}
    const base: Record<string, unknown> = {}
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined) continue
      if (!UPDATABLE[kind].includes(field)) throw new WriteRefused('invalid', `${what}s have no field "${field}" that can be changed.`)
      // What the service holds is not known here: written over, it would replace text the user never saw, and the
      // write's base (what the user started from) could not be told from someone else's change.
      if (current.partial === true && field === 'description') throw new WriteRefused('not-loaded', DESCRIPTION_NOT_LOADED)
      // A doc's title goes with its text (the editor saves both), and its version is not known either.
      if (current.partial === true && kind === 'doc') throw new WriteRefused('not-loaded', DOC_NOT_LOADED)
      if (sameValue(current[field], value)) continue
      payload[field] = plain(value)
      base[field] = current[field] ?? null
    }
    if (Object.keys(payload).length === 0) return { result: undefined }
    const server = isLocalId(entityId) ? undefined : await tableOf(db, kind).get(tableKey(kind, entityId) as never)
    const baseUpdatedAt = (server as { updated_at?: string } | undefined)?.updated_at
    const enqueued = await queue({ kind, entityId, op: 'update', payload, base, params, baseUpdatedAt }, clock())
    return { result: undefined, enqueued }
  }

  const remove = async (kind: WritableKind, rawId: EntityId, what: string, params?: NewRecord['params']) => {
    const entityId = await id(kind, rawId)
    await requireOne(kind, entityId, what)
    const enqueued = await queue({ kind, entityId, op: 'delete', payload: {}, params }, clock())
    return { result: undefined, enqueued }
  }

  const epicFields = async (fields: EpicFields) => ({
    ...fields,
    objective_ids: await ids('objective', fields.objective_ids),
    label_ids: await ids('label', fields.label_ids),
  })
  const objectiveFields = async (fields: ObjectiveFields) => ({ ...fields, category_ids: await ids('category', fields.category_ids) })

  const comment = async (commentId: EntityId) => {
    const entityId = await id('comment', commentId)
    const row = await requireOne<CachedComment>('comment', entityId, 'Comment')
    return { entityId, row }
  }

  return {
    // ---- epics ----
    createEpic: (fields: EpicFields & { name: string }) => write(async () => create('epic', await epicFields(fields))),
    updateEpic: (epicId: EntityId, fields: EpicFields) => updating('epic', epicId, () => epicFields(fields), 'Epic'),
    archiveEpic: (epicId: EntityId) => updating('epic', epicId, { archived: true }, 'Epic'),
    unarchiveEpic: (epicId: EntityId) => updating('epic', epicId, { archived: false }, 'Epic'),
    deleteEpic: (epicId: EntityId) => write(() => remove('epic', epicId, 'Epic')),

    // ---- epic comments ----
    createComment: (epicId: EntityId, text: string) =>
      write(async () => {
        const epic = await id('epic', epicId)
        await requireOne('epic', epic, 'Epic')
        return create('comment', { text }, { params: { epic_id: typedEpic(epic), parent_id: null } })
      }),
    replyToComment: (parentId: EntityId, text: string) =>
      write(async () => {
        const { entityId, row } = await comment(parentId)
        return create('comment', { text }, { params: { epic_id: row.epic_id, parent_id: typedComment(entityId) } })
      }),
    editComment: (commentId: EntityId, text: string) =>
      write(async () => {
        const { entityId, row } = await comment(commentId)
        return update('comment', entityId, { text }, 'Comment', { epic_id: row.epic_id })
      }, updateTables('comment')),
    deleteComment: (commentId: EntityId) =>
      write(async () => {
        const { entityId, row } = await comment(commentId)
        return remove('comment', entityId, 'Comment', { epic_id: row.epic_id })
      }),

    // ---- epic health ----
    setEpicHealth: (epicId: EntityId, health: { status: CachedHealth['status']; text?: string }) =>
      write(async () => {
        const epic = await id('epic', epicId)
        await requireOne('epic', epic, 'Epic')
        return create('health', { status: health.status, text: health.text ?? '' }, { params: { epic_id: typedEpic(epic) } })
      }),

    // ---- docs and their epics ----
    createDoc: (fields: DocFields & { title: string }) => write(() => create('doc', { content_markdown: '', ...fields })),
    updateDoc: (docId: EntityId, fields: DocFields) => updating('doc', docId, fields, 'Doc'),
    deleteDoc: (docId: EntityId) => write(() => remove('doc', docId, 'Doc')),
    linkDocToEpic: (docId: EntityId, epicId: EntityId) =>
      write(async () => {
        const doc = await id('doc', docId)
        const epic = await id('epic', epicId)
        await requireOne('doc', doc, 'Doc')
        await requireOne('epic', epic, 'Epic')
        const entityId = linkId(doc, epic)
        if (await mergedOne<CachedDocEpic>(db, 'docEpic', entityId)) return { result: undefined }
        const params = { doc_id: doc, epic_id: typedEpic(epic) }
        const enqueued = await queue({ kind: 'docEpic', entityId, op: 'create', payload: {}, params }, clock())
        return { result: undefined, enqueued }
      }),
    unlinkDocFromEpic: (docId: EntityId, epicId: EntityId) =>
      write(async () => {
        const doc = await id('doc', docId)
        const epic = await id('epic', epicId)
        const entityId = linkId(doc, epic)
        if (!(await mergedOne<CachedDocEpic>(db, 'docEpic', entityId))) return { result: undefined }
        const params = { doc_id: doc, epic_id: typedEpic(epic) }
        const enqueued = await queue({ kind: 'docEpic', entityId, op: 'delete', payload: {}, params }, clock())
        return { result: undefined, enqueued }
      }),

    // ---- files ----
    /** Copies the file into durable staging first (it may move or vanish before the upload goes), then queues it. */
    uploadFile: async (file: FileOnDisk, fields: { description?: string } = {}) => {
      guard()
      let staged: Awaited<ReturnType<Transport['stage']>>
      try {
        staged = await transport.stage(file)
      } catch (error) {
        // The main side's message names the file, says why and what to do (nothing was queued); the app's own failures go as they are.
        if (error instanceof UnreadableFile) throw new WriteRefused('unreadable', error.message)
        throw error
      }
      try {
        return await write(() =>
          create('file', { name: file.name, size: staged.size, ...defined(fields) }, { staged: { path: staged.path, name: file.name, size: staged.size } }),
        )
      } catch (error) {
        await transport.discard(staged.path).catch(() => undefined)
        throw error
      }
    },
    updateFile: (fileId: EntityId, fields: FileFields) => updating('file', fileId, fields, 'File'),
    deleteFile: (fileId: EntityId) => write(() => remove('file', fileId, 'File')),

    // ---- linked files ----
    createLinkedFile: (fields: LinkedFileFields & Pick<CachedLinkedFile, 'name' | 'type' | 'url'>) => write(() => create('linkedFile', { ...fields })),
    updateLinkedFile: (linkedFileId: EntityId, fields: LinkedFileUpdate) => updating('linkedFile', linkedFileId, fields, 'Linked file'),
    deleteLinkedFile: (linkedFileId: EntityId) => write(() => remove('linkedFile', linkedFileId, 'Linked file')),

    // ---- categories ----
    createCategory: (fields: CategoryFields & { name: string }) => write(() => create('category', { ...fields })),
    updateCategory: (categoryId: EntityId, fields: CategoryFields) => updating('category', categoryId, fields, 'Category'),
    deleteCategory: (categoryId: EntityId) => write(() => remove('category', categoryId, 'Category')),

    // ---- objectives ----
    createObjective: (fields: ObjectiveFields & { name: string }) => write(async () => create('objective', await objectiveFields(fields))),
    updateObjective: (objectiveId: EntityId, fields: ObjectiveFields) => updating('objective', objectiveId, () => objectiveFields(fields), 'Objective'),
    deleteObjective: (objectiveId: EntityId) => write(() => remove('objective', objectiveId, 'Objective')),

    // ---- labels ----
    /**
     * Makes a label by name (offline too): answers its local id, which epic creates and updates take in
     * label_ids at once; they wait for the label and go with its service id. Names are unique: one the
     * cache already knows is refused here, one only the service knows fails the create with its message.
     */
    createLabel: (fields: LabelFields) =>
      write(async () => {
        const name = fields.name.trim()
        if (!name) throw new WriteRefused('invalid', 'A label needs a name.')
        const known = await merged<CachedLabel>(db, 'label', { filter: (l) => l.name === name })
        if (known.length > 0) throw new WriteRefused('invalid', `A label named "${name}" already exists; pick it instead.`)
        return create('label', { name, color: fields.color ?? null })
      }),

    // ---- the outbox itself: fix and retry, discard, resolve ----
    retry: (seq: number, editedPayload?: Record<string, unknown>) => {
      guard()
      return requeued(() => retryRecord(db, seq, editedPayload, clock, options.journal))
    },
    discard: (seq: number) => saving(() => discardRecord(db, seq, { transport, clock, journal: options.journal })),
    resolveConflict: (seq: number, choices: Record<string, ConflictChoice> | 'mine' | 'theirs') => {
      guard()
      return requeued(() => resolveConflict(db, seq, choices, { clock, uuid, journal: options.journal }))
    },
  }
}

const typedEpic = (id: string): EntityId => (isLocalId(id) ? id : Number(id))

const typedComment = typedEpic

function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, plain(v)]),
  )
}

/**
 * A plain copy of a value the UI handed in: IndexedDB cannot store reactive
 * proxies (Svelte's $state arrays), and a queued write must not change when the
 * UI's state does. Payloads are JSON-bound anyway: they go to the service as JSON.
 */
function plain<T>(value: T): T {
  return value !== null && typeof value === 'object' ? (JSON.parse(JSON.stringify(value)) as T) : value
}
