// One request from the renderer, answered by the handler table: the channel
// and the request are checked, the handler runs, and whatever happens comes
// back as an IpcResult. Used by the Electron wiring and by the browser host
// alike, so both answer the same way.
import { isRequestChannel, type IpcResult, type RequestChannel, type RequestOf, type ResponseOf } from '../../src-shared/ipc.ts'
import { IpcFailure, toIpcError } from './errors.ts'
import { checkRequest } from './requests.ts'

/**
 * `from` names the page that asked (Electron's webContents, a browser host's socket), for what the main side keeps
 * on a page's behalf while it lives: the deep links it took.
 */
export type HandlerTable = { [C in RequestChannel]: (request: RequestOf<C>, from?: string) => Promise<ResponseOf<C>> }

export async function dispatch(table: HandlerTable, channel: unknown, request: unknown, from?: string): Promise<IpcResult<unknown>> {
  try {
    if (!isRequestChannel(channel)) throw new IpcFailure('invalid-request', `"${String(channel)}" is not a request channel of Outpost`)
    const handler = table[channel] as (request: unknown, from?: string) => Promise<unknown>
    const value = await handler(checkRequest(channel, request), from)
    return { ok: true, value }
  } catch (error) {
    return { ok: false, error: toIpcError(error) }
  }
}
