// The handler table: what the main side answers on each request channel.
// Plain functions over the parts they are given (accounts, secret store, the
// current gateway, connectivity, our own folders, the OS's file opener, the
// demo launcher), shared by the Electron window and the browser host.
import { mkdir, stat } from 'node:fs/promises'
import { basename, isAbsolute, join } from 'node:path'
import {
  FILE_READ_MAX_BYTES,
  type AccountInfo,
  type AppInfo,
  type ConnectivityState,
  type EventChannel,
  type EventOf,
  type SystemNotice,
} from '../../src-shared/ipc.ts'
import type { Account, Accounts } from '../accounts/accounts.ts'
import { previousDemo, useDemo } from '../demo.ts'
import type { DemoLauncher } from '../demo-service.ts'
import { discardOwnFile } from '../files/discard.ts'
import { ExportRefused, ExportWriteFailed, type Exports } from '../export/exports.ts'
import { DISK_FULL_DOWNLOAD_MESSAGE, diskFullForStaging, isDiskFull } from '../files/disk-full.ts'
import { downloadToCache, evictCache, findCached, NoContentError, readStart, type MarkFile } from '../files/file-cache.ts'
import { isInside, isReallyInside, type OwnFolders } from '../files/folders.ts'
import { notOpenedDirectly, opensDirectly, shownInFolderInstead } from '../files/open-directly.ts'
import type { LinkInbox } from '../shell/link-inbox.ts'
import { crashDumps, CRASHES_FOLDER, dumpsTaken, problemReport, reportPlace, writeProblemReport } from '../diagnostics/problem-report.ts'
import type { RecentLog } from '../diagnostics/recent-log.ts'
import type { Journals } from '../journal/journal.ts'
import type { Updates } from '../updates/updates.ts'
import { accountStagingFolder, stageCopy, stagedFileName, TooLargeError, unreadable, UnreadableFileError } from '../files/staging.ts'
import { sweepStaged } from '../files/sweep.ts'
import { contentTypeOf } from '../../src-shared/content-types.ts'
import type { SecretStore } from '../secrets/secret-store.ts'
import type { CurrentGateway } from './current-gateway.ts'
import type { HandlerTable } from './dispatch.ts'
import { IpcFailure } from './errors.ts'

export type Emit = <E extends EventChannel>(event: E, payload: EventOf<E>) => void

export interface HandlerDeps {
  accounts: Pick<Accounts, 'list' | 'current' | 'addAccount' | 'switchTo' | 'remove' | 'tokenFor'>
  secretStore: Pick<SecretStore, 'describe'>
  gateway: Pick<CurrentGateway, 'account' | 'get' | 'reset'> & Partial<Pick<CurrentGateway, 'askEarly'>>
  connectivity: { readonly state: ConnectivityState }
  appInfo: AppInfo
  /** Paths of files the user dropped or picked, and staged copies: the only ones uploaded. */
  pickedFiles: { has(path: string): boolean }
  /** The app's data folder (the demo's address is remembered there). */
  dataDir: string
  /** Staged copies of dropped files, and downloaded file contents. */
  folders: OwnFolders
  /** Opens a file with the OS's app for it (Electron's `shell.openPath`: '' when it did, else why not); absent in the browser host. */
  openPath?: (path: string) => Promise<string>
  /** Marks a file downloaded from the service as come from the internet (the OS's mark: internet-mark.ts). */
  markFile?: MarkFile
  /** Starts or reuses the local demo service; absent where the service is not shipped (a packaged app). */
  demo?: Pick<DemoLauncher, 'start'>
  /** Sends an event to the renderer(s). */
  emit: Emit
  /** Called after an account was added, switched to or removed. */
  accountsChanged?: (current: AccountInfo | null) => void
  /** The deep links the OS handed over. */
  links: Pick<LinkInbox, 'take' | 'push' | 'opened'>
  /** Shows a notification of the OS (Electron's), calling `clicked` when it is clicked; absent in the browser host. */
  notify?: (notice: SystemNotice, clicked: () => void) => void
  /** Exports under way. */
  exports: Pick<Exports, 'begin' | 'write' | 'copyFile' | 'finish' | 'cancel'>
  /**
   * Asks the user for the folder to export into (Electron's folder dialog); undefined when they cancelled.
   * Absent where there is no dialog (the browser host): exports go to `<dataDir>/exports`.
   */
  pickExportFolder?: () => Promise<string | undefined>
  /** The app's own updates (off in development builds and the browser host). */
  updates: Pick<Updates, 'state' | 'check' | 'restart'>
  /** The main side's recent warnings and errors, and the window's. */
  log: Pick<RecentLog, 'add' | 'list'>
  /** process.versions, for a problem report. */
  versions?: Record<string, string | undefined>
  /** Shows a file in the OS's file manager (Electron's `shell.showItemInFolder`); absent in the browser host. */
  showItemInFolder?: (path: string) => void
  /** Each account's outbox journal (queued changes kept outside the window's storage). */
  journals: Pick<Journals, 'of' | 'remove'>
}

