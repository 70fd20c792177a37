// The browser host's messages: JSON, with bytes as {"$outpost-bytes": base64}.
import { describe, expect, it } from 'vitest'
import { HOST_BYTES_KEY } from '../../../src-shared/ipc.ts'
import { decodeHostMessage } from './bridge.ts'

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
