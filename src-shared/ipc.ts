// The one IPC contract between the renderer and the main side, imported by
// main, preload, renderer and the browser host. Two type maps: request
// channels (the renderer asks, main answers with a promise) and event
// channels (main tells the renderer). Every channel carries the `outpost:`
// prefix, so the preload and the main side can refuse anything else.
//
// Answers travel as an `IpcResult` envelope rather than as thrown errors:
// Electron's `ipcMain.handle` and `contextBridge` keep only an error's
// message, and the renderer needs the kind (offline? read-only token? outcome
// unknown?) to decide what to do with a queued write.

import type { Lane, OperationFailure, OperationName, OperationRequest } from './api/operations.ts'

export const CHANNEL_PREFIX = 'outpost:'

// ---------------------------------------------------------------------------
// Shapes carried by the channels

/** Everything that can go wrong while adding or using a workspace account. */
export type AccountErrorKind =
  /** Not a web address at all, or one we cannot use (credentials, query). */
  | 'bad-url'
  /** http:// to another machine: the token would cross the network in clear. */
  | 'insecure-url'
  | 'missing-token'
  /** DNS, refused connection, TLS failure, timeout. */
  | 'unreachable'
  /** 401: the token is wrong, disabled, or of the wrong generation. */
  | 'bad-token'
  /** Something answered, but not like the work-tracking service. */
  | 'unexpected-answer'
  | 'unknown-account'
  /** The account is known but its token is gone from the secret store. */
  | 'token-missing'

/** Where API tokens live: the OS keychain, or files encrypted with Electron's safeStorage. */
export type SecretStoreKind = 'keychain' | 'safe-storage'

/** What the app shows about the store in use (never the secrets themselves). */
export interface SecretStoreDescription {
  kind: SecretStoreKind
  /** Linux safeStorage backend (`gnome_libsecret`, `kwallet5`, `basic_text`, ...). */
  backend?: string
  /** Something the user should know: tokens only obfuscated, keychain missing. */
  warning?: string
}

export type SecretStoreErrorKind = 'unavailable' | 'failed'

/** A workspace the user added (never its token: that stays in the keychain). */
export interface AccountInfo {
  id: string
  baseUrl: string
  workspaceSlug: string
  workspaceName: string
  memberId: string
  memberName: string
  /** `v4` for `svc_` tokens (checked with whoami), `v3` for the older ones. */
  tokenKind: 'v4' | 'v3'
  /** A v4 token's scopes (`read`, `write`), as whoami said when the token was checked; a token's never change. */
  scopes?: string[]
  addedAt: string
}

export interface AddAccountRequest {
  baseUrl: string
  token: string
}

/** Which store keeps the tokens, and what the user should know about it. */
export type SecretStoreInfo = SecretStoreDescription

/**
 * One named operation of the API contract (`epics.update`, `documents.list`,
 * ...) and its request. The renderer never builds a URL: the gateway picks v3
 * or v4, adds the host and the token.
 */
export type ApiCallRequest<N extends OperationName = OperationName> = { operation: N } & OperationRequest<N>

export interface UploadRequest {
  /** Chosen by the renderer, so progress events can be matched before the answer. */
  uploadId: string
  /** Paths on disk, from `getPathForFile` or `files.stage` (at most four per upload). */
  paths: string[]
  /** The name each file is uploaded under (default: the dropped file's own name, also for a staged copy). */
  names?: string[]
  storyId?: number
}

export interface UploadProgress {
  uploadId: string
  bytesSent: number
  bytesTotal: number
}

export interface DownloadRequest {
  downloadId: string
  /** The file's id (v3 files); its content is saved in the app's file cache. */
  fileId: number
  /**
   * The file's content address and name as the files list gave them (the renderer has the row): then nothing
   * more is asked of the service. Without them the main side looks the file up (GET /files/{id}) first.
   */
  known?: { url: string; name: string }
  /** Whose download it is: the user's (user-read, the default) or ahead of use (prefetch, after everything else). */
  lane?: Lane
}

