// Files the user dropped, from the drop to the outbox, and the progress of
// each upload once replay sends it.
//
// A drop goes: a file over the upload limit is refused at once, unread; the
// bytes of the others are handed to the main side (a path it may read:
// Electron's dropped-file path, or the browser host's staged copy, streamed
// to it by the browser), then
// `actions.uploadFile` copies them into durable staging and queues the upload
// (an offline drop is kept and shown as queued). Replay uploads them later.
//
// Progress: the outbox sends uploads through `Transport.upload`; the shell can
// wrap its transport with `withUploadProgress` so each upload reports progress
// by its staged path (which the queued record carries). Without the wrapper,
// the main side's 'upload-progress' events are given to the one file upload in
// flight, which is what replay sends at a time.
import { SvelteMap } from 'svelte/reactivity'
import { notices } from '../../lib/notices.svelte.ts'
import type { Actions } from '../../data/actions.ts'
import type { Transport } from '../../data/transport.ts'
import type { EntityId } from '../../data/types.ts'
import { bridge, type Bridge } from '../../lib/bridge.ts'
import { messageOf } from '../../lib/errors.ts'
import { tooLargeToUpload, UPLOAD_LIMIT_BYTES } from '../../../../src-shared/ipc.ts'
import type { Workspace } from '../context.ts'

export interface UploadProgress {
  sent: number
  total: number
}

/** Progress of uploads being sent, by the staged path the queued record names. */
export const uploadProgress = new SvelteMap<string, UploadProgress>()

/** The last progress event of the main side that no wrapper claimed (see above). */
export const looseProgress = $state<{ value: UploadProgress | null }>({ value: null })

/** A Transport whose uploads report their progress into `uploadProgress`. */
export function withUploadProgress<T extends Transport>(transport: T): T {
  return {
    ...transport,
    upload: (files, options = {}) => {
      const key = files[0]?.path
      return transport
        .upload(files, {
          ...options,
          onProgress: (sent, total) => {
            if (key) uploadProgress.set(key, { sent, total })
            options.onProgress?.(sent, total)
          },
        })
        .finally(() => {
          if (key) uploadProgress.delete(key)
        })
    },
  } as T
}

/** Listens to the main side's upload progress (the fallback described above); returns the function that stops. */
export function followUploadEvents(bridge: Pick<Bridge, 'on'>): () => void {
  return bridge.on('outpost:upload-progress', (p) => {
    looseProgress.value = { sent: p.bytesSent, total: p.bytesTotal }
  })
}

export interface DroppedFile {
  /** Until queued, a key of our own; then the entity's local id. */
  key: string
  id?: EntityId
  name: string
  size: number
  type: string
  /** A blob: URL of an image, for its thumbnail (the CSP allows blob: images). */
  preview?: string
  phase: 'preparing' | 'queued' | 'error'
  error?: string
}

/** Thumbnails of images dropped in this session, by the local id of their upload. */
export const previews = new SvelteMap<string, string>()

/** Sizes of files dropped in this session, by the local id of their upload (a staged copy may not say its size). */
export const droppedSizes = new SvelteMap<string, number>()

/**
 * Names of files dropped in this session, by the local id of their upload: the upload tray takes from here an upload
 * the outbox held too briefly for its reads to see.
 */
export const droppedNames = new SvelteMap<string, string>()

export class Drops {
  items = $state<DroppedFile[]>([])

  /**
   * Queues each file for upload. `pathOf` turns a dropped File into a path
   * the main side may read (bridge.pathForFile).
   */
  add = async (files: File[], actions: Actions, pathOf: (file: File) => Promise<string>): Promise<EntityId[]> => {
    const made = files.map((file, i) => ({
      key: `drop-${Date.now()}-${i}-${Math.random().toString(36).slice(2, 7)}`,
      name: file.name,
      size: file.size,
      type: file.type,
      preview: file.type.startsWith('image/') && file.size < 20_000_000 ? URL.createObjectURL(file) : undefined,
      phase: 'preparing' as const,
    }))
    this.items = [...made, ...this.items]
    const ids: EntityId[] = []
    // One at a time: staging reads the whole file, and the first ones show up first.
    for (const [i, file] of files.entries()) {
      const key = made[i].key
      // Too big for the service: said at once, before any of it is read or copied.
      if (file.size > UPLOAD_LIMIT_BYTES) {
        this.update(key, { phase: 'error', error: tooLargeToUpload(file.name) })
        continue
      }
      try {
        const path = await pathOf(file)
        const id = await actions.uploadFile({ path, name: file.name })
        ids.push(id)
        droppedSizes.set(String(id), file.size)
        droppedNames.set(String(id), file.name)
        if (made[i].preview) previews.set(String(id), made[i].preview)
        // Queued: from now on the file list shows it (from the overlay), with its record's state.
        this.items = this.items.filter((d) => d.key !== key)
      } catch (error) {
        this.update(key, { phase: 'error', error: messageOf(error) })
      }
    }
    return ids
  }

  dismiss = (key: string) => {
    const item = this.items.find((d) => d.key === key)
    if (item?.preview && ![...previews.values()].includes(item.preview)) URL.revokeObjectURL(item.preview)
    this.items = this.items.filter((d) => d.key !== key)
  }

  private update(key: string, patch: Partial<DroppedFile>) {
    this.items = this.items.map((d) => (d.key === key ? { ...d, ...patch } : d))
  }
}

/** The drops of this window (one list: the drop zone adds, the Files screen shows). */
export const drops = new Drops()

/** The topic of the notice that files were queued: a failure in the upload tray takes it away. */
export const QUEUED_NOTICE = 'uploads-queued'

/**
 * Queues files dropped on the window or picked (through the bridge's path for each) and says what happened:
 * queued to upload, or why they could not be.
 */
export async function queueFiles(files: File[], workspace: Pick<Workspace, 'actions' | 'online'>): Promise<void> {
  try {
    const b = bridge()
    const ids = await drops.add(files, workspace.actions, (file) => b.pathForFile(file))
    if (ids.length > 0) noticeQueued(ids.length, files[0].name, workspace.online)
  } catch (error) {
    notices.show(`The files could not be queued: ${messageOf(error)}`, 'error')
  }
}

/** Tells the user that `count` files were queued (one: `name`): uploading now, or kept until the window is back online. */
function noticeQueued(count: number, name: string, online: Workspace['online']): void {
  const what = count === 1 ? `“${name}”` : `${count} files`
  notices.show(
    online === false ? `${what} kept on this computer; uploading when you are back online` : `Uploading ${what}`,
    'success',
    undefined,
    QUEUED_NOTICE,
  )
}
