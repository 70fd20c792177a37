// The current workspace, as the feature screens (epics, docs, files, browse)
// see it. The shell (src-renderer/src/app/) opens the workspace's database,
// starts sync and replay, and hands it down with `setWorkspace(...)` once, in
// the component that renders the screens; screens call `getWorkspace()`.
//
// The object is read at use time (never destructured once), so the shell may
// give a class with `$state` fields (online, canWrite, account...) and screens
// follow its changes. When the user switches workspace the shell re-mounts the
// screens under a `{#key account.id}` with a new object. Routes are the
// shell's (lib/router.svelte.ts): screens read `router.route` and `router.go`.
//
// What the screens count on from the shell, besides this object:
// - `<FileDropZone />` (features/files/) mounted once at the root, inside this
//   context: it covers the window while files are dragged over it and queues
//   the dropped files. (The Files screen mounts one too; only the first
//   mounted listens.) `<UploadTray />` (features/files/), docked under the
//   screen, shows each upload's progress.
// - Writes sent soon after they are made while online: the actions only queue
//   them, and main's 'replay-now' comes on reconnect, focus and a timer; the
//   shell replays when the outbox grows (a short debounce is enough).
// - Upload progress per file: replay's transport wrapped with
//   `withUploadProgress` (features/files/uploads.svelte.ts); without it the
//   screens fall back to the main side's 'upload-progress' events.
// - Optional `files.open` / `files.read` (below): without them a file "opens"
//   by being downloaded into the file cache, and only images dropped in this
//   session get thumbnails.
// - Routes `#/epics/new` and `#/docs/new` open the new-epic dialog and the new
//   doc editor (for the palette's "New epic" / "New doc").
import { getContext, hasContext, setContext } from 'svelte'
import type { AccountInfo } from '../../../src-shared/ipc.ts'
import type { Actions } from '../data/actions.ts'
import type { OutpostDb } from '../data/db.ts'
import type { CachedFile, CachedFileContent } from '../data/types.ts'
import type { Syncer } from '../data/sync/index.ts'
import type { Transport } from '../data/transport.ts'
import type { LocalSearch } from '../data/search/index.ts'

/**
 * What the screens use of the data layer (data/data-layer.ts `DataLayer`, or a
 * data/sync `Syncer`): a fresh copy
 * of what the user opens. Each is best-effort: the screen keeps showing the
 * cache, and says so, when it fails or when offline.
 */
export type WorkspaceSync = Partial<Pick<Syncer, 'refreshEpic' | 'refreshEpicStories' | 'refreshDoc' | 'openFile'>>

/**
 * What the shell can do with a file's downloaded content (the bytes live on
 * the main side's disk, in its file cache). Both are optional: without them
 * the Files screen shows where the content is and no thumbnails.
 */
export interface WorkspaceFiles {
  /**
   * Opens the downloaded content with the OS's default app; answers what to tell the person when it was
   * shown in its folder instead (a type that could run as a program).
   */
  open?(content: CachedFileContent, file: CachedFile): Promise<string | undefined>
  /** The downloaded content's bytes (image thumbnails and previews, as blob: URLs under the CSP). */
  read?(content: CachedFileContent): Promise<Blob>
}

export interface Workspace {
  db: OutpostDb
  /**
   * Every write goes through the data layer's actions (data/actions.ts):
   * optimistic in the overlay and queued in the outbox. With a read-only token
   * they refuse at once (WriteRefused 'read-only').
   */
  actions: Actions
  transport: Transport
  account: AccountInfo
  /** False for read-only tokens and observers: screens hide or disable editing and say why. */
  canWrite: boolean
  /** Connectivity as main reports it; undefined means "not known yet" (treat as online). */
  online?: boolean
  sync?: WorkspaceSync
  files?: WorkspaceFiles
  /** The local full-text index (data/search), when the shell started one: list searches use it. */
  search?: LocalSearch
}

const KEY = Symbol('outpost.workspace')

export function setWorkspace<W extends Workspace>(workspace: W): W {
  return setContext(KEY, workspace)
}

export function getWorkspace(): Workspace {
  const workspace = getContext<Workspace | undefined>(KEY)
  if (!workspace) throw new Error('Outpost: a screen was rendered outside a workspace (setWorkspace was not called above it).')
  return workspace
}

export function hasWorkspace(): boolean {
  return hasContext(KEY)
}
