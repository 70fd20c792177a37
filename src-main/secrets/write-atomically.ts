// Small state files (accounts, fallback secrets) are replaced whole: write a
// temporary file next to the target, flush it, rename it over the target.
// A crash leaves either the old file or the new one, never half of each.
import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { dirname } from 'node:path'

export async function writeFileAtomically(file: string, data: string, mode = 0o600): Promise<void> {
  const dir = dirname(file)
  await mkdir(dir, { recursive: true })
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
  try {
    const handle = await open(temporary, 'w', mode)
    try {
      await handle.writeFile(data)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temporary, file)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  await syncDirectory(dir)
}

/** Makes the rename itself durable; Windows cannot open directories, and does not need to. */
async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  } finally {
    await handle.close()
  }
}
