// The handler table: what the main side answers on each request channel.
// Plain functions over the parts they are given (accounts, secret store, the
// current gateway, connectivity), shared by the Electron window and the
// browser host.
import { basename, isAbsolute, join } from 'node:path'
import type { AccountInfo, AppInfo, ConnectivityState, EventChannel, EventOf } from '../../src-shared/ipc.ts'
import type { Accounts } from '../accounts/accounts.ts'
import type { SecretStore } from '../secrets/secret-store.ts'
import type { CurrentGateway } from './current-gateway.ts'
import type { HandlerTable } from './dispatch.ts'
import { IpcFailure } from './errors.ts'

export type Emit = <E extends EventChannel>(event: E, payload: EventOf<E>) => void

export interface HandlerDeps {
  accounts: Pick<Accounts, 'list' | 'current' | 'addAccount' | 'switchTo' | 'remove'>
  secretStore: Pick<SecretStore, 'describe'>
  gateway: Pick<CurrentGateway, 'get' | 'reset'>
  connectivity: { readonly state: ConnectivityState }
  appInfo: AppInfo
  /** Paths of files the user dropped or picked: the only ones uploaded. */
  pickedFiles: { has(path: string): boolean }
  /** Where downloaded file contents are kept. */
  fileCacheDir: string
  /** Sends an event to the renderer(s). */
  emit: Emit
  /** Called after an account was added, switched to or removed. */
  accountsChanged?: (current: AccountInfo | null) => void
}

/** A file name that is safe as the last part of a path on every OS. */
export function safeFileName(name: string): string {
  const cleaned = Array.from(basename(name.replace(/\\/g, '/')), (c) => (c.charCodeAt(0) < 0x20 || '<>:"/\\|?*'.includes(c) ? '_' : c))
    .join('')
    .replace(/^\.+/, '_')
    .slice(0, 200)
  return cleaned || 'file'
}

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

  return {
    'outpost:accounts.list': async () => deps.accounts.list(),
    'outpost:accounts.current': async () => deps.accounts.current(),
    'outpost:accounts.add': async ({ baseUrl, token }) => {
      const account = await deps.accounts.addAccount(baseUrl, token)
      await changed()
      return account
    },
    'outpost:accounts.switch': async ({ id }) => {
      const account = await deps.accounts.switchTo(id)
      await changed()
      return account
    },
    'outpost:accounts.remove': async ({ id }) => {
      await deps.accounts.remove(id)
      await changed()
    },
    'outpost:secret-store.describe': async () => deps.secretStore.describe(),

    'outpost:api.call': async ({ operation, params, query, body, lane }) => {
      if (operation === 'files.upload') throw new IpcFailure('invalid-request', 'files.upload sends files: use the files.upload channel')
      const { gateway } = await deps.gateway.get()
      // The table checked the operation's name; its parameters are the gateway's to check.
      const untyped = gateway as unknown as { call(name: string, options: object): Promise<unknown> }
      return misuse(() => untyped.call(operation, { params, query, body, lane }))
    },

    'outpost:files.upload': async ({ uploadId, paths, storyId }) => {
      for (const path of paths) {
        if (!isAbsolute(path) || !deps.pickedFiles.has(path)) {
          throw new IpcFailure('invalid-request', `Outpost uploads only files you dropped or picked; ${basename(path)} is not one of them.`)
        }
      }
      const { gateway } = await deps.gateway.get()
      return gateway.upload(
        paths.map((path) => ({ path, name: basename(path) })),
        {
          storyId,
          onProgress: ({ sent, total }) => deps.emit('outpost:upload-progress', { uploadId, bytesSent: sent, bytesTotal: total }),
        },
      )
    },

    'outpost:files.download': async ({ downloadId, fileId }) => {
      const { account, gateway } = await deps.gateway.get()
      const file = (await gateway.call('files.get', { params: { id: fileId } })) as { url?: unknown; name?: unknown } | undefined
      if (!file || typeof file.url !== 'string') throw new IpcFailure('invalid-request', `File ${fileId} has no content to download.`)
      const name = safeFileName(typeof file.name === 'string' ? file.name : `file-${fileId}`)
      // One folder per account and file, so two files of one name never collide.
      const path = join(deps.fileCacheDir, safeFileName(account.id), String(fileId), name)
      const { bytes } = await gateway.download(file.url, path, ({ received, total }) =>
        deps.emit('outpost:download-progress', { downloadId, bytesReceived: received, bytesTotal: total }),
      )
      return { path, bytes }
    },

    'outpost:connectivity.get': async () => deps.connectivity.state,
    'outpost:app.info': async () => deps.appInfo,
  }
}
