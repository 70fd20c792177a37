// Every failure a handler can meet, turned into the plain IpcError the
// renderer reads. Only known fields are copied: an error's `cause` (an undici
// error with a request in it) never crosses to the renderer.
import type { IpcError, IpcFailureKind } from '../../src-shared/ipc.ts'
import { AccountError } from '../accounts/account-error.ts'
import { GatewayError } from '../gateway/errors.ts'
import { SecretStoreError } from '../secrets/secret-store.ts'
import { DISK_FULL_MESSAGE, isDiskFull } from '../files/disk-full.ts'

/** A failure of the bridge itself (a malformed request, no account yet, a refused sender), or of what this shell can do. */
export class IpcFailure extends Error {
  override readonly name = 'IpcFailure'
  constructor(
    readonly kind: Exclude<IpcFailureKind, 'internal'>,
    message: string,
  ) {
    super(message)
  }
}

export function toIpcError(error: unknown): IpcError {
  if (error instanceof GatewayError) return { source: 'gateway', ...error.failure }
  if (error instanceof AccountError) {
    const out: IpcError = { source: 'account', kind: error.kind, message: error.message }
    if (error.status !== undefined) out.status = error.status
    return out
  }
  if (error instanceof SecretStoreError) return { source: 'secret-store', kind: error.kind, message: error.message }
  if (error instanceof IpcFailure) return { source: 'ipc', kind: error.kind, message: error.message }
  // Wherever the main side writes (the accounts file, a staged copy, the file cache): the person's to fix, not a bug.
  if (isDiskFull(error)) return { source: 'ipc', kind: 'disk-full', message: DISK_FULL_MESSAGE }
  const reason = error instanceof Error ? error.message : String(error)
  return { source: 'ipc', kind: 'internal', message: `Something went wrong inside Outpost: ${reason}` }
}
