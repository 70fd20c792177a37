import { describe, expect, it } from 'vitest'
import type { EventChannel, EventOf, IpcError, RequestChannel } from '../../../src-shared/ipc.ts'
import { BridgeError, type Bridge } from '../lib/bridge.ts'
import { contentTypeOf } from '../../../src-shared/content-types.ts'
import { bridgeTransport, failureOfIpc, fileOnDisk } from './bridge-transport.ts'
import { TransportError, UnreadableFile } from './transport.ts'

/** A bridge answering from a table, with events the test sends. */
function fakeBridge(answers: Partial<Record<RequestChannel, (request: unknown) => unknown>>) {
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  const calls: { channel: string; request: unknown }[] = []
  const bridge: Bridge = {
    shell: 'browser',
    call: (async (channel: RequestChannel, request?: unknown) => {
      calls.push({ channel, request })
      const answer = answers[channel]
      if (!answer) throw new BridgeError({ source: 'ipc', kind: 'invalid-request', message: `no ${channel}` })
      return answer(request)
    }) as Bridge['call'],
    on<E extends EventChannel>(event: E, listener: (payload: EventOf<E>) => void) {
      const set = listeners.get(event) ?? new Set()
      listeners.set(event, set)
      set.add(listener as (payload: unknown) => void)
      return () => set.delete(listener as (payload: unknown) => void)
    },
    pathForFile: async (file) => `/staged/${file.name}`,
  }
  const emit = (event: EventChannel, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload))
  return { bridge, calls, emit, listeners }
}

