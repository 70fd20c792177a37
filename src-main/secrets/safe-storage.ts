// The fallback for machines without a keychain service: tokens encrypted with
// Electron's safeStorage, the ciphertexts kept in one small file in the app's
// data folder. On Linux without a keyring, safeStorage itself falls back to
// `basic_text` (a hard-coded key): the token is then only obfuscated, and the
// user is told so.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SafeStorage } from 'electron'
import { SecretStoreError, reasonOf, type SecretStore, type SecretStoreDescription } from './secret-store.ts'
import { writeFileAtomically } from './write-atomically.ts'

/** The part of Electron's safeStorage we use (Electron's own object satisfies it). */
export type SafeStorageApi = Pick<SafeStorage, 'encryptString' | 'decryptString' | 'isEncryptionAvailable'> & {
  /** Linux only. */
  getSelectedStorageBackend?: SafeStorage['getSelectedStorageBackend']
}

export const SAFE_STORAGE_FILE = 'secrets.json'

interface SecretsFile {
  version: 1
  /** account -> base64 ciphertext from safeStorage.encryptString */
  secrets: Record<string, string>
}

export interface SafeStorageStoreOptions {
  /** Why the keychain was not used; shown with the store. */
  keychainProblem?: string
  platform?: NodeJS.Platform
}

export class SafeStorageStore implements SecretStore {
  readonly kind = 'safe-storage' as const
  readonly file: string
  private readonly platform: NodeJS.Platform
  /** Writes are read-modify-write of one file: one at a time. */
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly safeStorage: SafeStorageApi,
    dataDir: string,
    private readonly options: SafeStorageStoreOptions = {},
  ) {
    this.file = join(dataDir, SAFE_STORAGE_FILE)
    this.platform = options.platform ?? process.platform
  }

  /** Encryption works (on Linux and Windows only once the app is ready). */
  available(): boolean {
    return this.safeStorage.isEncryptionAvailable()
  }

  async get(account: string): Promise<string | null> {
    await this.queue
    const stored = (await this.read()).secrets[account]
    if (stored === undefined) return null
    try {
      return this.safeStorage.decryptString(Buffer.from(stored, 'base64'))
    } catch (error) {
      throw new SecretStoreError('failed', `Could not decrypt the saved token (sign in to the workspace again): ${reasonOf(error)}`, { cause: error })
    }
  }

  set(account: string, secret: string): Promise<void> {
    return this.serialized(async () => {
      if (!this.available()) {
        throw new SecretStoreError('unavailable', 'Electron safeStorage cannot encrypt on this machine, so the token cannot be saved.')
      }
      let ciphertext: Buffer
      try {
        ciphertext = this.safeStorage.encryptString(secret)
      } catch (error) {
        throw new SecretStoreError('failed', `Could not encrypt the token: ${reasonOf(error)}`, { cause: error })
      }
      const file = await this.read()
      file.secrets[account] = ciphertext.toString('base64')
      await this.write(file)
    })
  }

  delete(account: string): Promise<boolean> {
    return this.serialized(async () => {
      const file = await this.read()
      if (!(account in file.secrets)) return false
      delete file.secrets[account]
      await this.write(file)
      return true
    })
  }

  backend(): string | undefined {
    return this.platform === 'linux' ? this.safeStorage.getSelectedStorageBackend?.() : undefined
  }

  describe(): SecretStoreDescription {
    const backend = this.backend()
    const description: SecretStoreDescription = backend ? { kind: this.kind, backend } : { kind: this.kind }
    const why = this.options.keychainProblem ? ` (${this.options.keychainProblem})` : ''
    if (backend === 'basic_text') {
      description.warning =
        `No keychain service is available${why}, so tokens are only obfuscated on disk, not encrypted. ` +
        'Install and unlock a keyring (GNOME Keyring or KWallet) and restart Outpost to protect them.'
    } else if (this.options.keychainProblem) {
      description.warning = `The OS keychain could not be used${why}; tokens are encrypted with Electron safeStorage in the app's data folder instead.`
    }
    return description
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work)
    this.queue = result.catch(() => undefined)
    return result
  }

  /** A missing or unreadable file holds no secrets; the next write replaces it. */
  private async read(): Promise<SecretsFile> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, secrets: {} }
      throw new SecretStoreError('failed', `Could not read ${this.file}: ${reasonOf(error)}`, { cause: error })
    }
    try {
      const parsed = JSON.parse(text) as Partial<SecretsFile>
      const secrets = parsed && typeof parsed.secrets === 'object' && parsed.secrets !== null ? parsed.secrets : {}
      return { version: 1, secrets: Object.fromEntries(Object.entries(secrets).filter(([, v]) => typeof v === 'string')) }
    } catch {
      return { version: 1, secrets: {} }
    }
  }

  private async write(file: SecretsFile): Promise<void> {
    try {
      await writeFileAtomically(this.file, `${JSON.stringify(file, null, 2)}\n`)
    } catch (error) {
      throw new SecretStoreError('failed', `Could not write ${this.file}: ${reasonOf(error)}`, { cause: error })
    }
  }
}
