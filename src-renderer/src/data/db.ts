// The offline cache: one IndexedDB database per workspace (Dexie 4).
// Server state lives in the entity tables exactly as last confirmed by the
// service; local, not-yet-confirmed changes live in `overlay`, and the UI reads
// the merge (see overlay.ts). The outbox holds the queued writes that replay
// turns into requests; checkpoints and meta hold sync progress.
import Dexie, { type EntityTable, type Table } from 'dexie'
import type {
  CachedCategory,
  CachedComment,
  CachedCustomField,
  CachedDoc,
  CachedDocEpic,
  CachedEpic,
  CachedEpicState,
  CachedFile,
  CachedFileContent,
  CachedGroup,
  CachedHealth,
  CachedLabel,
  CachedLinkedFile,
  CachedMember,
  CachedObjective,
  CachedStory,
  CachedStoryList,
  Checkpoint,
  EntityId,
  EntityKind,
  StoryProgress,
  EpicNotice,
  MetaRow,
  OutboxRecord,
  OverlayRow,
} from './types.ts'

export class OutpostDb extends Dexie {
  epics!: EntityTable<CachedEpic, 'id'>
  epicComments!: EntityTable<CachedComment, 'id'>
  epicHealth!: EntityTable<CachedHealth, 'id'>
  docs!: EntityTable<CachedDoc, 'id'>
  docEpics!: Table<CachedDocEpic, [string, number]>
  files!: EntityTable<CachedFile, 'id'>
  fileContents!: EntityTable<CachedFileContent, 'id'>
  linkedFiles!: EntityTable<CachedLinkedFile, 'id'>
  categories!: EntityTable<CachedCategory, 'id'>
  objectives!: EntityTable<CachedObjective, 'id'>
  groups!: EntityTable<CachedGroup, 'id'>
  members!: EntityTable<CachedMember, 'id'>
  epicStates!: EntityTable<CachedEpicState, 'id'>
  customFields!: EntityTable<CachedCustomField, 'id'>
  labels!: EntityTable<CachedLabel, 'id'>
  stories!: EntityTable<CachedStory, 'id'>
  storyLists!: EntityTable<CachedStoryList, 'epic_id'>
  overlay!: Table<OverlayRow, [EntityKind, string]>
  outbox!: EntityTable<OutboxRecord, 'seq'>
  checkpoints!: EntityTable<Checkpoint, 'kind'>
  meta!: EntityTable<MetaRow, 'key'>
  epicNotices!: EntityTable<EpicNotice, 'seq'>

  constructor(name: string, options?: ConstructorParameters<typeof Dexie>[1]) {
    // Dexie's live-query cache hands each subscriber a deep copy of every answer
    // ('cloned'): for the epic list that is 10,000 objects copied on the main
    // thread each time a sync page lands, a third of the task. Without it a live
    // query reads IndexedDB again instead, which hands over fresh objects anyway.
    super(name, { cache: 'disabled', ...options })
    // Version 1. Later versions add `.version(2).stores({...}).upgrade(tx => ...)`
    // below this one; a shipped version is never edited.
    this.version(1).stores({
      epics: 'id, updated_at, archived, epic_state_id, external_id, *owner_ids, *group_ids, *objective_ids, *label_ids',
      epicComments: 'id, epic_id, parent_id, updated_at',
      epicHealth: 'id, epic_id, created_at',
      docs: 'id, updated_at, archived',
      docEpics: '[doc_id+epic_id], doc_id, epic_id',
      files: 'id, updated_at',
      fileContents: 'id, lastUsedAt',
      linkedFiles: 'id, updated_at',
      categories: 'id, name',
      objectives: 'id, updated_at',
      groups: 'id, name',
      members: 'id',
      epicStates: 'id, position',
      customFields: 'id',
      labels: 'id, name',
      overlay: '[kind+id], kind',
      outbox: '++seq, state, [kind+entityId], createdAt',
      checkpoints: 'kind',
      meta: 'key',
    })
    // Version 2: an epic's stories (fetched when it is opened or followed), when they were
    // fetched, and each epic's progress from its stats. New tables only: nothing to migrate; the
    // progress fills with the next epic id sweep (or the epic's opening).
    this.version(2).stores({
      stories: 'id, epic_id',
      storyLists: 'epic_id, fetchedAt',
      epicProgress: 'id',
    })
    // Version 3: the epics' indexes that no read uses go. Each cost every write of an epic its index
    // entries (its owners, teams and labels one each): a bootstrap writes 10,000 epics, and the cache's
    // writes are the slowest part of it.
    this.version(3).stores({
      epics: 'id, updated_at, *objective_ids',
    })
    // Version 4: each epic's progress moves into its row, and its table goes. A bootstrap wrote 10,000
    // rows of progress of their own, beside the 10,000 epics, and the window read them again: IndexedDB's
    // cost is mostly per row. The progress held is kept.
    this.version(4)
      .stores({ epicProgress: null })
      .upgrade(async (tx) => {
        const held = new Map<EntityId, StoryProgress>()
        await tx.table<StoryProgress & { id: EntityId }>('epicProgress').each(({ id, ...progress }) => void held.set(id, progress))
        if (held.size === 0) return
        await tx
          .table<CachedEpic>('epics')
          .toCollection()
          .modify((epic) => {
            const progress = held.get(epic.id)
            if (progress) epic.progress = progress
          })
      })
    // Version 5: the epics a sync found changed on the service, each as it was and as it is now, written
    // with the rows: what notifications tell. A window that compared the lists it was handed could take
    // a change for its starting point when its first list came after the change was stored.
    this.version(5).stores({
      epicNotices: '++seq',
    })
  }
}

/** One database per workspace: base URL and workspace slug name it. */
export function databaseName(baseUrl: string, workspaceSlug: string): string {
  return `outpost:${new URL(baseUrl).origin}:${workspaceSlug}`
}

export function openWorkspaceDb(baseUrl: string, workspaceSlug: string, options?: ConstructorParameters<typeof Dexie>[1]): OutpostDb {
  return new OutpostDb(databaseName(baseUrl, workspaceSlug), options)
}
