// The one place the main side listens to IPC. Every request channel of the
// contract is registered here, and every message is checked first: the
// channel must be ours and the sender must be the main frame of our window
// showing our app (see sender.ts). Takes Electron's ipcMain as an argument,
// so tests drive it with a recording stand-in.
import { FILES_PICKED, REQUEST_CHANNELS, type IpcResult } from '../../src-shared/ipc.ts'
import { dispatch, type HandlerTable } from './dispatch.ts'
import { senderRefusal, type SenderEvent, type TrustedWindow } from './sender.ts'

/** The parts of Electron's ipcMain used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: SenderEvent, ...args: unknown[]) => Promise<unknown>): void
  on(channel: string, listener: (event: SenderEvent, ...args: unknown[]) => void): void
}

export interface RegisterOptions {
  table: HandlerTable
  trusted: TrustedWindow
  /** Paths the preload resolved for dropped or picked files. */
  onFilePicked: (path: unknown) => void
  /** Told of every refused message (for the log); never of its content. */
  onRefused?: (channel: string, reason: string) => void
}

/** The page a message came from, as the link inbox knows it (index.ts tells it when that page goes). */
export const pageOf = (event: Pick<SenderEvent, 'sender'>): string => `window:${event.sender.id}`

export function registerIpc(ipcMain: IpcMainLike, options: RegisterOptions): void {
  const refused = (channel: string, event: SenderEvent): string | undefined => {
    const reason = senderRefusal(event, options.trusted)
    if (reason) options.onRefused?.(channel, reason)
    return reason
  }

  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(channel, async (event, request): Promise<IpcResult<unknown>> => {
      const reason = refused(channel, event)
      if (reason) return { ok: false, error: { source: 'ipc', kind: 'refused', message: `Refused ${channel}: ${reason}.` } }
      return dispatch(options.table, channel, request, pageOf(event))
    })
  }

  ipcMain.on(FILES_PICKED, (event, message) => {
    if (refused(FILES_PICKED, event)) return
    if (message && typeof message === 'object') options.onFilePicked((message as { path?: unknown }).path)
  })
}
