// What the screens can do with a downloaded file's content
// (Workspace.files, features/context.ts): open it, and read its bytes for
// thumbnails and previews. The bytes stay on the main side's disk, in its
// file cache; the page asks for them by the file's id.
//
// Opening: the desktop app hands a document or media file to the OS's app for
// it, and shows anything else in its folder (it could run as a program), with a
// sentence saying so for the screen to show. A browser
// cannot (the browser host answers `unsupported`), so there the file opens as
// a preview in a new tab, from a blob: URL of its bytes. A preview never runs
// the file: HTML, SVG and other text show as plain text; what a browser cannot
// show (or a blocked tab) is saved through the browser's downloads instead.
import type { CachedFile, CachedFileContent } from '../data/types.ts'
import type { WorkspaceFiles } from '../features/context.ts'
import { BridgeError, type Bridge } from '../lib/bridge.ts'

/** What the browser does with a blob: URL; the page's `window` by default. */
export interface BrowserShow {
  /** Opens the URL in a new tab; false when the browser blocked it. */
  preview(url: string): boolean
  /** Saves the URL as a download named `name`. */
  save(url: string, name: string): void
}

const pageShow: BrowserShow = {
  preview(url) {
    const tab = window.open(url, '_blank')
    if (!tab) return false
    // The tab is ours (same origin): it gets no handle back to this page.
    tab.opener = null
    return true
  },
  save(url, name) {
    const link = document.createElement('a')
    link.href = url
    link.download = name
    link.rel = 'noopener'
    document.body.append(link)
    link.click()
    link.remove()
  },
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-yaml|yaml|toml|x-sh)\b|image\/svg\+xml)/i
const SHOWN_AS_IS = /^(image\/(png|jpeg|gif|webp|avif|bmp)|application\/pdf|video\/(mp4|webm|ogg)|audio\/(mpeg|ogg|wav|webm))$/i

/**
 * How a file of `contentType` is shown in a browser tab: as is (images, PDF,
 * audio, video), as plain text (anything textual: HTML and SVG would run as
 * pages of our origin), or not at all (saved instead).
 */
export function previewTypeOf(contentType: string): string | undefined {
  const type = contentType.split(';')[0].trim().toLowerCase()
  if (SHOWN_AS_IS.test(type)) return type
  if (TEXT_TYPES.test(type)) return 'text/plain;charset=utf-8'
  return undefined
}

/** The service's id of a file whose content is cached; a file still waiting to upload has none. */
function serviceIdOf(content: Pick<CachedFileContent, 'id'>): number {
  const id = Number(content.id)
  if (!Number.isSafeInteger(id) || id < 1) throw new Error('This file has not been uploaded yet, so there is nothing downloaded to open.')
  return id
}

/** How long a preview's blob: URL stays valid: enough for the new tab to load it. */
const PREVIEW_URL_LIFETIME_MS = 60_000

export interface OpenedFiles extends Required<WorkspaceFiles> {
  read(content: CachedFileContent, options?: { maxBytes?: number }): Promise<Blob>
}

export function workspaceFiles(bridge: Pick<Bridge, 'call'>, show: BrowserShow = pageShow): OpenedFiles {
  /** The bytes, or their first `maxBytes` (a text preview): the Blob is smaller than `content.size` then. */
  const read = async (content: CachedFileContent, options: { maxBytes?: number } = {}): Promise<Blob> => {
    const answer = await bridge.call('outpost:files.read', {
      fileId: serviceIdOf(content),
      ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
    })
    return new Blob([answer.bytes as Uint8Array<ArrayBuffer>], { type: content.contentType || answer.contentType })
  }

  const open = async (content: CachedFileContent, file: CachedFile): Promise<string | undefined> => {
    try {
      const opened = await bridge.call('outpost:files.open', { fileId: serviceIdOf(content) })
      return opened.opened === 'in-folder' ? opened.message : undefined
    } catch (error) {
      if (!(error instanceof BridgeError && error.error.source === 'ipc' && error.error.kind === 'unsupported')) throw error
    }
    const blob = await read(content)
    const type = previewTypeOf(content.contentType || file.content_type || blob.type)
    const url = URL.createObjectURL(type ? new Blob([blob], { type }) : blob)
    setTimeout(() => URL.revokeObjectURL(url), PREVIEW_URL_LIFETIME_MS)
    if (!type || !show.preview(url)) show.save(url, file.name)
    return undefined
  }

  return { open, read }
}
