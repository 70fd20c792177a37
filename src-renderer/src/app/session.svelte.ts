// Who is signed in where: the workspaces added on this computer (never their
// tokens: those stay with the main side), the current one, and the secret
// store that keeps the tokens. The main side owns the accounts; this mirrors
// them and follows its 'accounts-changed' event (another window, the demo
// signing in, a token replaced).
import type { AccountInfo, AppInfo, SecretStoreInfo } from '../../../src-shared/ipc.ts'
import { BridgeError, bridge as pageBridge, type Bridge } from '../lib/bridge.ts'
import { isLoopback } from '../lib/format.ts'
import { LAST_ACCOUNT_KEY, readStoredJson, removeStored, writeStored } from '../lib/stored.ts'
import { messageOf } from '../lib/errors.ts'
import { reportUncaughtErrors } from './error-log.ts'
import { updates } from './updates.svelte.ts'

export type SessionPhase = 'starting' | 'signed-out' | 'signed-in' | 'broken'

/** Loopback and the demo slug: the local demo service that `npm start` and `npm run web` sign in to. */
export function isDemoAccount(account: Pick<AccountInfo, 'baseUrl' | 'workspaceSlug'>): boolean {
  return account.workspaceSlug === 'demo' && isLoopback(account.baseUrl)
}

/**
 * The account current when this window last ran, kept in localStorage (an
 * AccountInfo names the workspace and the member; tokens never reach the
 * window). Opening the shell on it spares the first screen the wait for the
 * main side's answer (a round trip to the browser host, more when it is busy).
 */
function rememberedAccount(): AccountInfo | null {
  const a = readStoredJson(LAST_ACCOUNT_KEY) as Partial<AccountInfo> | null | undefined
  const ok =
    a &&
    ['id', 'baseUrl', 'workspaceSlug', 'workspaceName', 'memberId', 'memberName', 'addedAt'].every((k) => typeof a[k as keyof AccountInfo] === 'string') &&
    (a.tokenKind === 'v4' || a.tokenKind === 'v3')
  return ok ? (a as AccountInfo) : null
}

/** Not kept (storage denied): the next start waits for the main side, as it would without this. */
function rememberAccount(account: AccountInfo | null): void {
  if (account) writeStored(LAST_ACCOUNT_KEY, JSON.stringify(account))
  else removeStored(LAST_ACCOUNT_KEY)
}

const REMEMBERED = rememberedAccount()

export class Session {
  // The account current when this window last ran: the shell opens on it at once, and the main
  // side's answer confirms it (the same account: nothing reopens) or replaces it.
  phase = $state<SessionPhase>(REMEMBERED ? 'signed-in' : 'starting')
  accounts = $state<AccountInfo[]>([])
  current = $state<AccountInfo | null>(REMEMBERED)
  secretStore = $state<SecretStoreInfo | null>(null)
  appInfo = $state<AppInfo | null>(null)
  /** Why the app could not start (no bridge, host gone). */
  problem = $state<string | null>(null)
  /** The sign-in screen over a signed-in app ("Add workspace"). */
  adding = $state(false)
  /** The workspace whose token was refused, when the sign-in screen is there to sign in to it again (its address filled in). */
  again = $state<AccountInfo | null>(null)

  /** The sign-in screen for the current workspace, after its token was refused. */
  signInAgain = (): void => {
    this.again = this.current
    this.adding = true
  }

  bridge: Bridge | undefined
  private stops: (() => void)[] = []

  start = async (): Promise<void> => {
    try {
      this.bridge = pageBridge()
    } catch (error) {
      this.problem = messageOf(error)
      this.phase = 'broken'
      return
    }
    this.stops.push(
      updates.follow(this.bridge),
      reportUncaughtErrors(this.bridge),
      this.bridge.on('outpost:accounts-changed', ({ current }) => {
        this.setCurrent(current)
        this.phase = current ? 'signed-in' : 'signed-out'
        void this.refresh()
      }),
    )
    try {
      const [accounts, current, secretStore, appInfo] = await Promise.all([
        this.bridge.call('outpost:accounts.list'),
        this.bridge.call('outpost:accounts.current'),
        this.bridge.call('outpost:secret-store.describe').catch(() => null),
        this.bridge.call('outpost:app.info').catch(() => null),
      ])
      this.accounts = accounts
      this.setCurrent(current)
      this.secretStore = secretStore
      this.appInfo = appInfo
      this.phase = current ? 'signed-in' : 'signed-out'
    } catch (error) {
      this.problem = messageOf(error)
      this.phase = 'broken'
    }
  }

  stop = (): void => {
    for (const stop of this.stops.splice(0)) stop()
  }

  refresh = async (): Promise<void> => {
    if (!this.bridge) return
    const [accounts, current] = await Promise.all([this.bridge.call('outpost:accounts.list'), this.bridge.call('outpost:accounts.current')])
    this.accounts = accounts
    this.setCurrent(current)
    this.phase = current ? 'signed-in' : 'signed-out'
  }

  private setCurrent(current: AccountInfo | null): void {
    this.current = current
    rememberAccount(current)
  }

  /** Checks the token with the service and makes the workspace current; throws BridgeError (source 'account'). */
  add = async (baseUrl: string, token: string): Promise<AccountInfo> => {
    const account = await this.need().call('outpost:accounts.add', { baseUrl, token })
    this.adding = false
    await this.refresh()
    return account
  }

  /**
   * Starts the local demo service if need be (the main side does) and makes
   * the demo workspace current; throws BridgeError (`unsupported` in a
   * packaged app, which does not ship the service).
   */
  signInToDemo = async (): Promise<AccountInfo> => {
    const account = await this.need().call('outpost:demo.sign-in')
    this.adding = false
    await this.refresh()
    return account
  }

  switchTo = async (id: string): Promise<void> => {
    if (this.current?.id === id) return
    await this.need().call('outpost:accounts.switch', { id })
    await this.refresh()
  }

  /** Forgets the workspace and its token; the next one (if any) becomes current. */
  remove = async (id: string): Promise<void> => {
    await this.need().call('outpost:accounts.remove', { id })
    await this.refresh()
  }

  private need(): Bridge {
    if (!this.bridge) throw new BridgeError({ source: 'ipc', kind: 'internal', message: 'Outpost is not connected to its main side.' })
    return this.bridge
  }
}

export const session = new Session()
