// Signing out and removing a workspace. Both forget the account and its token
// (accounts.remove); signing out keeps this computer's copy of the workspace,
// so its cache and any unsent changes are there again after signing back in,
// while removing also deletes that copy.
import Dexie from 'dexie'
import type { AccountInfo } from '../../../src-shared/ipc.ts'
import { databaseName } from '../data/db.ts'
import { forgetWorkspace } from '../first-paint/early-cache.ts'
import { forgetPendingDrafts } from '../features/drafts.svelte.ts'
import { notices } from '../lib/notices.svelte.ts'
import { session } from './session.svelte.ts'
import { messageOf } from '../lib/errors.ts'

export type Leaving = { account: AccountInfo; how: 'sign-out' | 'remove' }

class Leave {
  /** The question on screen, if any. */
  asking = $state<Leaving | null>(null)
  busy = $state(false)

  ask = (account: AccountInfo, how: Leaving['how']): void => {
    this.asking = { account, how }
  }

  cancel = (): void => {
    if (!this.busy) this.asking = null
  }

  confirm = async (): Promise<void> => {
    const leaving = this.asking
    if (!leaving) return
    this.busy = true
    try {
      await session.remove(leaving.account.id)
      if (leaving.how === 'remove') {
        // The shell closes the workspace's database when it stops being current; deleting waits for that.
        const name = databaseName(leaving.account.baseUrl, leaving.account.workspaceSlug)
        forgetWorkspace(name)
        forgetPendingDrafts(name)
        await Dexie.delete(name)
      }
      notices.show(
        leaving.how === 'remove' ? `Removed ${leaving.account.workspaceName} from this computer` : `Signed out of ${leaving.account.workspaceName}`,
        'success',
      )
      this.asking = null
    } catch (error) {
      notices.show(`Could not ${leaving.how === 'remove' ? 'remove' : 'sign out of'} ${leaving.account.workspaceName}: ${messageOf(error)}`, 'error')
    } finally {
      this.busy = false
    }
  }
}

export const leave = new Leave()
