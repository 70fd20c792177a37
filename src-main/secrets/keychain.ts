// Tokens in the OS keychain through keytar: macOS Keychain, Windows Credential
// Manager, the Secret Service (gnome-keyring, KWallet) on Linux.
import type * as KeytarModule from 'keytar'
import { KEYCHAIN_SERVICE, SecretStoreError, reasonOf, type SecretStore, type SecretStoreDescription } from './secret-store.ts'

/** The part of keytar we use; the real module satisfies it. */
export type Keytar = Pick<typeof KeytarModule, 'getPassword' | 'setPassword' | 'deletePassword'>

/** Loads the native module; it can fail (not built for this Electron, missing libsecret). */
export async function loadKeytar(): Promise<Keytar> {
  const mod = (await import('keytar')) as Keytar & { default?: Keytar }
  return mod.default ?? mod
}

const KEYCHAIN_NAMES: Partial<Record<NodeJS.Platform, string>> = {
  darwin: 'macOS Keychain',
  win32: 'Windows Credential Manager',
  linux: 'Secret Service',
}

export class KeychainStore implements SecretStore {
  readonly kind = 'keychain' as const

  constructor(
    private readonly keytar: Keytar,
    private readonly service: string = KEYCHAIN_SERVICE,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  async get(account: string): Promise<string | null> {
    try {
      return await this.keytar.getPassword(this.service, account)
    } catch (error) {
      throw new SecretStoreError('failed', `Could not read the token from the OS keychain: ${reasonOf(error)}`, { cause: error })
    }
  }

  async set(account: string, secret: string): Promise<void> {
    try {
      await this.keytar.setPassword(this.service, account, secret)
    } catch (error) {
      throw new SecretStoreError('failed', `Could not save the token in the OS keychain: ${reasonOf(error)}`, { cause: error })
    }
  }

  async delete(account: string): Promise<boolean> {
    try {
      return await this.keytar.deletePassword(this.service, account)
    } catch (error) {
      throw new SecretStoreError('failed', `Could not delete the token from the OS keychain: ${reasonOf(error)}`, { cause: error })
    }
  }

  describe(): SecretStoreDescription {
    const backend = KEYCHAIN_NAMES[this.platform]
    return backend ? { kind: this.kind, backend } : { kind: this.kind }
  }

  /**
   * Proves the keychain works by writing, reading back and deleting a throwaway
   * entry: a reachable but locked or read-only keychain must fail here, not
   * when the user adds a workspace.
   */
  async probe(): Promise<void> {
    const account = `probe#${process.pid}`
    const value = `probe-${Date.now()}`
    await this.set(account, value)
    try {
      const read = await this.get(account)
      if (read !== value) throw new SecretStoreError('unavailable', 'The OS keychain did not give back what was written to it.')
    } finally {
      await this.delete(account)
    }
  }
}