export interface DownloadProgress {
  downloadId: string
  bytesReceived: number
  /** Absent when the server did not say. */
  bytesTotal?: number
}

export interface DownloadResponse {
  /** Where the content was saved, in the app's file cache. */
  path: string
  bytes: number
}

/** A file of the current workspace whose content is (or will be, downloaded first) in the app's file cache. */
export interface CachedFileRequest {
  fileId: number
}

export interface ReadFileRequest extends CachedFileRequest {
  /** Read at most this many bytes (default and ceiling: FILE_READ_MAX_BYTES); a longer file is cut, and says so. */
  maxBytes?: number
}

/** The largest read of a cached file: the service takes uploads of up to 50 MiB. */
export const FILE_READ_MAX_BYTES = 50 * 1024 * 1024

export interface ReadFileResponse {
  /** The content (its first `maxBytes`): a plain Uint8Array, which survives structured clone and the host's socket. */
  bytes: Uint8Array
  /** The whole file's size. */
  size: number
  /** True when `bytes` is only the beginning of the file. */
  truncated: boolean
  /** From the file's name (the service's own type is on its row). */
  contentType: string
}

/**
 * A file the user dropped or picked, to copy into the app's durable staging
 * folder before an upload is queued. In the browser host the page's files are
 * staged by the host already (pathForFile answers with the staged copy), and
 * that path comes back unchanged.
 */
export interface StageRequest {
  path: string
}

export interface StagedFile {
  /** The durable copy, `<staging>/<account>/<uuid>-<safe name>`: uploads take it even after a restart. */
  path: string
  size: number
}

/**
 * The staged copies the current workspace's outbox still names (every queued
 * upload's path): the other copies in its staging folder, left by a crash,
 * are removed once older than a grace period (10 minutes).
 */
export interface SweepStagedRequest {
  keep: string[]
}

/** What clearing the file cache freed. */
export interface EvictCacheResponse {
  /** Files whose content was removed. */
  removed: number
  bytes: number
}

export interface SweepStagedResponse {
  removed: number
  kept: number
}

/**
 * Export: the renderer reads its cache and hands the main side what to write,
 * a part at a time, into a new folder the main side makes for it (in the
 * folder the user picked; in the browser host, which has no folder dialog,
 * under its data folder's `exports/`). Paths are relative to that folder,
 * `/`-separated; the main side makes each part's name safe and refuses `..`.
 */
export interface ExportBegun {
  exportId: string
  /** The new folder everything is written to (absolute). */
  folder: string
}

export interface ExportWriteRequest {
  exportId: string
  /** Relative to the export's folder, `/`-separated, at most EXPORT_PATH_DEPTH parts: `epics/12-Launch.md`. */
  path: string
  text: string
  /** Adds to a file this export wrote before (a long JSON list in parts); otherwise the file must be new. */
  append?: boolean
}

export interface ExportWritten {
  /** The path as written: each part made safe (safe-name.ts), so it may differ from the one asked for. */
  path: string
  /** Bytes the file has now. */
  bytes: number
}

export interface ExportCopyFileRequest {
  exportId: string
  /** A file of the export's workspace: its cached content is copied, never downloaded. */
  fileId: number
  /** Its name as the cache knows it, for the manifest and the copy's name. */
  name: string
}

export type ExportCopied = { included: true; path: string; bytes: number } | { included: false; reason: string }

export interface ExportFinishRequest {
  exportId: string
  /** How many of each kind the export holds (`epics`, `docs`, `comments`, ...). */
  counts: Record<string, number>
  /** What a reader of the export should know (comments whose authors were not loaded, unsent changes...). */
  notes?: string[]
}

/** `manifest.json` at the top of an export. */
export interface ExportManifest {
  format: 'outpost-export'
  version: 1
  exportedAt: string
  workspace: { name: string; slug: string; baseUrl: string }
  counts: Record<string, number>
  files: {
    included: { id: number; name: string; path: string; bytes: number }[]
    notIncluded: { id: number; name: string; reason: string }[]
  }
  /** Every file written but the manifest, with its size. */
  written: { path: string; bytes: number }[]
  notes: string[]
}

