// The preload: the only code with Electron APIs in the renderer's process. It
// exposes a small, explicit surface (OutpostBridge in src-shared/ipc.ts):
// invoke a request channel of the contract, listen to an event channel, and
// the path of a dropped file (main is told of it: it uploads no other path).
// Nothing raw from Electron crosses the bridge: listeners get the payload
// only, never the IPC event (its `sender` would hand the page ipcRenderer).
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron'
import { BRIDGE_GLOBAL, FILES_PICKED, isEventChannel, isRequestChannel, type MessageChannels, type OutpostBridge } from '../src-shared/ipc.ts'

const bridge: OutpostBridge = {
  invoke(channel, request) {
    if (!isRequestChannel(channel)) return Promise.reject(new Error(`Outpost: unknown request channel '${String(channel)}'`))
    return ipcRenderer.invoke(channel, request)
  },
  on(event, listener) {
    if (!isEventChannel(event)) throw new Error(`Outpost: unknown event channel '${String(event)}'`)
    if (typeof listener !== 'function') throw new Error('Outpost: a listener must be a function')
    const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload as never)
    ipcRenderer.on(event, forward)
    return () => {
      ipcRenderer.removeListener(event, forward)
    }
  },
  getPathForFile(file) {
    const path = webUtils.getPathForFile(file)
    // Only a file the user gave us has a path; main uploads no other path.
    if (path) ipcRenderer.send(FILES_PICKED, { path } satisfies MessageChannels['outpost:files.picked'])
    return path
  },
}

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge)
