// The browser host's messages: JSON, with bytes as {"$outpost-bytes": base64}.
import { describe, expect, it } from 'vitest'
import { HOST_BYTES_KEY, type HostMessage } from '../../../src-shared/ipc.ts'
import { BridgeError, decodeHostMessage, hostBridge } from './bridge.ts'

describe('decodeHostMessage', () => {
  it('gives bytes back as a Uint8Array', () => {
    const text = JSON.stringify({ type: 'reply', id: 1, ok: true, value: { [HOST_BYTES_KEY]: Buffer.from('héllo').toString('base64') } })
    const message = decodeHostMessage(text) as unknown as { value: Uint8Array }
    expect(message.value).toBeInstanceOf(Uint8Array)
    expect(new TextDecoder().decode(message.value)).toBe('héllo')
  })

  it('leaves a message without bytes as it is, also one whose text merely mentions the key', () => {
    const plain = { type: 'reply', id: 2, ok: true, value: { entities: [{ id: 1, name: 'Epic', labels: [] }] } }
    expect(decodeHostMessage(JSON.stringify(plain))).toEqual(plain)
    const mentions = { type: 'reply', id: 3, ok: true, value: { text: `a doc about ${HOST_BYTES_KEY}`, note: { [HOST_BYTES_KEY]: 'x', other: 1 } } }
    expect(decodeHostMessage(JSON.stringify(mentions))).toEqual(mentions)
  })
})

/** A socket whose host answers each request with `answer(id)`: the messages it sends, in order. */
function socketAnswering(answer: (id: number) => HostMessage[]) {
  return class {
    private listeners = new Map<string, ((event: { data?: string }) => void)[]>()
    constructor() {
      setTimeout(() => this.emit('open', {}))
    }
    addEventListener(type: string, listener: (event: { data?: string }) => void) {
      this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener])
    }
    send(text: string) {
      const { id } = JSON.parse(text) as { id: number }
      for (const message of answer(id)) setTimeout(() => this.emit('message', { data: JSON.stringify(message) }))
    }
    close() {}
    private emit(type: string, event: { data?: string }) {
      for (const listener of this.listeners.get(type) ?? []) listener(event)
    }
  } as unknown as new (url: string, protocols: string[]) => WebSocket
}

describe('a long answer in parts', () => {
  const bridgeAnswering = (answer: (id: number) => HostMessage[]) =>
    hostBridge({ url: 'ws://127.0.0.1:1/bridge', stageUrl: 'http://127.0.0.1:1/stage', secret: 's', WebSocket: socketAnswering(answer) })

  it('is put back together in order', async () => {
    const b = bridgeAnswering((id) => [
      { type: 'part', id, items: [1, 2] },
      { type: 'part', id, items: [3] },
      { type: 'result', id, parts: 2, result: { ok: true, value: [] } },
    ])
    expect(await b.call('outpost:accounts.list')).toEqual([1, 2, 3])
  })

  it('that lost a part fails with a clear error instead of answering short', async () => {
    const b = bridgeAnswering((id) => [
      { type: 'part', id, items: [1, 2] },
      { type: 'result', id, parts: 2, result: { ok: true, value: [] } },
    ])
    const answer = b.call('outpost:accounts.list')
    await expect(answer).rejects.toBeInstanceOf(BridgeError)
    await expect(answer).rejects.toThrow('came in part only')
  })
})
