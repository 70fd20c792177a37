// One request from the renderer, answered by the handler table: the channel
// and the request are checked, the handler runs, and whatever happens comes
// back as an IpcResult. Used by the Electron wiring and by the browser host
// alike, so both answer the same way.
import { isRequestChannel, type IpcResult, type RequestChannel, type RequestOf, type ResponseOf } from '../../src-shared/ipc.ts'
import { IpcFailure, toIpcError } from './errors.ts'
import { checkRequest } from './requests.ts'

export type HandlerTable = { [C in RequestChannel]: (request: RequestOf<C>) => Promise<ResponseOf<C>> }

export async function dispatch(table: HandlerTable, channel: unknown, request: unknown): Promise<IpcResult<unknown>> {
  try {
    if (!isRequestChannel(channel)) throw new IpcFailure('invalid-request', `"${String(channel)}" is not a request channel of Outpost`)
    const handler = table[channel] as (request: unknown) => Promise<unknown>
    const value = await handler(checkRequest(channel, request))
    return { ok: true, value }
  } catch (error) {
    return { ok: false, error: toIpcError(error) }
  }
}
