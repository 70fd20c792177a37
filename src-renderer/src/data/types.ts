// Shapes of the offline cache. Entities are kept in one normalised form per
// kind (ids, not objects: close to the v3 shapes), whichever API version the
// sync engine read them from. `id` of an entity created offline and not yet
// confirmed is a local id: `local:<uuid>` (see overlay.ts).
import type { EpicField, EpicValues } from './epic-fields.ts'

export type EntityKind =
  | 'epic'
  | 'comment'
  | 'health'
  | 'doc'
  | 'docEpic'
  | 'file'
  | 'linkedFile'
  | 'category'
  | 'objective'
  | 'group'
  | 'member'
  | 'epicState'
  | 'customField'
  | 'label'

/** An id as the service gives it (int or uuid), or a local one for an unconfirmed create. */
export type EntityId = number | string

/** An epic as the cache keeps it: its fields are written once, in epic-fields.ts. */
export type CachedEpic = Pick<EpicValues, EpicField> & {
  id: EntityId
  /**
   * Its stories' progress, from the `stats` of a v3 epic (every v3 list and GET carries them). The v4
   * pages have none: an epic they bring keeps the cached progress, or takes it from the v3 list of the
   * same run. Absent until a v3 answer gave it (an epic created offline, one whose list has not come).
   */
  progress?: StoryProgress
  /**
   * Stored from the v3 list of every epic early in a bootstrap, so that the list shows every epic at once:
   * every field but the description, and none of its comments and health, which the bootstrap's v4 pages
   * bring (sync/walk.ts). Absent on a whole epic.
   */
  partial?: true
}

export type CachedComment = {
  id: EntityId
  epic_id: EntityId
  parent_id: EntityId | null
  author_id: string | null
  text: string
  deleted: boolean
  external_id: string | null
  created_at: string
  updated_at: string
  /**
   * Known only from the slim reference an epic list carries (id, text, deleted):
   * author, thread (parent_id) and times come when the epic is opened (sync's refreshEpic).
   */
  slim?: boolean
}

export type CachedHealth = {
  id: EntityId
  epic_id: EntityId
  status: 'At Risk' | 'No Health' | 'Off Track' | 'On Track'
  text: string
  author_id: string | null
  created_at: string
  updated_at: string
  /** Known only from the slim reference an epic list carries (status, times): text and author come with refreshEpic. */
  slim?: boolean
}

export type CachedDoc = {
  id: EntityId
  title: string
  content_markdown: string
  content_html: string
  archived: boolean
  creator_id: string | null
  created_at: string
  updated_at: string
  /**
   * Stored from the bootstrap's v3 list of every doc, which names only its id and title: its content, its
   * version (`updated_at` and `created_at` are ''), whether it is archived and who wrote it are not known
   * until a v4 page, or the doc opened online, completes it. Absent on a whole doc.
   */
  partial?: true
}

export interface CachedDocEpic {
  doc_id: EntityId
  epic_id: EntityId
}

export type CachedFile = {
  id: EntityId
  name: string
  description: string | null
  content_type: string
  size: number
  url: string
  thumbnail_url: string | null
  story_ids: number[]
  uploader_id: string | null
  external_id: string | null
  created_at: string
  updated_at: string
}

/** Downloaded file bytes live on disk in the main side's cache folder; this row tracks them for LRU eviction. */
export interface CachedFileContent {
  id: EntityId
  path: string
  size: number
  contentType: string
  lastUsedAt: number
}

export type CachedLinkedFile = {
  id: EntityId
  name: string
  type: 'box' | 'dropbox' | 'google' | 'onedrive' | 'url'
  url: string
  description: string | null
  content_type: string | null
  size: number | null
  thumbnail_url: string | null
  uploader_id: string | null
  created_at: string
  updated_at: string
}

export type CachedCategory = {
  id: EntityId
  name: string
  color: string | null
  archived: boolean
  external_id: string | null
  created_at: string
  updated_at: string
}

export type CachedObjective = {
  id: EntityId
  name: string
  description: string
  state: 'done' | 'in progress' | 'to do'
  archived: boolean
  category_ids: number[]
  started: boolean
  completed: boolean
  position: number
  app_url: string
  created_at: string
  updated_at: string
}

export interface CachedGroup {
  id: EntityId
  name: string
  mention_name: string
  description: string
  color: string | null
  color_key: string | null
  archived: boolean
  member_ids: string[]
}

export interface CachedMember {
  id: EntityId
  name: string
  mention_name: string
  email_address: string
  role: string
  disabled: boolean
}

/** A story of an epic, as its epic's story list gives it (read-only: the API has no story writes). */
export interface CachedStory {
  id: EntityId
  epic_id: EntityId
  name: string
  story_type: string
  workflow_state_id: number
  started: boolean
  completed: boolean
  archived: boolean
  estimate: number | null
  owner_ids: string[]
  position: number
  app_url: string
  updated_at: string
}

/** When an epic's stories were last fetched, and what the epic said then (to know when they may have changed). */
export interface CachedStoryList {
  epic_id: EntityId
  /** Client clock, ms. */
  fetchedAt: number
  /** The epic's updated_at when they were fetched. */
  epicUpdatedAt: string
  /** The epic's stats.last_story_update when they were fetched (null: no story ever changed). */
  lastStoryUpdate: string | null
}

