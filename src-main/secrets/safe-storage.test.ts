import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SafeStorageStore } from './safe-storage.ts'
import { SecretStoreError, workspaceSecretName } from './secret-store.ts'
import { fakeSafeStorage, filesHolding, filesUnder } from '../../testing/secrets.ts'

let dataDir: string
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'outpost-safe-storage-'))
})
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

const token = () => `svc_rw_${randomBytes(18).toString('base64url')}`
const account = workspaceSecretName('https://api.example.com', 'field-team')

describe('SafeStorageStore', () => {
  it('sets, gets and deletes a token, keeping only ciphertext in one file of the data folder', async () => {
    const secret = token()
    const store = new SafeStorageStore(fakeSafeStorage(), dataDir, { platform: 'linux' })
    expect(await store.get(account)).toBeNull()

    await store.set(account, secret)
    expect(await store.get(account)).toBe(secret)
    expect(await filesUnder(dataDir)).toEqual([store.file])
    expect(await filesHolding(dataDir, secret)).toEqual([])
    if (process.platform !== 'win32') expect((await stat(store.file)).mode & 0o777).toBe(0o600)

    expect(await store.delete(account)).toBe(true)
    expect(await store.get(account)).toBeNull()
    expect(await store.delete(account)).toBe(false)
    expect(JSON.parse(await readFile(store.file, 'utf8')).secrets).toEqual({})
  })

  it('keeps one entry per workspace and finds them again after a restart', async () => {
    const safeStorage = fakeSafeStorage()
    const first = new SafeStorageStore(safeStorage, dataDir)
    const names = ['a', 'b', 'c'].map((slug) => workspaceSecretName('https://api.example.com', slug))
    const secrets = names.map(() => token())
    // Concurrent writes to the one file must not lose each other.
    await Promise.all(names.map((n, i) => first.set(n, secrets[i])))

    const restarted = new SafeStorageStore(safeStorage, dataDir)
    expect(await Promise.all(names.map((n) => restarted.get(n)))).toEqual(secrets)
    await restarted.set(names[1], 'replaced')
    expect(await first.get(names[1])).toBe('replaced')
    expect(await first.get(names[0])).toBe(secrets[0])
  })

  it('says which Linux backend encrypts, and warns when it is basic_text', async () => {
    const libsecret = new SafeStorageStore(fakeSafeStorage({ backend: 'gnome_libsecret' }), dataDir, { platform: 'linux' })
    expect(libsecret.describe()).toEqual({ kind: 'safe-storage', backend: 'gnome_libsecret' })

    const basic = new SafeStorageStore(fakeSafeStorage({ backend: 'basic_text' }), dataDir, {
      platform: 'linux',
      keychainProblem: 'Cannot autolaunch D-Bus without X11 $DISPLAY',
    })
    const described = basic.describe()
    expect(described.kind).toBe('safe-storage')
    expect(described.backend).toBe('basic_text')
    expect(described.warning).toMatch(/only obfuscated/)
    expect(described.warning).toContain('Cannot autolaunch D-Bus')
  })

  it('says the keychain was not used, and asks no Linux backend elsewhere', () => {
    const safeStorage = fakeSafeStorage()
    safeStorage.getSelectedStorageBackend = () => {
      throw new Error('getSelectedStorageBackend is Linux-only')
    }
    const mac = new SafeStorageStore(safeStorage, dataDir, { platform: 'darwin', keychainProblem: 'keytar failed to load' })
    const described = mac.describe()
    expect(described.backend).toBeUndefined()
    expect(described.warning).toContain('keytar failed to load')
    expect(described.warning).toContain('safeStorage')
  })

  it('refuses to save when safeStorage cannot encrypt, and writes nothing', async () => {
    const store = new SafeStorageStore(fakeSafeStorage({ available: false }), dataDir)
    const error = await store.set(account, token()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SecretStoreError)
    expect((error as SecretStoreError).kind).toBe('unavailable')
    expect(await filesUnder(dataDir)).toEqual([])
  })

  it('reports a token it cannot decrypt (another machine key) as a failure, not as garbage', async () => {
    await new SafeStorageStore(fakeSafeStorage(), dataDir).set(account, token())
    const error = await new SafeStorageStore(fakeSafeStorage(), dataDir).get(account).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SecretStoreError)
    expect((error as SecretStoreError).kind).toBe('failed')
    expect((error as Error).message).toMatch(/sign in to the workspace again/)
  })

  it('treats an unreadable file as empty and replaces it on the next save', async () => {
    const store = new SafeStorageStore(fakeSafeStorage(), dataDir)
    await writeFile(store.file, '{ not json')
    expect(await store.get(account)).toBeNull()
    const secret = token()
    await store.set(account, secret)
    expect(await store.get(account)).toBe(secret)
  })
})