export const DEMO_UNAVAILABLE =
  'The demo needs the local service, which comes with development builds of Outpost (npm start, npm run web), not with the installed app. Add your own workspace instead.'
export const OPEN_UNSUPPORTED = 'A browser cannot open files with the apps on this computer: preview the file in Outpost, or save it from the preview.'

/** The gateway refuses a misuse (a missing path parameter, a body on a GET) with a TypeError or RangeError: the request's fault. */
async function misuse<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) throw new IpcFailure('invalid-request', error.message)
    throw error
  }
}

export function createHandlers(deps: HandlerDeps): HandlerTable {
  const changed = async (): Promise<void> => {
    await deps.gateway.reset()
    const current = deps.accounts.current()
    deps.emit('outpost:accounts-changed', { current })
    deps.accountsChanged?.(current)
  }

  /** Starts (or reuses) the demo service and makes its workspace current. */
  const signInToDemo = async (demo: NonNullable<HandlerDeps['demo']>): Promise<AccountInfo> => {
    const account = await useDemo(deps.accounts, deps.dataDir, await demo.start())
    await changed()
    return account
  }

  /** A file of the current workspace without content to download is the request's fault. */
  const noContent = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof NoContentError) throw new IpcFailure('invalid-request', error.message)
      throw error
    }
  }

  /** A dropped file that cannot be read is the user's to fix, with words that say why (not a bug of Outpost). */
  const readable = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof UnreadableFileError) throw new IpcFailure('unreadable', error.message)
      if (error instanceof TooLargeError) throw new IpcFailure('invalid-request', error.message)
      throw error
    }
  }

  /** An export's refusal is the request's fault; a disk that cannot be written is said as such. */
  const exporting = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof ExportRefused) throw new IpcFailure('invalid-request', error.message)
      if (error instanceof ExportWriteFailed) throw new IpcFailure('cannot-write', error.message)
      throw error
    }
  }

  /** The current workspace's account; staged copies and the file cache are kept per workspace. */
  const currentAccount = () => deps.gateway.account()

  /** Downloads under way, by file id (how many of each): clearing the cache leaves them be. */
  const downloading = new Map<number, number>()
  const evict = (accountId: string, keep: Iterable<number>) => evictCache(deps.folders.cache, accountId, new Set([...keep, ...downloading.keys()]))

  /**
   * A write of a file's bytes with room made for it: on a full disk the file cache is cleared (all but `keep`
   * and the downloads under way) and the write tried once more; still full, the person is told `message`.
   * What failed leaves no partial file (the gateway's and the staging folder's temporary names are removed).
   */
  const withRoom = async <T>(accountId: string, keep: number[], message: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (!isDiskFull(error)) throw error
      const freed = await evict(accountId, keep)
      deps.log.add('warning', `The disk is full: ${freed.removed} downloaded files (${freed.bytes} bytes) removed to make room.`)
    }
    try {
      return await run()
    } catch (error) {
      if (isDiskFull(error)) throw new IpcFailure('disk-full', message)
      throw error
    }
  }

  /** A download of a file's content: room made for it as above, and never cleared while it runs. */
  const download = async <T>(accountId: string, fileId: number, run: () => Promise<T>): Promise<T> => {
    downloading.set(fileId, (downloading.get(fileId) ?? 0) + 1)
    try {
      return await withRoom(accountId, [fileId], DISK_FULL_DOWNLOAD_MESSAGE, run)
    } finally {
      const left = (downloading.get(fileId) ?? 1) - 1
      if (left > 0) downloading.set(fileId, left)
      else downloading.delete(fileId)
    }
  }

  /**
   * Where a file's content is in the cache, downloaded first when it is not
   * there yet (offline, a cached file needs no network). Whatever is found
   * must really be in the cache folder: a link planted there is refused.
   */
  const cachedContent = async (fileId: number): Promise<string> => {
    const account = currentAccount()
    let path = await findCached(deps.folders.cache, account.id, fileId)
    if (!path) {
      const { account: using, gateway } = await deps.gateway.get()
      const where = { cacheDir: deps.folders.cache, accountId: using.id, fileId, mark: deps.markFile, referrerUrl: using.baseUrl }
      path = (await download(using.id, fileId, () => noContent(() => downloadToCache(gateway, where)))).path
    }
    if (!(await isReallyInside(deps.folders.cache, path)))
      throw new IpcFailure('invalid-request', `${basename(path)} is not in Outpost's file cache, so it is neither opened nor read.`)
    return path
  }

  /** Only an account the user added has a journal (one removed meanwhile has none to write to). */
  const journalOf = (accountId: string) => {
    if (!deps.accounts.list().some((a) => a.id === accountId))
      throw new IpcFailure('no-account', 'There is no such account (it was removed): nothing was journaled.')
    return deps.journals.of(accountId)
  }

  return {
    'outpost:accounts.list': async () => deps.accounts.list(),
    'outpost:accounts.current': async () => deps.accounts.current(),
    'outpost:accounts.add': async ({ baseUrl, token }) => {
      const known = new Set(deps.accounts.list().map((a) => a.id))
      const early = deps.gateway.askEarly?.(baseUrl, token)
      let account: Account
      try {
        const adding = deps.accounts.addAccount(baseUrl, token)
        // Its token check is a request of the account's too.
        early?.spent(adding)
        account = await adding
      } catch (error) {
        early?.drop()
        throw error
      }
      // A workspace new here bootstraps: its first sync asks for these lists first. One signed in again has them.
      if (known.has(account.id)) early?.drop()
      else early?.keepFor(account.id)
      await changed()
      return account
    },
    'outpost:accounts.switch': async ({ id }) => {
      // Switching to the demo wakes its service (not running when the app started on another workspace).
      const target = deps.accounts.list().find((a) => a.id === id)
      if (target && deps.demo && (await previousDemo(deps.dataDir))?.baseUrl === target.baseUrl) return signInToDemo(deps.demo)
      const account = await deps.accounts.switchTo(id)
      await changed()
      return account
    },
    'outpost:accounts.remove': async ({ id }) => {
      await deps.accounts.remove(id)
      // Its cache goes with it (the window deletes the database): so do its journaled changes, or adding the workspace again would send them.
      await deps.journals.remove(id)
      await changed()
    },
    'outpost:secret-store.describe': async () => deps.secretStore.describe(),

    'outpost:api.call': async ({ operation, ...request }) => {
      if (operation === 'files.upload') throw new IpcFailure('invalid-request', 'files.upload sends files: use the files.upload channel')
      const { gateway } = await deps.gateway.get()
      return misuse(() => gateway.call(operation, request))
    },

    'outpost:files.upload': async ({ uploadId, paths, names, storyId }) => {
      for (const path of paths) {
        if (!isAbsolute(path) || !deps.pickedFiles.has(path)) {
          throw new IpcFailure('invalid-request', `Outpost uploads only files you dropped or picked; ${basename(path)} is not one of them.`)
        }
      }
      const { gateway } = await deps.gateway.get()
      return gateway.upload(
        // A staged copy goes under its original's name, not its `<uuid>-` name in the staging folder.
        paths.map((path, i) => ({ path, name: names?.[i] ?? (isInside(deps.folders.staging, path) ? stagedFileName(path) : basename(path)) })),
        {
          storyId,
          onProgress: ({ sent, total }) => deps.emit('outpost:upload-progress', { uploadId, bytesSent: sent, bytesTotal: total }),
        },
      )
    },

    'outpost:files.download': async ({ downloadId, fileId, known, lane }) => {
      const { account, gateway } = await deps.gateway.get()
      return download(account.id, fileId, () =>
        noContent(() =>
          downloadToCache(
            gateway,
            { cacheDir: deps.folders.cache, accountId: account.id, fileId, known, lane, mark: deps.markFile, referrerUrl: account.baseUrl },
            ({ received, total }) => deps.emit('outpost:download-progress', { downloadId, bytesReceived: received, bytesTotal: total }),
          ),
        ),
      )
    },

    'outpost:files.open': async ({ fileId }) => {
      if (!deps.openPath) throw new IpcFailure('unsupported', OPEN_UNSUPPORTED)
      const path = await cachedContent(fileId)
      // Only documents and media go to the OS's app: anything else could be run by it, so the person decides.
      if (!opensDirectly(path)) {
        if (!deps.showItemInFolder) throw new IpcFailure('cannot-open', notOpenedDirectly(basename(path)))
        deps.showItemInFolder(path)
        return { opened: 'in-folder', message: shownInFolderInstead(basename(path)) }
      }
      const problem = await deps.openPath(path)
      if (problem) throw new IpcFailure('cannot-open', `${basename(path)} could not be opened: ${problem}`)
      return { opened: 'with-app' }
    },

    'outpost:files.read': async ({ fileId, maxBytes }) => {
      const path = await cachedContent(fileId)
      const read = await readStart(path, Math.min(maxBytes ?? FILE_READ_MAX_BYTES, FILE_READ_MAX_BYTES))
      return { ...read, contentType: contentTypeOf(path) }
    },

    'outpost:files.stage': async ({ path }) => {
      if (!isAbsolute(path)) throw new IpcFailure('invalid-request', 'Staging takes the full path of a file you dropped or picked.')
      // Already a staged copy (the browser host stages every file the page hands it): nothing to copy.
      if (isInside(deps.folders.staging, path)) {
        if (!(await isReallyInside(deps.folders.staging, path)))
          throw new IpcFailure('invalid-request', `${basename(path)} is no longer kept for upload: drop it again.`)
        return readable(async () => {
          try {
            return { path, size: (await stat(path)).size }
          } catch (error) {
            throw unreadable(error, path)
          }
        })
      }
      if (!deps.pickedFiles.has(path))
        throw new IpcFailure('invalid-request', `Outpost keeps only files you dropped or picked; ${basename(path)} is not one of them.`)
      const account = currentAccount().id
      const folder = accountStagingFolder(deps.folders.staging, account)
      return readable(() => withRoom(account, [], diskFullForStaging(basename(path)), () => stageCopy(folder, path, basename(path))))
    },

    'outpost:files.discard': async ({ path }) => {
      const outcome = await discardOwnFile(deps.folders, path)
      if (outcome === 'outside')
        throw new IpcFailure('invalid-request', `Outpost removes only its own staged and downloaded files; ${basename(path)} is not one of them.`)
      if (outcome === 'not-a-file') throw new IpcFailure('invalid-request', `${basename(path)} is a folder: Outpost removes only files.`)
    },

    'outpost:files.sweep-staged': async ({ keep }) => sweepStaged(accountStagingFolder(deps.folders.staging, currentAccount().id), { keep, now: Date.now() }),

    'outpost:files.evict-cache': async ({ keep }) => {
      const freed = await evict(currentAccount().id, keep)
      if (freed.removed > 0) deps.log.add('info', `Storage is short: ${freed.removed} downloaded files (${freed.bytes} bytes) removed.`)
      return freed
    },

    'outpost:demo.sign-in': async () => {
      if (!deps.demo) throw new IpcFailure('unsupported', DEMO_UNAVAILABLE)
      return signInToDemo(deps.demo)
    },

    'outpost:connectivity.get': async () => deps.connectivity.state,
    'outpost:app.info': async () => deps.appInfo,
    'outpost:links.take': async (_request, from) => deps.links.take(from),
    'outpost:links.opened': async ({ links }) => deps.links.opened(links),
    'outpost:notify.show': async (notice) => {
      if (!deps.notify) throw new IpcFailure('unsupported', 'This shell shows no notifications of its own: the page shows them.')
      deps.notify(notice, () => deps.links.push(notice.link))
    },

    'outpost:export.begin': async () => {
      const account = currentAccount()
      // Where the shell can ask, the user picks the folder; the browser host has no dialog: its data folder's exports/.
      const parent = deps.pickExportFolder ? await deps.pickExportFolder() : join(deps.dataDir, 'exports')
      if (!parent) return null
      if (!deps.pickExportFolder) await mkdir(parent, { recursive: true })
      const workspace = { accountId: account.id, name: account.workspaceName, slug: account.workspaceSlug, baseUrl: account.baseUrl }
      return exporting(() => deps.exports.begin(parent, workspace))
    },
    'outpost:export.write': async ({ exportId, path, text, append }) => exporting(() => deps.exports.write(exportId, path, text, append)),
    'outpost:export.copy-file': async ({ exportId, fileId, name }) => exporting(() => deps.exports.copyFile(exportId, fileId, name)),
    'outpost:export.finish': async ({ exportId, counts, notes }) => exporting(() => deps.exports.finish(exportId, counts, notes)),
    'outpost:export.cancel': async ({ exportId }) => exporting(() => deps.exports.cancel(exportId)),

    'outpost:updates.get': async () => deps.updates.state,
    'outpost:updates.check': async () => deps.updates.check(),
    'outpost:updates.restart': async () => {
      try {
        deps.updates.restart()
      } catch (error) {
        throw new IpcFailure(deps.updates.state.status === 'off' ? 'unsupported' : 'invalid-request', error instanceof Error ? error.message : String(error))
      }
    },

    'outpost:problem-report.create': async (request) => {
      const accounts = deps.accounts.list()
      const now = Date.now()
      const place = reportPlace(deps.dataDir, now)
      const crashes = join(deps.dataDir, CRASHES_FOLDER)
      const dumps = await crashDumps(crashes)
      const taken = dumpsTaken(dumps, request.includeCrashDumps)
      const report = problemReport({
        app: deps.appInfo,
        connectivity: deps.connectivity.state,
        accounts,
        currentAccountId: deps.accounts.current()?.id ?? null,
        secretStore: deps.secretStore.describe(),
        updates: deps.updates.state,
        log: deps.log.list(),
        window: request,
        versions: deps.versions ?? process.versions,
        crashDumps: dumps,
        ...(taken.length > 0 && { crashDumpsTakenTo: basename(place.dumps) }),
        now,
      })
      // The tokens are read only to be searched for and cut out of the finished text.
      const tokens = await Promise.all(accounts.map((a) => deps.accounts.tokenFor(a.id).catch(() => '')))
      await writeProblemReport(place, report, tokens, { crashes, dumps: taken })
      const path = place.file
      deps.log.add('info', `Problem report written: ${basename(path)}${taken.length > 0 ? `, with ${taken.length} crash dumps` : ''}`)
      const answer = { path, shown: false, crashDumps: { found: dumps.length, included: taken.length } }
      if (!deps.showItemInFolder) return answer
      deps.showItemInFolder(path)
      return { ...answer, shown: true }
    },
    'outpost:log.report': async ({ level, message }) => deps.log.add(level, message, 'window'),

    'outpost:journal.append': async ({ accountId, records }) => journalOf(accountId).append(records, Date.now()),
    'outpost:journal.sent': async ({ accountId, ids }) => journalOf(accountId).sent(ids),
    'outpost:journal.unsent': async ({ accountId, ids }) => journalOf(accountId).unsent(ids),
    'outpost:journal.kept': async ({ accountId, ids }) => journalOf(accountId).kept(ids),
    'outpost:journal.confirm': async ({ accountId, ids, map }) => journalOf(accountId).confirm(ids, map),
    'outpost:journal.read': async ({ accountId }) => journalOf(accountId).read(),
  }
}
