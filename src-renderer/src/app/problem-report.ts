// "Report a problem…" (the palette and Settings): the main side writes one
// file with versions, the recent log and the workspaces without their tokens;
// the window adds what only it knows, its cache's unreadable records and its
// outbox's counts. The desktop app shows the file in the file manager; the
// browser host cannot, so the notice says where it is. Crash dumps, copies of
// the app's memory that can hold a token, go with it only when the person ticks
// the box in Settings, and the notice says what they may hold.
import type { ProblemReport } from '../../../src-shared/ipc.ts'
import { dataProblems } from '../data/problems.ts'
import { messageOf } from '../lib/errors.ts'
import { notices } from '../lib/notices.svelte.ts'
import { session } from './session.svelte.ts'
import type { OpenWorkspace } from './workspace.svelte.ts'

/** What the person is told of a report: where it is, that it holds no token, and what crash dumps may hold. */
export function reportWritten(report: ProblemReport): string {
  const where = report.shown ? 'Problem report saved and shown in its folder.' : `Problem report saved as ${report.path}.`
  const { found, included } = report.crashDumps
  if (included > 0) {
    const dumps = included === 1 ? 'The crash dump beside it is a copy' : `The ${included} crash dumps beside it are copies`
    return `${where} It holds no token. ${dumps} of Outpost’s memory and can hold one: send ${included === 1 ? 'it' : 'them'} only to someone you trust with your workspace.`
  }
  const leftOut = found > 0 ? ' Crash dumps, which can hold one, were left out.' : ''
  return `${where} It holds no token.${leftOut} Send it with a few words on what happened.`
}

/**
 * Writes the report, with the newest crash dumps when `crashDumps` (Settings' choice; never from the palette);
 * says where it went in a notice unless `quiet` (Settings says it in place). A failure is always told.
 */
export async function reportProblem(workspace: OpenWorkspace | undefined, { quiet = false, crashDumps = false } = {}): Promise<ProblemReport | undefined> {
  const bridge = session.bridge
  if (!bridge) return undefined
  try {
    const problems = workspace ? await dataProblems(workspace.db).catch(() => []) : []
    const report = await bridge.call('outpost:problem-report.create', {
      dataProblems: problems.slice(-200),
      outbox: workspace ? { pending: workspace.outbox.pending, failed: workspace.outbox.failed, conflicts: workspace.outbox.conflicts } : undefined,
      userAgent: navigator.userAgent.slice(0, 512),
      ...(crashDumps && { includeCrashDumps: true }),
    })
    if (!quiet) notices.show(reportWritten(report), 'success')
    return report
  } catch (error) {
    notices.show(`The problem report could not be written: ${messageOf(error)}`, 'error')
    return undefined
  }
}
