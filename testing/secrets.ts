// Test helpers for the secret stores, never used by product code.
// `fakeSafeStorage` stands in for Electron's safeStorage (the Electron binary
// is absent here): real AES-GCM with a per-"machine" key, like Chromium's OSCrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SafeStorageApi } from '../src-main/secrets/safe-storage.ts'

export type SafeStorageBackend = ReturnType<NonNullable<SafeStorageApi['getSelectedStorageBackend']>>

export interface FakeSafeStorage extends SafeStorageApi {
  calls: { encrypt: number; decrypt: number }
}

export function fakeSafeStorage(options: { backend?: SafeStorageBackend; available?: boolean; key?: Buffer } = {}): FakeSafeStorage {
  const key = options.key ?? randomBytes(32)
  const calls = { encrypt: 0, decrypt: 0 }
  return {
    calls,
    isEncryptionAvailable: () => options.available ?? true,
    getSelectedStorageBackend: () => options.backend ?? 'gnome_libsecret',
    encryptString(plainText: string): Buffer {
      calls.encrypt++
      if (options.available === false) throw new Error('Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.')
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()])
      return Buffer.concat([Buffer.from('v11'), iv, cipher.getAuthTag(), body])
    },
    decryptString(encrypted: Buffer): string {
      calls.decrypt++
      const iv = encrypted.subarray(3, 15)
      const decipher = createDecipheriv('aes-256-gcm', key, iv)
      decipher.setAuthTag(encrypted.subarray(15, 31))
      return Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString('utf8')
    },
  }
}

/** Every regular file under a folder (sockets and the like are skipped). */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = []
  const walk = async (d: string): Promise<void> => {
    let entries
    try {
      entries = await readdir(d, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const p = join(d, e.name)
      if (e.isDirectory()) await walk(p)
      else if (e.isFile()) out.push(p)
    }
  }
  await walk(dir)
  return out.sort()
}

/** The files under a folder whose bytes hold the secret in clear (UTF-8, UTF-16, base64). */
export async function filesHolding(dir: string, secret: string): Promise<string[]> {
  const needles = [Buffer.from(secret, 'utf8'), Buffer.from(secret, 'utf16le'), Buffer.from(Buffer.from(secret).toString('base64'))]
  const hits: string[] = []
  for (const file of await filesUnder(dir)) {
    let bytes: Buffer
    try {
      bytes = await readFile(file)
    } catch {
      continue
    }
    if (needles.some((n) => bytes.includes(n))) hits.push(file)
  }
  return hits
}
