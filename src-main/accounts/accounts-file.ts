// The accounts file in the app's data folder: which workspaces are set up and
// which one is current. Non-secret data only; tokens are in the SecretStore.
import { readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { Type, type Static } from 'typebox'
import Value from 'typebox/value'
import { writeFileAtomically } from '../secrets/write-atomically.ts'

export const ACCOUNTS_FILE = 'accounts.json'

export const Account = Type.Object({
  id: Type.String(),
  baseUrl: Type.String(),
  workspaceSlug: Type.String(),
  workspaceName: Type.String(),
  memberId: Type.String(),
  memberName: Type.String(),
  tokenKind: Type.Union([Type.Literal('v4'), Type.Literal('v3')]),
  /** A v4 token's scopes, as whoami said when the token was checked (a token's scopes never change). */
  scopes: Type.Optional(Type.Array(Type.String())),
  addedAt: Type.String(),
})
export type Account = Static<typeof Account>

export const AccountsState = Type.Object({
  version: Type.Literal(1),
  current: Type.Union([Type.String(), Type.Null()]),
  accounts: Type.Array(Account),
})
export type AccountsState = Static<typeof AccountsState>

export interface LoadedAccounts {
  state: AccountsState
  /** Set when the file was unreadable and was moved aside. */
  notice?: string
}

export function accountsFilePath(dataDir: string): string {
  return join(dataDir, ACCOUNTS_FILE)
}

export async function loadAccounts(file: string, now: () => Date): Promise<LoadedAccounts> {
  const empty: AccountsState = { version: 1, current: null, accounts: [] }
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: empty }
    throw error
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (Value.Check(AccountsState, parsed)) {
    const state = parsed as AccountsState
    if (state.current !== null && !state.accounts.some((a) => a.id === state.current)) state.current = state.accounts[0]?.id ?? null
    return { state }
  }
  // Keep the damaged file for whoever wants to look at it; start with no accounts.
  const aside = `${file}.unreadable-${now().toISOString().replace(/[:.]/g, '-')}`
  await rename(file, aside)
  return { state: empty, notice: `The list of workspaces could not be read and was kept as ${aside}. Add your workspaces again.` }
}

export async function saveAccounts(file: string, state: AccountsState): Promise<void> {
  await writeFileAtomically(file, `${JSON.stringify(state, null, 2)}\n`)
}
