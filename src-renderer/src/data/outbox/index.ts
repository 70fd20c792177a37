// The outbox: queued writes, their replay to the service, and what the user can
// do with the ones that failed or met a conflict. Actions that queue writes are
// in ../actions.ts; the merged reads the UI shows in ../overlay.ts.
export { replay, DEFAULT_BACKOFF } from './replay.ts'
export { readyRecords } from './readiness.ts'
export type { ReplayOptions, ReplayResult, Backoff } from './replay.ts'
export { outboxStatus, outboxRecords, retryRecord, discardRecord, resolveConflict, recordSubject } from './records.ts'
export type { OutboxStatus, OutboxPause, ConflictChoice } from './records.ts'
export { resolveId, claimedIds } from './ids.ts'
export { isLocalId, linkId } from './kinds.ts'
export { RECONCILE_WINDOW_MS } from './requests.ts'
export { stagedPaths, sweepStagedCopies } from './staged.ts'