export interface ExportFinished {
  folder: string
  manifest: ExportManifest
}

/** The deepest path an export writes (`epics/12-Launch.md` is two parts). */
export const EXPORT_PATH_DEPTH = 3
/** The most text one write carries: a long list goes in parts (`append`). */
export const EXPORT_PART_MAX_CHARS = 16 * 1024 * 1024
export const EXPORT_MANIFEST = 'manifest.json'

export type ConnectivityReason = 'start' | 'os' | 'request' | 'probe'

export interface ConnectivityState {
  online: boolean
  /** What told us last. */
  reason: ConnectivityReason
  /** Epoch ms of the last change. */
  since: number
}

export type ScheduleReason = 'start' | 'reconnect' | 'resume' | 'focus' | 'timer' | 'menu' | 'account'

export interface ScheduleTrigger {
  reason: ScheduleReason
}

export interface ThemeInfo {
  dark: boolean
}

export interface AppInfo {
  name: string
  version: string
  platform: string
  /** `electron` in the desktop app, `browser` in the browser host. */
  shell: 'electron' | 'browser'
  /** Whether `demo.sign-in` can start the local demo service (development builds and the browser host). */
  demoAvailable: boolean
}

/**
 * Where the app's own updates stand. `off`: this build does not update itself (a development build,
 * the browser host); `idle`: no check under way (up to date, or not checked yet); `error`: the last
 * check or download failed (said in Settings only: the next check tries again); `ready`: downloaded,
 * applied by restarting.
 */
export type UpdateStatus = 'off' | 'idle' | 'checking' | 'downloading' | 'ready' | 'error'

export interface UpdateState {
  status: UpdateStatus
  /** Why updates are off. */
  off?: 'development' | 'browser'
  /** The running version. */
  current: string
  /** The version the feed offers (downloading, ready). */
  version?: string
  /** Epoch ms of the last check that got an answer. */
  checkedAt?: number
  /** Download progress, 0 to 100. */
  percent?: number
  /** What went wrong last (status `error`). */
  error?: string
}

/** A problem the renderer saw, kept with the main side's recent log for a problem report. */
export interface LogReport {
  level: 'warning' | 'error'
  message: string
}

/** What only the window knows, for a problem report: its cache's unreadable records and its outbox. */
export interface ProblemReportRequest {
  /** The data problems of the open workspace's cache (data/problems.ts), at most 200. */
  dataProblems: Array<{ table: string; key: string; reason: string; at: number }>
  outbox?: { pending: number; failed: number; conflicts: number }
  /** The browser's user agent (the browser host's Chromium; Electron's own in the app). */
  userAgent?: string
  /**
   * Whether the newest crash dumps go with the report, copied beside it. Off unless the person asks:
   * a crash dump is a copy of the app's memory and can hold a token, which cannot be cut out of it.
   */
  includeCrashDumps?: boolean
}

export interface ProblemReport {
  /** The report file, in the app's data folder. */
  path: string
  /** True when the OS's file manager was asked to show it (the desktop app). */
  shown: boolean
  /** The crash dumps on this computer, and how many of them were copied beside the report. */
  crashDumps: { found: number; included: number }
}

/**
 * A queued change as the outbox journal keeps it (the window's outbox record as it was queued): what
 * replay needs to send it again after the window's storage was lost. Never a token.
 */
export interface JournalRecord {
  kind: string
  entityId: string
  /** A change; or 'void', the mark of a transaction that made the entries in `voids` pointless (outbox/journal.ts). */
  op: 'create' | 'update' | 'delete' | 'void'
  payload: Record<string, unknown>
  base?: Record<string, unknown>
  params?: Record<string, string | number | null>
  externalId?: string
  baseUpdatedAt?: string
  staged?: { path: string; name: string; size: number }
  /** Journaled again (fixed, resolved): the entry it replaces, whose place in the order it keeps. */
  order?: number
  /** op 'void': the entries the transaction made pointless (replaced, discarded, cancelled). */
  voids?: number[]
}

