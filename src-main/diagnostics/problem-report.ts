// "Report a problem…": one file a user can send, with what helps to find a
// problem and nothing secret. What the main side knows (versions, the OS,
// connectivity, the workspaces without their tokens, where tokens are kept,
// updates, the recent log) and what the window passes (its cache's unreadable
// records, its outbox's counts) go into one JSON file in the data folder.
// Tokens never reach this code's inputs; every token the secret store holds is
// still searched for in the finished text (as is, and in the encodings a token
// could hide in) and cut out, so a token that slipped into a log line is not sent.
//
// Crash dumps are another matter: a minidump is a copy of the app's memory at
// the crash, which can hold a token, and no search can vouch for binary memory.
// So a report names the dumps and leaves them out, unless the person asks for
// them (a choice, off by default): then the newest are copied beside the report,
// and the report says, as the window does, that they can hold a token.
import { chmod, copyFile, mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { arch, release, type as osType } from 'node:os'
import { basename, join } from 'node:path'
import type { AccountInfo, AppInfo, ConnectivityState, ProblemReportRequest, SecretStoreDescription, UpdateState } from '../../src-shared/ipc.ts'
import type { LogEntry } from './recent-log.ts'
import { withoutSecrets } from './secrets-out.ts'

export const REPORTS_FOLDER = 'problem-reports'
/** Where Electron's crashReporter writes minidumps (index.ts sets crashDumps to it). */
export const CRASHES_FOLDER = 'crashes'
export const REPORT_FORMAT = 'outpost-problem-report/1'
/** The most crash dumps a report takes along when asked (the newest): each can be megabytes. */
export const CRASH_DUMPS_TAKEN = 5

export interface ProblemReportInput {
  app: AppInfo
  connectivity: ConnectivityState
  accounts: AccountInfo[]
  currentAccountId: string | null
  secretStore: SecretStoreDescription
  updates: UpdateState
  log: LogEntry[]
  window: ProblemReportRequest
  /** The crash dumps on disk (crashDumps), newest first: named in the report, never put in it. */
  crashDumps: CrashDump[]
  /** Where the newest CRASH_DUMPS_TAKEN are copied beside the report (the folder's name), when the person asked for them. */
  crashDumpsTakenTo?: string
  /** process.versions (Electron, Chrome and Node in the app; Node in the browser host). */
  versions: Record<string, string | undefined>
  now: number
}

/** A dump's copy beside the report, relative to the report's folder. */
const takenName = (folder: string, dump: CrashDump) => `${folder}/${basename(dump.file)}`

/** What the report says about tokens, first thing, for whoever reads it before sending it. */
export function aboutTokens(found: number, taken: number): string {
  const noToken = 'This report holds no token: every token Outpost keeps was searched for in it and cut out.'
  if (found === 0) return noToken
  const dumps = 'Crash dumps are copies of Outpost’s memory at a crash and can hold a token, which cannot be cut out of them:'
  if (taken === 0) return `${noToken} ${dumps} the ${found === 1 ? 'one' : found} on this computer ${found === 1 ? 'is' : 'are'} named below and left out.`
  return `${noToken} ${dumps} the newest ${taken === 1 ? 'one is' : `${taken} are`} copied beside this report, as asked. Send ${taken === 1 ? 'it' : 'them'} only to someone you trust with your workspace.`
}

export function problemReport(input: ProblemReportInput): Record<string, unknown> {
  const { versions } = input
  const taken = dumpsTaken(input.crashDumps, input.crashDumpsTakenTo !== undefined).length
  return {
    format: REPORT_FORMAT,
    createdAt: new Date(input.now).toISOString(),
    tokens: aboutTokens(input.crashDumps.length, taken),
    app: { name: input.app.name, version: input.app.version, shell: input.app.shell },
    versions: Object.fromEntries(['electron', 'chrome', 'node', 'v8'].filter((k) => versions[k]).map((k) => [k, versions[k]])),
    os: { platform: input.app.platform, type: osType(), release: release(), arch: arch() },
    userAgent: input.window.userAgent,
    connectivity: { online: input.connectivity.online, reason: input.connectivity.reason, since: new Date(input.connectivity.since).toISOString() },
    // An AccountInfo has no token; the fields are named one by one so a new field is not sent unseen.
    accounts: input.accounts.map((a) => ({
      id: a.id,
      current: a.id === input.currentAccountId,
      baseUrl: a.baseUrl,
      workspaceSlug: a.workspaceSlug,
      tokenKind: a.tokenKind,
      scopes: a.scopes,
      addedAt: a.addedAt,
    })),
    secretStore: input.secretStore,
    updates: input.updates,
    outbox: input.window.outbox,
    dataProblems: input.window.dataProblems,
    crashDumps: input.crashDumps.map((dump, i) => (i < taken ? { ...dump, copy: takenName(input.crashDumpsTakenTo!, dump) } : dump)),
    recentLog: input.log.map((e) => ({ at: new Date(e.at).toISOString(), level: e.level, from: e.from, message: e.message })),
  }
}

/** Where a report made at `now` goes: `<dataDir>/problem-reports/outpost-problem-report-<time>.json`, and the folder beside it for crash dumps. */
export function reportPlace(dataDir: string, now: number): { file: string; dumps: string } {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-')
  const base = join(dataDir, REPORTS_FOLDER, `outpost-problem-report-${stamp}`)
  return { file: `${base}.json`, dumps: `${base}-crash-dumps` }
}

/**
 * Writes the report at `place`, every form of every secret cut out, and copies the crash dumps it took
 * (`taken`, from the crash folder) beside it: only the person can read them (0600), as the report.
 */
export async function writeProblemReport(
  place: { file: string; dumps: string },
  report: Record<string, unknown>,
  secrets: string[],
  taken: { crashes: string; dumps: CrashDump[] } = { crashes: '', dumps: [] },
): Promise<void> {
  await mkdir(join(place.file, '..'), { recursive: true })
  if (taken.dumps.length > 0) {
    await mkdir(place.dumps, { recursive: true, mode: 0o700 })
    for (const dump of taken.dumps) {
      const to = join(place.dumps, basename(dump.file))
      await copyFile(join(taken.crashes, dump.file), to)
      await chmod(to, 0o600)
    }
  }
  await writeFile(place.file, `${withoutSecrets(JSON.stringify(report, null, 2), secrets)}\n`, { mode: 0o600 })
}

/** The dumps a report takes along when asked: the newest CRASH_DUMPS_TAKEN. */
export function dumpsTaken(dumps: CrashDump[], asked: boolean | undefined): CrashDump[] {
  return asked ? dumps.slice(0, CRASH_DUMPS_TAKEN) : []
}

export interface CrashDump {
  /** Relative to the crash folder (Crashpad keeps `completed/`, `pending/`). */
  file: string
  bytes: number
  at: string
}

/** The newest minidumps in the crash folder (at most `max`); none when there is no folder. */
export async function crashDumps(folder: string, max = 20): Promise<CrashDump[]> {
  let names: string[]
  try {
    names = (await readdir(folder, { recursive: true })).filter((name) => name.endsWith('.dmp'))
  } catch {
    return []
  }
  const dumps = await Promise.all(
    names.map(async (file) => {
      try {
        const info = await stat(join(folder, file))
        return { file, bytes: info.size, at: info.mtime.toISOString() }
      } catch {
        return undefined
      }
    }),
  )
  return dumps
    .filter((d): d is CrashDump => d !== undefined)
    .sort((a, b) => b.at.localeCompare(a.at))
    .slice(0, max)
}
