// "Report a problem…" (the palette and Settings): the main side writes one
// file with versions, the recent log and the workspaces without their tokens;
// the window adds what only it knows, its cache's unreadable records and its
// outbox's counts. The desktop app shows the file in the file manager; the
// browser host cannot, so the notice says where it is.
import type { ProblemReport } from '../../../src-shared/ipc.ts'
import { dataProblems } from '../data/problems.ts'
import { messageOf } from '../lib/errors.ts'
import { notices } from '../lib/notices.svelte.ts'
import { session } from './session.svelte.ts'
import type { OpenWorkspace } from './workspace.svelte.ts'

/** Writes the report; says where it went in a notice unless `quiet` (Settings says it in place). A failure is always told. */
export async function reportProblem(workspace: OpenWorkspace | undefined, { quiet = false } = {}): Promise<ProblemReport | undefined> {
  const bridge = session.bridge
  if (!bridge) return undefined
  try {
    const problems = workspace ? await dataProblems(workspace.db).catch(() => []) : []
    const report = await bridge.call('outpost:problem-report.create', {
      dataProblems: problems.slice(-200),
      outbox: workspace ? { pending: workspace.outbox.pending, failed: workspace.outbox.failed, conflicts: workspace.outbox.conflicts } : undefined,
      userAgent: navigator.userAgent.slice(0, 512),
    })
    if (!quiet) notices.show(
      report.shown
        ? 'Problem report saved and shown in its folder. It holds no token: send it with a few words on what happened.'
        : `Problem report saved as ${report.path}. It holds no token: send it with a few words on what happened.`,
      'success',
    )
    return report
  } catch (error) {
    notices.show(`The problem report could not be written: ${messageOf(error)}`, 'error')
    return undefined
  }
}