export interface JournalEntry {
  /** Increasing per journal, never reused (compaction keeps counting). */
  id: number
  /** When it was queued (ms). */
  at: number
  record: JournalRecord
  /** Marked as about to be sent (it may be on the service) once entries up to this id had been appended. */
  sentAfter?: number
  /** Kept here only: the cache could not take it (storage full); it is queued again once there is room. */
  kept?: boolean
}

/** What a confirmed create's local id became. */
export interface JournalMapping {
  kind: string
  id: string | number
}

/** An account's journal: what is still open, oldest first. */
export interface JournalState {
  /** The journal's identity: a new journal (or a new cache) does not match the other's record of it. */
  epoch: string
  /** The last id given (entries above it do not exist). */
  lastId: number
  entries: JournalEntry[]
  map: Record<string, JournalMapping>
}

export interface JournalAppendRequest {
  accountId: string
  records: JournalRecord[]
}

export interface JournalIdsRequest {
  accountId: string
  ids: number[]
}

export interface JournalConfirmRequest extends JournalIdsRequest {
  map?: Record<string, JournalMapping>
}

/** Shortcuts and menu items that the renderer carries out. */
export type AppCommand =
  'open-palette' | 'find' | 'new-epic' | 'new-doc' | 'go-epics' | 'go-docs' | 'go-files' | 'go-outbox' | 'open-settings' | 'report-problem'

// ---------------------------------------------------------------------------
// Errors

/**
 * What went wrong, as plain data, by where it happened: the gateway's
 * failures (`network`, `timeout`, `http`, `auth`, `readonly`,
 * `outcome-unknown`, ...) pass through unchanged; adding or using an account
 * and the secret store have their own kinds; `ipc` is the bridge itself (a
 * malformed request, a refused sender, a bug).
 */
export type IpcError =
  | ({ source: 'gateway' } & OperationFailure)
  | { source: 'account'; kind: AccountErrorKind; message: string; status?: number }
  | { source: 'secret-store'; kind: SecretStoreErrorKind; message: string }
  | { source: 'ipc'; kind: IpcFailureKind; message: string }

/**
 * `unsupported`: this build or shell cannot do it (the demo in a packaged
 * app, opening a file with an OS app from the browser host); `cannot-open`:
 * the OS could not open a file (no app for its type); `unreadable`: a dropped
 * file could not be read to stage it (gone, no permission, a folder), the
 * message says which; `cannot-write`: an export's folder could not be
 * written (no permission, a full disk), the message says which; `disk-full`:
 * the main side found no room on the disk for a file of its own (a download,
 * a staged copy, the accounts file).
 */
export type IpcFailureKind =
  'invalid-request' | 'no-account' | 'refused' | 'unsupported' | 'cannot-open' | 'unreadable' | 'cannot-write' | 'disk-full' | 'internal'

/** What files.open did: opened the file with its app, or showed it in its folder (`message` says why, to the person). */
export type FileOpened = { opened: 'with-app' } | { opened: 'in-folder'; message: string }

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError }

// ---------------------------------------------------------------------------
// The two maps

