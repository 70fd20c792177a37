// Falling back from the keychain to safeStorage. The keychain itself is
// exercised for real in keychain.test.ts; here keytar fails the ways it does
// in the field: the native module does not load, or no Secret Service answers.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Keytar } from './keychain.ts'
import { openSecretStore } from './open.ts'
import { SecretStoreError } from './secret-store.ts'
import { fakeSafeStorage, filesHolding } from '../../testing/secrets.ts'

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'outpost-open-'))
})
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

/** keytar on a Linux box with no session bus: every call rejects with libsecret's words. */
const keytarWithoutSecretService: Keytar = {
  getPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  setPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
  deletePassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')),
}

describe('openSecretStore', () => {
  it('falls back to safeStorage when keytar cannot load, and says why', async () => {
    // A real failing import, as when the native module was not built for this Electron.
    const missing = './keytar-native-module-that-is-not-built.node'
    const store = await openSecretStore({
      loadKeytar: () => import(/* @vite-ignore */ missing),
      safeStorage: fakeSafeStorage({ backend: 'gnome_libsecret' }),
      dataDir,
      platform: 'linux',
    })
    expect(store.kind).toBe('safe-storage')
    const described = store.describe()
    expect(described).toMatchObject({ kind: 'safe-storage', backend: 'gnome_libsecret' })
    expect(described.warning).toMatch(/keytar-native-module-that-is-not-built/)

    await store.set('https://api.example.com#demo', 'svc_rw_secret-value')
    expect(await store.get('https://api.example.com#demo')).toBe('svc_rw_secret-value')
    expect(await filesHolding(dataDir, 'svc_rw_secret-value')).toEqual([])
  })

  it('falls back when no Secret Service answers, and warns about basic_text', async () => {
    const store = await openSecretStore({
      loadKeytar: async () => keytarWithoutSecretService,
      safeStorage: fakeSafeStorage({ backend: 'basic_text' }),
      dataDir,
      platform: 'linux',
    })
    expect(store.kind).toBe('safe-storage')
    const described = store.describe()
    expect(described.backend).toBe('basic_text')
    expect(described.warning).toMatch(/only obfuscated/)
    expect(described.warning).toContain('Cannot autolaunch D-Bus without X11 $DISPLAY')
  })

  it('stops with a clear error when neither the keychain nor safeStorage can keep a token', async () => {
    const error = await openSecretStore({
      loadKeytar: async () => keytarWithoutSecretService,
      safeStorage: fakeSafeStorage({ available: false }),
      dataDir,
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SecretStoreError)
    expect((error as SecretStoreError).kind).toBe('unavailable')
    expect((error as Error).message).toMatch(/cannot store tokens/)
  })
})
