// Signing in to the local demo service that `npm start` and `npm run web`
// run when no workspace is set up. The demo's address is remembered (a small
// file in the data folder), so the next launch recognises the demo account as
// the demo's even when the service had to take another port, and replaces it
// instead of leaving a dead account behind. Real workspaces are never touched.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Account, Accounts } from './accounts/accounts.ts'
import { writeFileAtomically } from './secrets/write-atomically.ts'

export const DEMO_FILE = 'demo.json'

export interface DemoService {
  baseUrl: string
  /** A read-write token of the demo workspace (not stored here: it goes to the secret store). */
  token: string
}

type DemoAccounts = Pick<Accounts, 'list' | 'current' | 'addAccount' | 'remove'>

/** Where the demo ran last time, if it did. */
export async function previousDemo(dataDir: string): Promise<{ baseUrl: string } | undefined> {
  try {
    const data = JSON.parse(await readFile(join(dataDir, DEMO_FILE), 'utf8')) as { baseUrl?: unknown }
    return typeof data.baseUrl === 'string' ? { baseUrl: data.baseUrl } : undefined
  } catch {
    return undefined
  }
}

/** The port the demo had last time, to ask for it again (0: any). */
export function previousPort(previous: { baseUrl: string } | undefined): number {
  if (!previous) return 0
  const port = Number(new URL(previous.baseUrl).port)
  return Number.isInteger(port) && port > 0 ? port : 0
}

/** True when there is no workspace yet, or the current one is the demo. */
export function wantsDemo(accounts: DemoAccounts, previous: { baseUrl: string } | undefined): boolean {
  const current = accounts.current()
  return !current || (previous !== undefined && current.baseUrl === previous.baseUrl)
}

/**
 * Makes the demo the current workspace, whatever is current now (the user
 * asked for it): the account of an earlier demo at another address is
 * removed, the demo is added (or its token refreshed) and its address
 * remembered. Other workspaces stay as they are.
 */
export async function useDemo(accounts: DemoAccounts, dataDir: string, demo: DemoService): Promise<Account> {
  const previous = await previousDemo(dataDir)
  for (const account of accounts.list()) {
    if (previous && account.baseUrl === previous.baseUrl && account.baseUrl !== demo.baseUrl) await accounts.remove(account.id)
  }
  const account = await accounts.addAccount(demo.baseUrl, demo.token)
  await writeFileAtomically(join(dataDir, DEMO_FILE), JSON.stringify({ baseUrl: demo.baseUrl }), 0o644)
  return account
}

/** At launch: makes the demo current only when `wantsDemo` says so. Returns whether it signed in. */
export async function signInToDemo(accounts: DemoAccounts, dataDir: string, demo: DemoService): Promise<boolean> {
  if (!wantsDemo(accounts, await previousDemo(dataDir))) return false
  await useDemo(accounts, dataDir, demo)
  return true
}