describe('bridgeTransport', () => {
  it('asks the gateway for named operations and answers what it said', async () => {
    const { bridge, calls } = fakeBridge({ 'outpost:api.call': () => ({ id: 12, name: 'Epic' }) })
    const transport = bridgeTransport(bridge)
    await expect(transport.call('epics.get', { params: { id: 12 }, lane: 'user-read' })).resolves.toEqual({ id: 12, name: 'Epic' })
    expect(calls).toEqual([{ channel: 'outpost:api.call', request: { operation: 'epics.get', params: { id: 12 }, lane: 'user-read' } }])
  })

  it('passes the gateway failure on as a TransportError of the same kind', async () => {
    const failure: IpcError = { source: 'gateway', kind: 'http', status: 422, message: 'name is too long', errors: { name: 'must be at most 256 characters' } }
    const { bridge } = fakeBridge({
      'outpost:api.call': () => {
        throw new BridgeError(failure)
      },
    })
    const error = await bridgeTransport(bridge)
      .call('epics.update', { params: { id: 1 }, body: { name: 'x' } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransportError)
    expect((error as TransportError).failure).toEqual({
      kind: 'http',
      status: 422,
      message: 'name is too long',
      errors: { name: 'must be at most 256 characters' },
    })
  })

  it('reports upload progress of its own upload only, and stops listening after', async () => {
    let answer: (value: unknown) => void = () => undefined
    const { bridge, emit, listeners, calls } = fakeBridge({ 'outpost:files.upload': () => new Promise((resolve) => (answer = resolve)) })
    const seen: [number, number][] = []
    const done = bridgeTransport(bridge).upload([{ path: '/staged/a.png', name: 'a.png' }], { onProgress: (sent, total) => seen.push([sent, total]) })
    await Promise.resolve()
    const { uploadId } = calls[0].request as { uploadId: string }
    emit('outpost:upload-progress', { uploadId: 'someone-else', bytesSent: 1, bytesTotal: 9 })
    emit('outpost:upload-progress', { uploadId, bytesSent: 5, bytesTotal: 10 })
    answer([{ id: 3 }])
    await expect(done).resolves.toEqual([{ id: 3 }])
    expect(seen).toEqual([[5, 10]])
    expect(listeners.get('outpost:upload-progress')?.size).toBe(0)
  })

  it('stages a dropped file through the main side, which answers with its durable copy', async () => {
    const { bridge, calls } = fakeBridge({ 'outpost:files.stage': () => ({ path: '/data/staging/1b4e28ba-2fa1-11d2-883f-0016d3cca427-notes.txt', size: 42 }) })
    const onDisk = await fileOnDisk(bridge, new File([new Uint8Array(42)], 'notes.txt'))
    expect(onDisk).toEqual({ path: '/staged/notes.txt', name: 'notes.txt' })
    await expect(bridgeTransport(bridge).stage(onDisk)).resolves.toEqual({ path: '/data/staging/1b4e28ba-2fa1-11d2-883f-0016d3cca427-notes.txt', size: 42 })
    expect(calls).toEqual([{ channel: 'outpost:files.stage', request: { path: '/staged/notes.txt' } }])
  })

  it('a file the main side cannot read comes back typed, with its message; other stage failures as transport failures', async () => {
    const message = 'pipe is not a regular file (a device, a pipe or a socket): Outpost uploads files only.'
    const { bridge } = fakeBridge({
      'outpost:files.stage': (request) => {
        if ((request as { path: string }).path === '/x/pipe') throw new BridgeError({ source: 'ipc', kind: 'unreadable', message })
        throw new BridgeError({ source: 'ipc', kind: 'no-account', message: 'No workspace is set up yet.' })
      },
    })
    const transport = bridgeTransport(bridge)
    const unreadable = await transport.stage({ path: '/x/pipe', name: 'pipe' }).catch((e: unknown) => e)
    expect(unreadable).toBeInstanceOf(UnreadableFile)
    expect((unreadable as UnreadableFile).message).toBe(message)
    await expect(transport.stage({ path: '/x/a.txt', name: 'a.txt' })).rejects.toMatchObject({
      failure: { kind: 'auth', message: 'No workspace is set up yet.' },
    })
  })

  it('sweeps staged copies through the main side, keeping the ones named', async () => {
    const { bridge, calls } = fakeBridge({ 'outpost:files.sweep-staged': () => ({ removed: 2, kept: 1 }) })
    await expect(bridgeTransport(bridge).sweepStaged(['/data/staging/acc/x-a.png'])).resolves.toEqual({ removed: 2, kept: 1 })
    expect(calls).toEqual([{ channel: 'outpost:files.sweep-staged', request: { keep: ['/data/staging/acc/x-a.png'] } }])
  })

  it('uploads under the names the data layer gives, not the staged copies’ names', async () => {
    const { bridge, calls } = fakeBridge({ 'outpost:files.upload': () => [{ id: 4 }] })
    await bridgeTransport(bridge).upload([{ path: '/data/staging/x-a.png', name: 'Renamed.png' }], { storyId: 9 })
    expect(calls[0].request).toMatchObject({ paths: ['/data/staging/x-a.png'], names: ['Renamed.png'], storyId: 9 })
  })

  it('discards through the main side, and a refusal comes back as a failure', async () => {
    const { bridge, calls } = fakeBridge({
      'outpost:files.discard': (request) => {
        if ((request as { path: string }).path === '/etc/passwd') throw new BridgeError({ source: 'ipc', kind: 'invalid-request', message: 'not ours' })
        return undefined
      },
    })
    const transport = bridgeTransport(bridge)
    await expect(transport.discard('/data/files/acc/7/chart.png')).resolves.toBeUndefined()
    expect(calls).toEqual([{ channel: 'outpost:files.discard', request: { path: '/data/files/acc/7/chart.png' } }])
    await expect(transport.discard('/etc/passwd')).rejects.toMatchObject({ failure: { kind: 'http', status: 400, message: 'not ours' } })
  })

  it('downloads through the main side with the address and name the file row has, and names the content type from the file name', async () => {
    const { bridge, calls } = fakeBridge({ 'outpost:files.download': () => ({ path: '/cache/acc/7/chart.png', bytes: 2048 }) })
    await expect(bridgeTransport(bridge).download(7, 'http://127.0.0.1:9/media/7/chart.png', 'chart.png')).resolves.toEqual({
      path: '/cache/acc/7/chart.png',
      size: 2048,
      contentType: 'image/png',
    })
    expect(calls[0].request).toMatchObject({ fileId: 7, known: { url: 'http://127.0.0.1:9/media/7/chart.png', name: 'chart.png' } })
    expect(contentTypeOf('/x/README')).toBe('application/octet-stream')
  })
})

describe('failureOfIpc', () => {
  it('maps account, secret-store and bridge failures to the kinds replay reasons about', () => {
    expect(failureOfIpc({ source: 'account', kind: 'token-missing', message: 'gone' }).kind).toBe('auth')
    expect(failureOfIpc({ source: 'account', kind: 'unreachable', message: 'no' }).kind).toBe('network')
    expect(failureOfIpc({ source: 'secret-store', kind: 'unavailable', message: 'locked' }).kind).toBe('auth')
    expect(failureOfIpc({ source: 'ipc', kind: 'internal', message: 'host gone' }).kind).toBe('network')
    expect(failureOfIpc({ source: 'ipc', kind: 'no-account', message: 'none' }).kind).toBe('auth')
    expect(failureOfIpc({ source: 'ipc', kind: 'invalid-request', message: 'bad' })).toEqual({ kind: 'http', status: 400, message: 'bad' })
  })
})
