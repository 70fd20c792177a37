import { contextBridge } from 'electron'

// The bridge stays minimal: the typed IPC surface is added with the main-side issue.
contextBridge.exposeInMainWorld('outpost', { version: 1 })
