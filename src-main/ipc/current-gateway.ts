// The gateway of the workspace in use. Made on first use from the current
// account and its token (read from the secret store then, never kept
// elsewhere), and closed when the accounts change, so a switch, a removal or
// a new token never sends a request with the old one.
import type { Accounts, Account } from '../accounts/accounts.ts'
import type { Gateway, GatewayOptions } from '../gateway/gateway.ts'
import { IpcFailure } from './errors.ts'

export type GatewayLike = Pick<Gateway, 'call' | 'upload' | 'download' | 'close'>

export interface CurrentGatewayOptions {
  accounts: Pick<Accounts, 'current' | 'tokenFor'>
  create: (options: GatewayOptions) => GatewayLike
  /** Every request's outcome, for the connectivity monitor. */
  onReachability?: (reached: boolean) => void
}

export class CurrentGateway {
  private open: { account: Account; gateway: Promise<GatewayLike> } | undefined

  constructor(private readonly options: CurrentGatewayOptions) {}

  /** The account in use; an `ipc/no-account` failure when there is none. */
  account(): Account {
    const account = this.options.accounts.current()
    if (!account) throw new IpcFailure('no-account', 'No workspace is set up yet: add one with its base URL and an API token.')
    return account
  }

  /** The account in use and its gateway; an `ipc/no-account` failure when there is none. */
  async get(): Promise<{ account: Account; gateway: GatewayLike }> {
    const account = this.account()
    if (this.open?.account.id !== account.id) {
      void this.reset()
      const gateway = this.options.accounts.tokenFor(account.id).then((token) =>
        this.options.create({
          baseUrl: account.baseUrl,
          workspaceSlug: account.workspaceSlug,
          token,
          tokenKind: account.tokenKind,
          onReachability: this.options.onReachability,
        }),
      )
      this.open = { account, gateway }
      // A token that could not be read is tried again next time.
      gateway.catch(() => {
        if (this.open?.gateway === gateway) this.open = undefined
      })
    }
    const open = this.open
    return { account: open.account, gateway: await open.gateway }
  }

  /** Closes the gateway in use (accounts changed, or the app quits). */
  async reset(): Promise<void> {
    const open = this.open
    this.open = undefined
    if (!open) return
    try {
      await (await open.gateway).close()
    } catch {
      // It never opened: nothing to close.
    }
  }
}
