// Where API tokens live: one secret per workspace, in the OS keychain or, on
// machines without a keychain service, encrypted with Electron's safeStorage.
// Nothing else in the app keeps a token.

import type { SecretStoreDescription, SecretStoreErrorKind, SecretStoreKind } from '../../src-shared/ipc.ts'

export type { SecretStoreDescription, SecretStoreErrorKind, SecretStoreKind }

export interface SecretStore {
  readonly kind: SecretStoreKind
  /** The secret, or null when there is none for this account. */
  get(account: string): Promise<string | null>
  set(account: string, secret: string): Promise<void>
  /** True when a secret was there and is gone now. */
  delete(account: string): Promise<boolean>
  describe(): SecretStoreDescription
}

/** The keychain service name every entry is filed under. */
export const KEYCHAIN_SERVICE = 'Outpost'

/**
 * The keychain account of a workspace: a token belongs to one base URL and one
 * workspace slug, so two workspaces on one server (or one slug on two servers)
 * never share an entry.
 */
export function workspaceSecretName(baseUrl: string, workspaceSlug: string): string {
  return `${baseUrl.replace(/\/+$/, '')}#${workspaceSlug}`
}

export class SecretStoreError extends Error {
  override readonly name = 'SecretStoreError'
  constructor(
    readonly kind: SecretStoreErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The message of anything thrown, for error texts that must stay token-free. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
