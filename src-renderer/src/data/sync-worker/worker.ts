// The sync worker's script: a dedicated Worker, one per open workspace window
// (see serve.ts). It opens its own connection to the workspace's cache, and
// reaches the main side over its own WebSocket in the browser host, or through
// its window in the desktop app.
import { hostBridge } from '../../lib/bridge.ts'
import { bridgeTransport } from '../bridge-transport.ts'
import { OutpostDb } from '../db.ts'
import type { FromWorker, Port, ToWorker } from './protocol.ts'
import { serveSync } from './serve.ts'

serveSync(self as unknown as Port<ToWorker, FromWorker>, {
  openDb: (name) => new OutpostDb(name),
  transport: (host, relay) => bridgeTransport(host ? hostBridge({ ...host, WebSocket }) : relay),
})
