// Everything that can go wrong while adding or using a workspace account, each
// with a message written for the person typing the address and the token.

import type { AccountErrorKind } from '../../src-shared/ipc.ts'

export type { AccountErrorKind }

export class AccountError extends Error {
  override readonly name = 'AccountError'
  constructor(
    readonly kind: AccountErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}