/** Request channels: the renderer's request and the main side's answer. */
export interface RequestChannels {
  'outpost:accounts.list': { request: void; response: AccountInfo[] }
  'outpost:accounts.current': { request: void; response: AccountInfo | null }
  'outpost:accounts.add': { request: AddAccountRequest; response: AccountInfo }
  'outpost:accounts.switch': { request: { id: string }; response: AccountInfo }
  'outpost:accounts.remove': { request: { id: string }; response: void }
  'outpost:secret-store.describe': { request: void; response: SecretStoreInfo }
  /** The service's answer body (undefined for 204). */
  'outpost:api.call': { request: ApiCallRequest; response: unknown }
  /** The service's list of uploaded files. */
  'outpost:files.upload': { request: UploadRequest; response: unknown }
  'outpost:files.download': { request: DownloadRequest; response: DownloadResponse }
  /**
   * Opens a file's cached content with the OS's app for it, when it is a document or media; anything else
   * is shown in its folder, with the sentence to tell the person (Electron only: `unsupported` in the browser host).
   */
  'outpost:files.open': { request: CachedFileRequest; response: FileOpened }
  /** A file's cached content, for thumbnails and in-app previews. */
  'outpost:files.read': { request: ReadFileRequest; response: ReadFileResponse }
  /** Copies a dropped or picked file into the staging folder, so a queued upload survives the original moving. */
  'outpost:files.stage': { request: StageRequest; response: StagedFile }
  /** Removes a staged or cached file; any other path is refused. */
  'outpost:files.discard': { request: { path: string }; response: void }
  /** Removes the current workspace's staged copies that no queued upload names any more (see SweepStagedRequest). */
  'outpost:files.sweep-staged': { request: SweepStagedRequest; response: SweepStagedResponse }
  /**
   * Storage is short: removes the current workspace's downloaded file contents (they can be downloaded again),
   * except the files in `keep` (being opened) and downloads under way.
   */
  'outpost:files.evict-cache': { request: { keep: number[] }; response: EvictCacheResponse }
  /** Starts (or reuses) the local demo service and makes its workspace current. */
  'outpost:demo.sign-in': { request: void; response: AccountInfo }
  'outpost:connectivity.get': { request: void; response: ConnectivityState }
  'outpost:app.info': { request: void; response: AppInfo }
  /**
   * The deep links (`outpost://…`) the OS handed over and no window took yet; each is answered once,
   * and given back (with `outpost:link` again) unless the window says it opened it (links.opened) in time.
   */
  'outpost:links.take': { request: void; response: string[] }
  /** The window opened these links it took (links.take): they are not given back. */
  'outpost:links.opened': { request: { links: string[] }; response: void }
  /** A system notification (Electron's); clicked, its link opens (links.take). `unsupported` in the browser host: the page shows its own. */
  'outpost:notify.show': { request: SystemNotice; response: void }
  /** Makes a new folder for an export (where the user picks, when the shell can ask); null when the user cancelled. */
  'outpost:export.begin': { request: void; response: ExportBegun | null }
  'outpost:export.write': { request: ExportWriteRequest; response: ExportWritten }
  /** Copies a file's cached content into the export; a file not in the cache is listed as not included. */
  'outpost:export.copy-file': { request: ExportCopyFileRequest; response: ExportCopied }
  /** Writes manifest.json and closes the export. */
  'outpost:export.finish': { request: ExportFinishRequest; response: ExportFinished }
  /** Stops an export and removes the folder it made. */
  'outpost:export.cancel': { request: { exportId: string }; response: void }
  'outpost:updates.get': { request: void; response: UpdateState }
  /** Checks for an update now (Settings); answers the state once the check is done. */
  'outpost:updates.check': { request: void; response: UpdateState }
  /** Quits and installs the downloaded update; refused unless one is ready. */
  'outpost:updates.restart': { request: void; response: void }
  /** Writes a problem report (versions, recent log, accounts without tokens, these) into the data folder. */
  'outpost:problem-report.create': { request: ProblemReportRequest; response: ProblemReport }
  /** A problem the window saw (an uncaught error), kept in the main side's recent log. */
  'outpost:log.report': { request: LogReport; response: void }
  /** Appends queued changes to the account's outbox journal; answers once they are on disk. */
  'outpost:journal.append': { request: JournalAppendRequest; response: { epoch: string; ids: number[] } }
  /** Marks journaled changes as about to be sent. */
  'outpost:journal.sent': { request: JournalIdsRequest; response: void }
  /** Marks journaled changes as not sent after all (the request never left). */
  'outpost:journal.unsent': { request: JournalIdsRequest; response: void }
  /** Marks journaled changes as kept in the journal only (the cache could not take them). */
  'outpost:journal.kept': { request: JournalIdsRequest; response: void }
  /** Journaled changes done with (confirmed, cancelled, discarded), and what confirmed creates' local ids became. */
  'outpost:journal.confirm': { request: JournalConfirmRequest; response: void }
  /** The account's journal: what is still open. */
  'outpost:journal.read': { request: { accountId: string }; response: JournalState }
}

/** A notification of the OS: what changed, and the outpost:// link a click opens. */
export interface SystemNotice {
  title: string
  body: string
  link: string
}

