// Where the browser host keeps tokens when the OS keychain cannot be used
// (CI, a machine without a keyring): in memory, for this run only. Never on
// disk: a token is lost when the host stops, and the user is told so.
import type { SecretStore, SecretStoreDescription } from '../src-main/secrets/secret-store.ts'

export class MemorySecretStore implements SecretStore {
  // The browser host's stand-in for safeStorage: like it, not the keychain.
  readonly kind = 'safe-storage' as const
  private readonly secrets = new Map<string, string>()

  async get(account: string): Promise<string | null> {
    return this.secrets.get(account) ?? null
  }

  async set(account: string, secret: string): Promise<void> {
    this.secrets.set(account, secret)
  }

  async delete(account: string): Promise<boolean> {
    return this.secrets.delete(account)
  }

  describe(): SecretStoreDescription {
    return {
      kind: this.kind,
      backend: 'memory',
      warning: 'The browser host keeps tokens in memory for this run only: add the workspace again after restarting it.',
    }
  }
}
