// The gateway of the workspace in use. Made on first use from the current
// account and its token (read from the secret store then, never kept
// elsewhere), and closed when the accounts change, so a switch, a removal or
// a new token never sends a request with the old one.
import type { Accounts, Account } from '../accounts/accounts.ts'
import { parseBaseUrl } from '../accounts/base-url.ts'
import { tokenKindOf } from '../accounts/check-token.ts'
import { EARLY_LISTS, EarlyAnswers, earlyKey } from '../gateway/early.ts'
import type { Gateway, GatewayOptions } from '../gateway/gateway.ts'
import { IpcFailure } from './errors.ts'

export type GatewayLike = Pick<Gateway, 'call' | 'upload' | 'download' | 'close'>

export interface CurrentGatewayOptions {
  accounts: Pick<Accounts, 'current' | 'tokenFor'>
  create: (options: GatewayOptions) => GatewayLike
  /** Every request's outcome, for the connectivity monitor. */
  onReachability?: (reached: boolean) => void
}

/** The lists asked for at a sign-in, while its token is checked: kept for the account it adds, or dropped. */
export interface EarlyAsk {
  /** Another request of the sign-in (its token check): it counts in the account's window too. */
  spent(request: Promise<unknown>): void
  keepFor(accountId: string): void
  drop(): void
}

/** What the early ask's gateway has for a workspace: v3 paths name none, and only the token check tells it. */
const NO_WORKSPACE_YET = '-'

export class CurrentGateway {
  private open: { account: Account; gateway: Promise<GatewayLike> } | undefined
  /** Answers asked for at a sign-in, for the gateway of the account it added (gateway/early.ts). */
  private early: { accountId: string; answers: EarlyAnswers } | undefined

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
      const early = this.early?.accountId === account.id ? this.early.answers : undefined
      this.early = undefined
      const gateway = this.options.accounts.tokenFor(account.id).then((token) =>
        this.options.create({
          baseUrl: account.baseUrl,
          workspaceSlug: account.workspaceSlug,
          token,
          tokenKind: account.tokenKind,
          onReachability: this.options.onReachability,
          early,
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

  /**
   * Asks, while a sign-in's token is checked, for the lists a workspace's first sync asks for first
   * (gateway/early.ts), through a gateway of their own that shares the service's connections. Undefined when the
   * address or the token cannot be used: the sign-in says why.
   */
  askEarly(baseUrlInput: string, tokenInput: string): EarlyAsk | undefined {
    const token = tokenInput.trim()
    let baseUrl: string
    try {
      baseUrl = parseBaseUrl(baseUrlInput)
    } catch {
      return undefined
    }
    if (!token) return undefined
    const asking = this.options.create({ baseUrl, workspaceSlug: NO_WORKSPACE_YET, token, tokenKind: tokenKindOf(token) })
    const answers = new EarlyAnswers()
    const asked = EARLY_LISTS.map((name) => {
      const answer = asking.call(name)
      answers.add(earlyKey(name), answer)
      return answer
    })
    void Promise.allSettled(asked).then(() => asking.close())
    return {
      spent: (request) => answers.spent(request),
      keepFor: (accountId) => {
        this.early?.answers.clear()
        this.early = { accountId, answers }
      },
      drop: () => {
        answers.clear()
        void asking.close()
      },
    }
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
