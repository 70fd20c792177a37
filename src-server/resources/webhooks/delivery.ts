// Sending events to webhook integrations: signed POSTs, one at a time and in
// order per integration, retried with exponential backoff, stopped on close.
import { createHmac } from 'node:crypto'
import { Agent, request } from 'undici'

/** Retries after the first attempt; the n-th retry waits baseDelayMs * 2^(n-1). */
export interface RetrySchedule {
  attempts: number
  baseDelayMs: number
}

/** Events waiting per integration; past this the oldest waiting one is dropped. */
export const MAX_WAITING = 1000

/** Where one integration's deliveries go now, or undefined once it is deleted or disabled. */
export interface Target {
  url: string
  secret: string | null
}

export interface DeliveryOptions {
  schedule: () => RetrySchedule
  /** Looked up before every attempt, so a deleted, disabled or edited integration takes effect at once. */
  target: (integrationId: number) => Target | undefined
  /** Connect, response-headers and body timeouts of one attempt. */
  timeoutMs?: number
}

/** Hex HMAC-SHA-256 of the exact body bytes: the Payload-Signature header. */
export function payloadSignature(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex')
}

export class Deliveries {
  private readonly waiting = new Map<number, string[]>()
  private readonly sending = new Set<number>()
  private readonly sleepers = new Set<() => void>()
  private readonly agent: Agent
  private stopped = false

  constructor(private readonly options: DeliveryOptions) {
    const timeout = options.timeoutMs ?? 10_000
    this.agent = new Agent({ connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout })
  }

  /** Queues one event body for an integration; returns at once. */
  enqueue(integrationId: number, body: string): void {
    if (this.stopped) return
    const queue = this.waiting.get(integrationId) ?? []
    queue.push(body)
    if (queue.length > MAX_WAITING) queue.shift()
    this.waiting.set(integrationId, queue)
    void this.drain(integrationId)
  }

  /** Drops everything waiting, wakes every backoff wait and aborts requests in flight. */
  async stop(): Promise<void> {
    this.stopped = true
    this.waiting.clear()
    for (const wake of this.sleepers) wake()
    this.sleepers.clear()
    await this.agent.destroy().catch(() => undefined)
  }

  private async drain(integrationId: number): Promise<void> {
    if (this.sending.has(integrationId)) return
    this.sending.add(integrationId)
    try {
      for (;;) {
        const body = this.waiting.get(integrationId)?.shift()
        if (body === undefined || this.stopped) break
        await this.deliver(integrationId, body)
      }
    } finally {
      this.sending.delete(integrationId)
      if (this.waiting.get(integrationId)?.length === 0) this.waiting.delete(integrationId)
    }
  }

  private async deliver(integrationId: number, body: string): Promise<void> {
    const { attempts, baseDelayMs } = this.options.schedule()
    for (let attempt = 0; attempt <= attempts; attempt++) {
      if (attempt > 0) await this.sleep(baseDelayMs * 2 ** (attempt - 1))
      if (this.stopped) return
      const target = this.options.target(integrationId)
      if (!target) return
      if (await this.send(target, body)) return
    }
  }

  private async send(target: Target, body: string): Promise<boolean> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'outpost-local-webhooks/1' }
    if (target.secret) headers['payload-signature'] = payloadSignature(body, target.secret)
    try {
      const res = await request(target.url, { method: 'POST', headers, body, dispatcher: this.agent })
      await res.body.dump()
      return res.statusCode >= 200 && res.statusCode < 300
    } catch {
      // Refused, reset, timed out or aborted by stop(): all count as a failed attempt.
      return false
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve()
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        this.sleepers.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      this.sleepers.add(wake)
    })
  }
}
