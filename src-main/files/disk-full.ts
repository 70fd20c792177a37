// A disk with no room left (ENOSPC), or a user's disk quota used up (EDQUOT):
// never a bug of Outpost nor a fault of the request, but something the person
// can fix, so it is said in their words wherever the main side writes a file
// (the file cache, staged copies, the accounts file).

const CODES = new Set(['ENOSPC', 'EDQUOT'])

/** Whether `error`, or an error it was caused by, is the disk refusing for want of space. */
export function isDiskFull(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | null | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && CODES.has(e.code)) return true
  }
  return false
}

export const DISK_FULL_MESSAGE = 'Your disk is full, so Outpost could not save what it was writing. Free some space on this computer, then try again.'

/** A download that found no room even after the file cache was cleared. */
export const DISK_FULL_DOWNLOAD_MESSAGE =
  'Your disk is full, so the file could not be downloaded. Outpost cleared its other downloaded files to make room, and it was not enough: free some space on this computer, then try again.'

/** A dropped file that could not be kept for upload (the file cache was cleared meanwhile). */
export const diskFullForStaging = (name: string): string =>
  `Your disk is full, so ${name} could not be kept for upload. Outpost cleared its downloaded files to make room; free some space on this computer if need be, then drop it again.`
