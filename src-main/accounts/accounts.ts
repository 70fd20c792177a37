// The workspaces a person has signed in to: add one from a base URL and a
// token, switch between them, remove one. The account list lives in a small
// file in the app's data folder; each token lives in the SecretStore under
// its workspace's name (base URL + slug).
import { randomUUID } from 'node:crypto'
import { workspaceSecretName, type SecretStore } from '../secrets/secret-store.ts'
import { AccountError } from './account-error.ts'
import { accountsFilePath, loadAccounts, saveAccounts, type Account, type AccountsState } from './accounts-file.ts'
import { parseBaseUrl } from './base-url.ts'
import { checkToken as defaultCheckToken, type TokenCheck } from './check-token.ts'

export type { Account } from './accounts-file.ts'

export interface AccountsOptions {
  /** The app's data folder (Electron's `userData`). */
  dataDir: string
  secrets: SecretStore
  /** Who owns a token; the undici check by default. */
  checkToken?: TokenCheck
  now?: () => Date
  newId?: () => string
}

export class Accounts {
  readonly file: string
  /** Set when the accounts file was unreadable at start (shown once to the user). */
  readonly notice: string | undefined
  private readonly secrets: SecretStore
  private readonly checkToken: TokenCheck
  private readonly now: () => Date
  private readonly newId: () => string
  /** Changes are read-modify-write of one file: one at a time. */
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(
    options: AccountsOptions,
    private state: AccountsState,
    notice: string | undefined,
  ) {
    this.file = accountsFilePath(options.dataDir)
    this.secrets = options.secrets
    this.checkToken = options.checkToken ?? ((baseUrl, token) => defaultCheckToken(baseUrl, token))
    this.now = options.now ?? (() => new Date())
    this.newId = options.newId ?? randomUUID
    this.notice = notice
  }

  static async open(options: AccountsOptions): Promise<Accounts> {
    const now = options.now ?? (() => new Date())
    const { state, notice } = await loadAccounts(accountsFilePath(options.dataDir), now)
    return new Accounts(options, state, notice)
  }

  list(): Account[] {
    return this.state.accounts.map((a) => ({ ...a }))
  }

  current(): Account | null {
    const id = this.state.current
    const account = id === null ? undefined : this.state.accounts.find((a) => a.id === id)
    return account ? { ...account } : null
  }

  get(id: string): Account {
    return { ...this.find(id) }
  }

  /**
   * Checks the token against the service, keeps it in the SecretStore and
   * makes the workspace current. Adding a workspace that is already there
   * replaces its token (signing in again) and keeps its id.
   */
  addAccount(baseUrlInput: string, tokenInput: string): Promise<Account> {
    return this.serialized(async () => {
      const baseUrl = parseBaseUrl(baseUrlInput)
      const token = tokenInput.trim()
      if (!token) throw new AccountError('missing-token', 'Paste your API token (create one in your account settings on the service).')
      const owner = await this.checkToken(baseUrl, token)

      const existing = this.state.accounts.find((a) => a.baseUrl === baseUrl && a.workspaceSlug === owner.workspaceSlug)
      const account: Account = {
        id: existing?.id ?? this.newId(),
        baseUrl,
        workspaceSlug: owner.workspaceSlug,
        workspaceName: owner.workspaceName,
        memberId: owner.memberId,
        memberName: owner.memberName,
        tokenKind: owner.tokenKind,
        ...(owner.scopes && { scopes: owner.scopes }),
        addedAt: existing?.addedAt ?? this.now().toISOString(),
      }
      const secretName = secretNameOf(account)
      // Kept only to restore it if saving fails; an unreadable old token is what re-adding fixes.
      const previousToken = existing ? await this.secrets.get(secretName).catch(() => null) : null
      await this.secrets.set(secretName, token)
      const accounts = existing ? this.state.accounts.map((a) => (a.id === account.id ? account : a)) : [...this.state.accounts, account]
      try {
        await this.save({ version: 1, current: account.id, accounts })
      } catch (error) {
        // The account is not listed, so its new token must not linger either.
        if (previousToken !== null) await this.secrets.set(secretName, previousToken)
        else await this.secrets.delete(secretName)
        throw error
      }
      return { ...account }
    })
  }

  switchTo(id: string): Promise<Account> {
    return this.serialized(async () => {
      const account = this.find(id)
      if (this.state.current !== id) await this.save({ ...this.state, current: id })
      return { ...account }
    })
  }

  /** Forgets the workspace and deletes its token from the SecretStore. */
  remove(id: string): Promise<void> {
    return this.serialized(async () => {
      const account = this.find(id)
      // Token first: if the keychain refuses, the account stays listed and removable later.
      await this.secrets.delete(secretNameOf(account))
      const accounts = this.state.accounts.filter((a) => a.id !== id)
      const current = this.state.current === id ? (accounts[0]?.id ?? null) : this.state.current
      await this.save({ version: 1, current, accounts })
    })
  }

  async tokenFor(id: string): Promise<string> {
    await this.queue
    const account = this.find(id)
    const token = await this.secrets.get(secretNameOf(account))
    if (token === null) {
      throw new AccountError(
        'token-missing',
        `The API token of ${account.workspaceName} (${account.baseUrl}) is no longer stored on this computer. Add the workspace again with a token.`,
      )
    }
    return token
  }

  private find(id: string): Account {
    const account = this.state.accounts.find((a) => a.id === id)
    if (!account) throw new AccountError('unknown-account', `There is no workspace account with id ${id}.`)
    return account
  }

  private async save(state: AccountsState): Promise<void> {
    await saveAccounts(this.file, state)
    this.state = state
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work)
    this.queue = result.catch(() => undefined)
    return result
  }
}

/** The SecretStore entry of an account's token. */
export function secretNameOf(account: Pick<Account, 'baseUrl' | 'workspaceSlug'>): string {
  return workspaceSecretName(account.baseUrl, account.workspaceSlug)
}
