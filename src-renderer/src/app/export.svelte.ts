// "Export workspace…" (the palette, Settings): one export at a time, its
// progress for the export tray, and how it ended. The writing is the data
// layer's (data/export/); the folder is the main side's to make.
import type { ExportFinished } from '../../../src-shared/ipc.ts'
import { exportWorkspace, type ExportProgress } from '../data/export/export.ts'
import type { Bridge } from '../lib/bridge.ts'
import { messageOf } from '../lib/errors.ts'
import { notices } from '../lib/notices.svelte.ts'
import type { OpenWorkspace } from './workspace.svelte.ts'

export type ExportPhase = 'idle' | 'starting' | 'running' | 'done' | 'failed'

export class WorkspaceExport {
  phase = $state<ExportPhase>('idle')
  progress = $state<ExportProgress>({ step: '', done: 0, total: 0 })
  /** The workspace being (or last) exported. */
  workspaceName = $state('')
  finished = $state<ExportFinished | null>(null)
  error = $state<string | null>(null)

  private controller: AbortController | undefined

  get busy(): boolean {
    return this.phase === 'starting' || this.phase === 'running'
  }

  start = async (workspace: Pick<OpenWorkspace, 'db' | 'account' | 'status'>, bridge: Pick<Bridge, 'call'> | undefined): Promise<void> => {
    if (!bridge) return
    if (this.busy) {
      notices.show('An export is under way already: it is shown at the foot of the window.')
      return
    }
    this.phase = 'starting'
    this.workspaceName = workspace.account.workspaceName
    this.progress = { step: '', done: 0, total: 0 }
    this.finished = null
    this.error = null
    const controller = new AbortController()
    this.controller = controller
    try {
      const finished = await exportWorkspace({
        db: workspace.db,
        bridge,
        signal: controller.signal,
        bootstrapped: workspace.status.bootstrapped,
        onProgress: (progress) => {
          this.phase = 'running'
          this.progress = progress
        },
      })
      if (!finished) {
        // The user closed the folder dialog: nothing was written.
        this.phase = 'idle'
        return
      }
      this.finished = finished
      this.phase = 'done'
      notices.show(`${this.workspaceName} exported to ${finished.folder}`, 'success')
    } catch (error) {
      if (controller.signal.aborted) {
        this.phase = 'idle'
        notices.show(`The export of ${this.workspaceName} was cancelled; nothing was kept.`)
        return
      }
      this.error = messageOf(error)
      this.phase = 'failed'
    } finally {
      if (this.controller === controller) this.controller = undefined
    }
  }

  /** Stops the export under way at its next step; what it wrote so far goes. */
  cancel = (): void => {
    if (this.phase === 'running') this.controller?.abort()
  }

  dismiss = (): void => {
    if (this.busy) return
    this.phase = 'idle'
    this.finished = null
    this.error = null
  }
}

export const workspaceExport = new WorkspaceExport()
