// Everything that can go wrong while adding or using a workspace account, each
// with a message written for the person typing the address and the token.

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
