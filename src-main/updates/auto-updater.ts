// electron-updater's autoUpdater as the Updater of updates.ts. Only the
// packaged app uses it (index.ts loads electron-updater there); it is typed by
// the few members used, so this file loads without Electron and a test hands
// in a stand-in. Downloads are started by updates.ts, never by the updater on
// its own, and the app is not replaced on quit behind the user's back: the
// window offers "Restart to update".
import type { OfferedUpdate, Updater } from './updates.ts'

/** The members of electron-updater's AppUpdater used here. */
export interface AutoUpdaterLike {
  autoDownload: boolean
  autoInstallOnAppQuit: boolean
  checkForUpdates(): Promise<{ updateInfo: OfferedUpdate } | null>
  downloadUpdate(): Promise<unknown>
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void
  on(event: 'download-progress', listener: (progress: { percent: number }) => void): unknown
  off(event: 'download-progress', listener: (progress: { percent: number }) => void): unknown
  /** electron-updater logs to the console unless told otherwise; its errors reach updates.ts as rejections. */
  logger: unknown
}

export function autoUpdaterAsUpdater(
  autoUpdater: AutoUpdaterLike,
  log?: { info(message: string): void; warn(message: string): void; error(message: string): void },
): Updater {
  autoUpdater.autoDownload = false
  autoUpdater.autoInstallOnAppQuit = false
  autoUpdater.logger = log ?? null
  return {
    async check() {
      const result = await autoUpdater.checkForUpdates()
      // null: the updater is not active (not packaged, or no app-update.yml in the resources).
      if (!result) throw new Error('this build has no update feed')
      return { version: result.updateInfo.version, releaseDate: result.updateInfo.releaseDate }
    },
    async download(onProgress) {
      const listener = (progress: { percent: number }) => onProgress(progress.percent)
      autoUpdater.on('download-progress', listener)
      try {
        await autoUpdater.downloadUpdate()
      } finally {
        autoUpdater.off('download-progress', listener)
      }
    },
    install() {
      // Not silent (the Windows installer shows its progress), and Outpost starts again afterwards.
      autoUpdater.quitAndInstall(false, true)
    },
  }
}
