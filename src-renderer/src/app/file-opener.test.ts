import { resolveObjectURL } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import type { FileOpened, IpcError, RequestChannel } from '../../../src-shared/ipc.ts'
import type { CachedFile, CachedFileContent } from '../data/types.ts'
import { BridgeError, type Bridge } from '../lib/bridge.ts'
import { previewTypeOf, workspaceFiles, type BrowserShow } from './file-opener.ts'

const BYTES = Uint8Array.from([0, 1, 2, 250, 255, 60, 115, 99, 114, 105, 112, 116, 62])

const content = (contentType: string): CachedFileContent => ({ id: 7, path: '/cache/acc/7/x', size: BYTES.length, contentType, lastUsedAt: 0 })
const file = (name: string, contentType: string) => ({ id: 7, name, content_type: contentType }) as CachedFile

/** A bridge answering files.read with BYTES, and files.open as told (opened with its app by default). */
function bridgeWith(openAnswer: IpcError | FileOpened | undefined) {
  const calls: { channel: RequestChannel; request: unknown }[] = []
  const bridge = {
    call: (async (channel: RequestChannel, request?: unknown) => {
      calls.push({ channel, request })
      if (channel === 'outpost:files.read') return { bytes: BYTES, size: BYTES.length, truncated: false, contentType: 'application/octet-stream' }
      if (channel === 'outpost:files.open') {
        if (openAnswer && 'source' in openAnswer) throw new BridgeError(openAnswer)
        return openAnswer ?? { opened: 'with-app' }
      }
      throw new Error(`unexpected ${channel}`)
    }) as Bridge['call'],
  }
  return { bridge, calls }
}

function recordingShow(previewAllowed = true) {
  const shown: { how: 'preview' | 'save'; url: string; name?: string }[] = []
  const show: BrowserShow = {
    preview: (url) => {
      shown.push({ how: 'preview', url })
      return previewAllowed
    },
    save: (url, name) => void shown.push({ how: 'save', url, name }),
  }
  return { show, shown }
}

const unsupported: IpcError = { source: 'ipc', kind: 'unsupported', message: 'A browser cannot open files with the apps on this computer' }

describe('workspaceFiles', () => {
  it('reads a downloaded file’s exact bytes as a Blob of its type', async () => {
    const { bridge, calls } = bridgeWith(undefined)
    const blob = await workspaceFiles(bridge).read(content('image/png'))
    expect(blob.type).toBe('image/png')
    expect(Array.from(new Uint8Array(await blob.arrayBuffer()))).toEqual(Array.from(BYTES))
    expect(calls).toEqual([{ channel: 'outpost:files.read', request: { fileId: 7 } }])
    await workspaceFiles(bridge).read(content('text/markdown'), { maxBytes: 4096 })
    expect(calls[1]).toEqual({ channel: 'outpost:files.read', request: { fileId: 7, maxBytes: 4096 } })
  })

  it('opens with the OS’s app in the desktop app, and passes its refusal on', async () => {
    const { bridge, calls } = bridgeWith(undefined)
    const { show, shown } = recordingShow()
    expect(await workspaceFiles(bridge, show).open(content('application/pdf'), file('plan.pdf', 'application/pdf'))).toBeUndefined()
    expect(calls).toEqual([{ channel: 'outpost:files.open', request: { fileId: 7 } }])
    expect(shown).toEqual([])
    const refused = bridgeWith({ source: 'ipc', kind: 'cannot-open', message: 'no app for .xyz' })
    await expect(workspaceFiles(refused.bridge, show).open(content('x/y'), file('a.xyz', 'x/y'))).rejects.toMatchObject({ error: { kind: 'cannot-open' } })
  })

  it('answers the sentence to show when the desktop app showed the file in its folder instead', async () => {
    const message = 'Outpost opens documents and media directly; setup.exe could run as a program, so it is shown in its folder instead.'
    const { bridge } = bridgeWith({ opened: 'in-folder', message })
    const { show, shown } = recordingShow()
    expect(await workspaceFiles(bridge, show).open(content('application/octet-stream'), file('setup.exe', 'application/octet-stream'))).toBe(message)
    expect(shown).toEqual([])
  })

  it('previews in a browser tab where no OS app can be used, as plain text when the file could run', async () => {
    const { bridge } = bridgeWith(unsupported)
    const { show, shown } = recordingShow()
    await workspaceFiles(bridge, show).open(content('text/html'), file('page.html', 'text/html'))
    expect(shown).toHaveLength(1)
    expect(shown[0].how).toBe('preview')
    const previewed = resolveObjectURL(shown[0].url)
    expect(previewed?.type).toBe('text/plain;charset=utf-8')
    expect(Array.from(new Uint8Array(await previewed!.arrayBuffer()))).toEqual(Array.from(BYTES))
  })

  it('saves what a tab cannot show, and what the browser would not open in a tab', async () => {
    const { bridge } = bridgeWith(unsupported)
    const zip = recordingShow()
    await workspaceFiles(bridge, zip.show).open(content('application/zip'), file('all.zip', 'application/zip'))
    expect(zip.shown.map((s) => [s.how, s.name])).toEqual([['save', 'all.zip']])
    const blocked = recordingShow(false)
    await workspaceFiles(bridge, blocked.show).open(content('image/png'), file('chart.png', 'image/png'))
    expect(blocked.shown.map((s) => [s.how, s.name])).toEqual([
      ['preview', undefined],
      ['save', 'chart.png'],
    ])
  })

  it('has nothing to open for a file that has not been uploaded yet', async () => {
    const { bridge, calls } = bridgeWith(undefined)
    await expect(workspaceFiles(bridge).read({ ...content('image/png'), id: 'local-3' })).rejects.toThrow('not been uploaded')
    expect(calls).toEqual([])
  })
})

describe('previewTypeOf', () => {
  it('shows images, PDF and media as they are, any text (HTML and SVG included) as plain text, and nothing else', () => {
    expect(previewTypeOf('image/png')).toBe('image/png')
    expect(previewTypeOf('application/pdf')).toBe('application/pdf')
    expect(previewTypeOf('video/mp4')).toBe('video/mp4')
    expect(previewTypeOf('text/html; charset=utf-8')).toBe('text/plain;charset=utf-8')
    expect(previewTypeOf('image/svg+xml')).toBe('text/plain;charset=utf-8')
    expect(previewTypeOf('text/markdown')).toBe('text/plain;charset=utf-8')
    expect(previewTypeOf('application/json')).toBe('text/plain;charset=utf-8')
    expect(previewTypeOf('application/zip')).toBeUndefined()
    expect(previewTypeOf('application/xhtml+xml')).toBeUndefined()
  })
})
