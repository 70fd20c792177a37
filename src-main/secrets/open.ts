// Picks where tokens live on this machine: the OS keychain when it answers,
// else Electron safeStorage in the app's data folder. The choice is shown to
// the user through describe().
import { KeychainStore, loadKeytar as defaultLoadKeytar, type Keytar } from './keychain.ts'
import { SafeStorageStore, type SafeStorageApi } from './safe-storage.ts'
import { KEYCHAIN_SERVICE, SecretStoreError, reasonOf, type SecretStore } from './secret-store.ts'

export interface OpenSecretStoreOptions {
  /** Loads keytar; rejects when the native module cannot load. */
  loadKeytar?: () => Promise<Keytar>
  safeStorage: SafeStorageApi
  /** The app's data folder (Electron's `userData`), for the fallback file. */
  dataDir: string
  /** Keychain service name; tests use their own. */
  service?: string
  platform?: NodeJS.Platform
}

export async function openSecretStore(options: OpenSecretStoreOptions): Promise<SecretStore> {
  const { loadKeytar = defaultLoadKeytar, safeStorage, dataDir, service = KEYCHAIN_SERVICE, platform = process.platform } = options
  let keychainProblem: string
  try {
    const keychain = new KeychainStore(await loadKeytar(), service, platform)
    await keychain.probe()
    return keychain
  } catch (error) {
    // keytar's own words ("Cannot autolaunch D-Bus without X11 $DISPLAY") say most.
    keychainProblem = reasonOf(error instanceof SecretStoreError && error.cause ? error.cause : error)
  }
  const fallback = new SafeStorageStore(safeStorage, dataDir, { keychainProblem, platform })
  if (!fallback.available()) {
    throw new SecretStoreError(
      'unavailable',
      `Outpost cannot store tokens on this machine: the OS keychain failed (${keychainProblem}) and Electron safeStorage cannot encrypt.`,
    )
  }
  return fallback
}
