// "Report a problem…": one file a user can send, with what helps to find a
// problem and nothing secret. What the main side knows (versions, the OS,
// connectivity, the workspaces without their tokens, where tokens are kept,
// updates, the recent log) and what the window passes (its cache's unreadable
// records, its outbox's counts) go into one JSON file in the data folder.
// Tokens never reach this code's inputs; every token the secret store holds is
// still searched for in the finished text (as is, and in the encodings a token
// could hide in) and cut out, so a token that slipped into a log line is not sent.
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises'
import { arch, release, type as osType } from 'node:os'
import { join } from 'node:path'
import type { AccountInfo, AppInfo, ConnectivityState, ProblemReportRequest, SecretStoreDescription, UpdateState } from '../../src-shared/ipc.ts'
import type { LogEntry } from './recent-log.ts'

export const REPORTS_FOLDER = 'problem-reports'
/** Where Electron's crashReporter writes minidumps (index.ts sets crashDumps to it). */
export const CRASHES_FOLDER = 'crashes'
export const REPORT_FORMAT = 'outpost-problem-report/1'

export interface ProblemReportInput {
  app: AppInfo
  connectivity: ConnectivityState
  accounts: AccountInfo[]
  currentAccountId: string | null
  secretStore: SecretStoreDescription
  updates: UpdateState
  log: LogEntry[]
  window: ProblemReportRequest
  /** The crash dumps on disk (crashDumps), newest first: they are not put in the report, only named. */
  crashDumps: CrashDump[]
  /** process.versions (Electron, Chrome and Node in the app; Node in the browser host). */
  versions: Record<string, string | undefined>
  now: number
}

export function problemReport(input: ProblemReportInput): Record<string, unknown> {
  const { versions } = input
  return {
    format: REPORT_FORMAT,
    createdAt: new Date(input.now).toISOString(),
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
    crashDumps: input.crashDumps,
    recentLog: input.log.map((e) => ({ at: new Date(e.at).toISOString(), level: e.level, from: e.from, message: e.message })),
  }
}

/** The forms a token could take in text: as is, percent-encoded, base64 and base64url, hex. */
export function secretTexts(secret: string): string[] {
  // Too short to be a token, and replacing it would cut ordinary words out of the report.
  if (secret.length < 8) return []
  const bytes = Buffer.from(secret, 'utf8')
  const forms = new Set([secret, encodeURIComponent(secret), bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')])
  // Inside a longer base64 text a secret's own characters depend on where it starts (and what
  // follows it): the part that is its alone, for each of the three offsets.
  for (const encoding of ['base64', 'base64url'] as const) {
    for (const offset of [0, 1, 2]) {
      const text = Buffer.concat([Buffer.alloc(offset), bytes]).toString(encoding)
      forms.add(text.slice(offset === 0 ? 0 : 4, Math.floor((offset + bytes.length) / 3) * 4))
    }
  }
  return [...forms].filter((f) => f.length >= 6)
}

/** The text with every form of every secret replaced by a marker. */
export function withoutSecrets(text: string, secrets: string[]): string {
  let out = text
  for (const secret of secrets) {
    if (!secret) continue
    for (const form of secretTexts(secret).sort((a, b) => b.length - a.length)) out = out.split(form).join('[token removed]')
  }
  return out
}

/** Writes the report as `<dataDir>/problem-reports/outpost-problem-report-<time>.json`; answers its path. */
export async function writeProblemReport(dataDir: string, report: Record<string, unknown>, secrets: string[], now: number): Promise<string> {
  const folder = join(dataDir, REPORTS_FOLDER)
  await mkdir(folder, { recursive: true })
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-')
  const path = join(folder, `outpost-problem-report-${stamp}.json`)
  await writeFile(path, `${withoutSecrets(JSON.stringify(report, null, 2), secrets)}\n`, { mode: 0o600 })
  return path
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
  return dumps.filter((d): d is CrashDump => d !== undefined).sort((a, b) => b.at.localeCompare(a.at)).slice(0, max)
}