/** Event channels: what the main side tells the renderer. */
export interface EventChannels {
  'outpost:connectivity': ConnectivityState
  'outpost:sync-now': ScheduleTrigger
  'outpost:replay-now': ScheduleTrigger
  'outpost:theme': ThemeInfo
  'outpost:upload-progress': UploadProgress
  'outpost:download-progress': DownloadProgress
  'outpost:accounts-changed': { current: AccountInfo | null }
  'outpost:command': { command: AppCommand }
  /** A deep link is waiting: take it (links.take). */
  'outpost:link': Record<string, never>
  'outpost:updates': UpdateState
}

/**
 * One-way messages from the preload itself (not from the page): a path that
 * `getPathForFile` resolved for a file the user dropped or picked. Only such
 * paths are ever uploaded, so a page that went wrong cannot send
 * ~/.ssh/id_rsa to the service by naming it.
 */
export interface MessageChannels {
  'outpost:files.picked': { path: string }
}

export type RequestChannel = keyof RequestChannels
export type EventChannel = keyof EventChannels
export type RequestOf<C extends RequestChannel> = RequestChannels[C]['request']
export type ResponseOf<C extends RequestChannel> = RequestChannels[C]['response']
export type EventOf<E extends EventChannel> = EventChannels[E]
export type MessageChannel = keyof MessageChannels

export const FILES_PICKED: MessageChannel = 'outpost:files.picked'

// Runtime lists, kept exhaustive by the `Record` types: the preload and the
// host refuse channels that are not here.
const REQUEST_CHANNEL_SET: Record<RequestChannel, true> = {
  'outpost:accounts.list': true,
  'outpost:accounts.current': true,
  'outpost:accounts.add': true,
  'outpost:accounts.switch': true,
  'outpost:accounts.remove': true,
  'outpost:secret-store.describe': true,
  'outpost:api.call': true,
  'outpost:files.upload': true,
  'outpost:files.download': true,
  'outpost:files.open': true,
  'outpost:files.read': true,
  'outpost:files.stage': true,
  'outpost:files.discard': true,
  'outpost:files.sweep-staged': true,
  'outpost:files.evict-cache': true,
  'outpost:demo.sign-in': true,
  'outpost:connectivity.get': true,
  'outpost:app.info': true,
  'outpost:links.take': true,
  'outpost:links.opened': true,
  'outpost:notify.show': true,
  'outpost:export.begin': true,
  'outpost:export.write': true,
  'outpost:export.copy-file': true,
  'outpost:export.finish': true,
  'outpost:export.cancel': true,
  'outpost:updates.get': true,
  'outpost:updates.check': true,
  'outpost:updates.restart': true,
  'outpost:problem-report.create': true,
  'outpost:log.report': true,
  'outpost:journal.append': true,
  'outpost:journal.sent': true,
  'outpost:journal.unsent': true,
  'outpost:journal.kept': true,
  'outpost:journal.confirm': true,
  'outpost:journal.read': true,
}

const EVENT_CHANNEL_SET: Record<EventChannel, true> = {
  'outpost:connectivity': true,
  'outpost:sync-now': true,
  'outpost:replay-now': true,
  'outpost:theme': true,
  'outpost:upload-progress': true,
  'outpost:download-progress': true,
  'outpost:accounts-changed': true,
  'outpost:command': true,
  'outpost:link': true,
  'outpost:updates': true,
}

export const REQUEST_CHANNELS = Object.keys(REQUEST_CHANNEL_SET) as RequestChannel[]
export const EVENT_CHANNELS = Object.keys(EVENT_CHANNEL_SET) as EventChannel[]

export function isRequestChannel(channel: unknown): channel is RequestChannel {
  return typeof channel === 'string' && Object.hasOwn(REQUEST_CHANNEL_SET, channel)
}

export function isEventChannel(channel: unknown): channel is EventChannel {
  return typeof channel === 'string' && Object.hasOwn(EVENT_CHANNEL_SET, channel)
}