/**
 * An epic's progress as its `stats` give it: stories and points done, started and not started
 * (backlog included). The service computes it from the stories; no write of the epic changes it.
 */
export interface StoryProgress {
  done: number
  started: number
  unstarted: number
  total: number
  points_done: number
  points_started: number
  points_unstarted: number
  points_total: number
  last_story_update: string | null
}

export interface CachedEpicState {
  id: EntityId
  name: string
  type: string
  color: string | null
  description: string
  position: number
}

export interface CachedCustomField {
  id: EntityId
  name: string
  field_type: string
  enabled: boolean
  values: { id: string; value: string; color_key: string | null; enabled: boolean; position: number }[]
}

export type CachedLabel = {
  id: EntityId
  name: string
  color: string | null
  archived: boolean
}

/**
 * Local, not-yet-confirmed state of one entity: the fields changed by queued
 * writes (`patch`), or a whole entity created offline, or a deletion.
 */
export interface OverlayRow {
  kind: EntityKind
  /** String(id): overlay keys are strings so int and uuid ids share one index. */
  id: string
  patch: Record<string, unknown>
  created: boolean
  deleted: boolean
  updatedAt: number
}

export type OutboxState = 'pending' | 'in-flight' | 'failed' | 'conflict'

/** What a queued write does to its entity (a doc-epic link is a `create`, an unlink a `delete`). */
export type OutboxOp = 'create' | 'update' | 'delete'

/** Why the service refused a queued write (a 4xx), as the user is shown it. */
export interface OutboxError {
  message: string
  status?: number
  tag?: string
  /** Per-field reasons, keyed by the field names of the record's payload where they could be mapped. */
  errors?: Record<string, string>
}

/** One field changed both here and on the service since the write was queued. */
export interface FieldConflict {
  base: unknown
  mine: unknown
  theirs: unknown
}

export interface OutboxConflict {
  /** The fields both sides changed, each with base, mine and theirs. */
  fields: Record<string, FieldConflict>
  /** The entity was deleted on the service (a 404 on update). */
  deletedElsewhere?: boolean
  /** The service's updated_at when the conflict was found. */
  theirsUpdatedAt?: string
  at: number
}

/** The bytes of a queued upload, copied into the app's durable staging folder when it was queued. */
export interface StagedFile {
  path: string
  name: string
  size: number
}

/** One queued write. The outbox module owns its details (see outbox/). */
export interface OutboxRecord {
  seq?: number
  kind: EntityKind
  /** String(id) of the entity it writes (a local id for creates). */
  entityId: string
  op: string
  payload: Record<string, unknown>
  /** The server values of the fields this write changes, as they were when it was queued. */
  base: Record<string, unknown>
  state: OutboxState
  attempts: number
  createdAt: number
  updatedAt: number
  /** Where the entity lives when its path needs more than its id (a comment's epic_id; a link's doc_id and epic_id). */
  params?: Record<string, EntityId | null>
  /** Creates: the client-generated external_id (sent where the API takes one) that finds a create whose answer was lost. */
  externalId?: string
  /** The service's updated_at of the entity when the write was queued (conflict checks list what changed since). */
  baseUpdatedAt?: string
  /** When it first went in flight (client clock): a create found again without an external_id must be younger. */
  sentAt?: number
  /** Set when state is `failed`. */
  error?: OutboxError
  /** Set when state is `conflict`. */
  conflict?: OutboxConflict
  /** File uploads: the staged copy of the bytes. */
  staged?: StagedFile
  /** The ids of the outbox journal's entries this record holds (one per write merged into it; outbox/journal.ts). */
  journal?: number[]
  /** Journaled again (fixed, resolved): where among the journal's entries it was first (outbox/journal.ts). */
  journalOrder?: number
  /**
   * A create in flight whose answer the journal heard and the cache could not keep: the id it became. Replay's look
   * takes that entity; until it is confirmed, what names the create waits for it as for any create.
   */
  became?: EntityId
  [extra: string]: unknown
}

/** Sync progress of one kind of data. */
export interface Checkpoint {
  kind: string
  [field: string]: unknown
}

/** An epic's version as a notice keeps it (data/notices.ts): what a notification speaks of, the description as a digest. */
export type NoticedEpic = Pick<
  CachedEpic,
  'id' | 'name' | 'epic_state_id' | 'archived' | 'deadline' | 'planned_start_date' | 'owner_ids' | 'follower_ids' | 'updated_at' | 'description'
>

/**
 * An epic a sync found changed on the service, as the cache held it and as the sync wrote it (in the
 * transaction that wrote it): what the notifications tell (features/notify). Only a sync after the
 * bootstrap writes them. Every window of the workspace lists it; the one that marks it `told` first
 * shows the system's notification.
 */
export interface EpicNotice {
  seq?: number
  before: NoticedEpic
  after: NoticedEpic
  /** When the sync wrote it (ms). */
  at: number
  told?: true
}

export interface MetaRow {
  key: string
  value: unknown
}
