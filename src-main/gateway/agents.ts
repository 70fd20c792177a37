// One keep-alive undici Agent per origin (and timeout settings), shared by the
// gateways that talk to it and closed when the last of them lets go.
import { Agent } from 'undici'

export interface Timeouts {
  /** Establishing the connection (TCP and TLS). */
  connectMs: number
  /** From the request fully sent to the answer's headers. */
  headersMs: number
  /** Between two chunks of the answer's body. */
  bodyMs: number
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000 }

interface Shared {
  agent: Agent
  users: number
}

const shared = new Map<string, Shared>()

export interface AgentLease {
  agent: Agent
  release(): Promise<void>
}

export function leaseAgent(origin: string, timeouts: Timeouts): AgentLease {
  const key = `${origin} ${timeouts.connectMs}/${timeouts.headersMs}/${timeouts.bodyMs}`
  let entry = shared.get(key)
  if (!entry) {
    entry = {
      agent: new Agent({
        connect: { timeout: timeouts.connectMs },
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
        // Idle sockets are kept a while (the server's keep-alive hint wins when shorter).
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
      }),
      users: 0,
    }
    shared.set(key, entry)
  }
  entry.users++
  const held = entry
  let released = false
  return {
    agent: held.agent,
    release: async () => {
      if (released) return
      released = true
      held.users--
      if (held.users > 0) return
      shared.delete(key)
      await held.agent.close()
    },
  }
}