// ---------------------------------------------------------------------------
// The bridge: what the preload exposes as `window.outpost`, and what the
// browser host's stand-in implements.

export interface OutpostBridge {
  invoke<C extends RequestChannel>(channel: C, request: RequestOf<C>): Promise<IpcResult<ResponseOf<C>>>
  /** Returns the function that removes the listener. */
  on<E extends EventChannel>(event: E, listener: (payload: EventOf<E>) => void): () => void
  /** The path on disk of a dropped or picked file; '' when it has none. */
  getPathForFile(file: File): string
}

export const BRIDGE_GLOBAL = 'outpost'

// ---------------------------------------------------------------------------
// The same contract over a WebSocket, for the browser host (src-web) and the
// renderer's bridge when there is no preload (src-renderer/src/lib/bridge.ts).

export const HOST_BRIDGE_PATH = '/bridge'
/** The WebSocket subprotocol the host answers with. */
export const HOST_BRIDGE_PROTOCOL = 'outpost-bridge'
/** The launch secret travels as a second offered subprotocol: `outpost-secret.<hex>`. */
export const HOST_SECRET_PROTOCOL_PREFIX = 'outpost-secret.'
/** The page gets the secret in its URL fragment (never sent to a server): `#outpost-secret=<hex>`. */
export const HOST_SECRET_FRAGMENT = 'outpost-secret'
/**
 * Or, where the address goes through another program's command line (`npm start` opening the browser),
 * a one-time code in its place, `#outpost-code=<hex>`: the page POSTs it (the body, as text) to
 * HOST_KEY_PATH and gets `{ secret }` back, once, within HOST_CODE_LIFETIME_MS of the code's making.
 */
export const HOST_CODE_FRAGMENT = 'outpost-code'
export const HOST_KEY_PATH = '/key'
export const HOST_CODE_LIFETIME_MS = 60_000

export type HostClientMessage = { type: 'invoke'; id: number; channel: string; request: unknown }

/**
 * A file the user gave the page is written where an upload can read it by a
 * POST of its bytes to this path (the browser streams a File body from disk,
 * the page never reads it), with the launch secret and the file's name
 * (URI-encoded) in these headers. The answer: `{ path }`, or `{ error }` with
 * a 4xx status.
 */
export const HOST_STAGE_PATH = '/stage'
export const HOST_SECRET_HEADER = 'x-outpost-secret'
export const HOST_FILE_NAME_HEADER = 'x-outpost-file-name'

/**
 * The largest file Outpost uploads: the service's limit per file (50 MiB; the
 * local service's default). A bigger file is refused when it is dropped,
 * before any of it is read.
 */
export const UPLOAD_LIMIT_BYTES = 50 * 1024 * 1024

/** Why a file too large to upload is refused, the same words wherever it is found out. */
export function tooLargeToUpload(name: string, limit = UPLOAD_LIMIT_BYTES): string {
  const most = limit >= 1024 * 1024 ? `${Math.round((limit / (1024 * 1024)) * 10) / 10} MB` : `${limit} bytes`
  return `“${name}” is larger than ${most}, the most Outpost uploads per file: nothing of it was uploaded.`
}

export type HostMessage =
  /** `parts`: the value, a list, came before it in that many 'part' messages (see HOST_PART_ITEMS). */
  | { type: 'result'; id: number; result: IpcResult<unknown>; parts?: number }
  | { type: 'part'; id: number; items: unknown[] }
  | { type: 'event'; event: EventChannel; payload: unknown }

/**
 * An answer whose value is a long list (the v3 list of 10,000 epics, ~7 MB)
 * goes to the page as 'part' messages of this many items, then the answer
 * with an empty list and the number of parts: the page decodes each part in
 * a task of its own, where one message would be one long task.
 */
export const HOST_PART_ITEMS = 1_000

/**
 * Host messages are JSON, which has no bytes: a Uint8Array in an answer
 * (files.read) travels as `{"$outpost-bytes": "<base64>"}` and is turned back
 * into a Uint8Array by the page's bridge. No other value has this key.
 */
export const HOST_BYTES_KEY = '$outpost-bytes'
