// The OS keychain for real: keytar talking to gnome-keyring's Secret Service
// over D-Bus. Run anywhere with `npx vitest run`: outside the keychain sandbox
// this file re-runs itself through scripts/with-keychain.sh (a private session
// bus and a throwaway keyring in a temporary folder) and passes only if every
// keychain test passed there. It never touches the user's own keyring.
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as KeytarModule from 'keytar'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { testService } from '../../testing/service.ts'
import { Accounts, secretNameOf } from '../accounts/accounts.ts'
import { KeychainStore, loadKeytar, type Keytar } from './keychain.ts'
import { openSecretStore } from './open.ts'
import { KEYCHAIN_SERVICE, workspaceSecretName } from './secret-store.ts'
import { fakeSafeStorage, filesHolding, filesUnder } from '../../testing/secrets.ts'

const thisFile = fileURLToPath(import.meta.url)
const repoRoot = resolve(dirname(thisFile), '../..')
/** Set by scripts/with-keychain.sh: we run next to a throwaway keyring. */
const sandbox = process.env.OUTPOST_KEYCHAIN_SANDBOX

/** The tests that must pass inside the sandbox for the outer run to pass. */
const KEYCHAIN_TESTS = {
  bus: 'runs on a private session bus with a Secret Service',
  open: 'openSecretStore picks the keychain and leaves no probe entry and no file behind',
  roundTrip: 'sets, reads back and deletes a token in the keyring, and writes it nowhere else',
  perWorkspace: 'keeps one entry per workspace (base URL + slug)',
  accounts: 'an account added against the local service keeps its token in the keychain only, and removing it deletes the entry',
}

type FullKeytar = Keytar & Pick<typeof KeytarModule, 'findCredentials'>
const newToken = () => `svc_rw_${randomBytes(24).toString('base64url')}`

describe.runIf(!sandbox)('outside a keychain sandbox', () => {
  it('re-runs this file next to a real keychain (scripts/with-keychain.sh) and every keychain test passes', { timeout: 120_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'outpost-keychain-report-'))
    try {
      const report = join(out, 'report.json')
      // A clean environment for the child Vitest: none of this worker's VITEST_* variables.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')))
      const child = await run(
        'bash',
        ['scripts/with-keychain.sh', 'npx', 'vitest', 'run', relative(repoRoot, thisFile), '--reporter=json', `--outputFile=${report}`],
        { cwd: repoRoot, env },
      )
      expect(child.code, `scripts/with-keychain.sh failed:\n${child.output}`).toBe(0)
      const results = JSON.parse(await readFile(report, 'utf8')) as {
        numFailedTests: number
        testResults: { assertionResults: { title: string; status: string }[] }[]
      }
      const passed = results.testResults
        .flatMap((f) => f.assertionResults)
        .filter((a) => a.status === 'passed')
        .map((a) => a.title)
      expect(results.numFailedTests).toBe(0)
      expect(passed.sort()).toEqual(Object.values(KEYCHAIN_TESTS).sort())
    } finally {
      await rm(out, { recursive: true, force: true })
    }
  })

  const noBusAtAll = process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
  it.runIf(noBusAtAll)('without a session bus, real keytar fails and openSecretStore falls back to safeStorage', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'outpost-no-keychain-'))
    try {
      const store = await openSecretStore({ safeStorage: fakeSafeStorage({ backend: 'basic_text' }), dataDir, platform: 'linux' })
      expect(store.kind).toBe('safe-storage')
      expect(store.describe().warning).toMatch(/only obfuscated/)
    } finally {
      await rm(dataDir, { recursive: true, force: true })
    }
  })
})

describe.runIf(sandbox)('the OS keychain (gnome-keyring over D-Bus)', () => {
  const root = sandbox!
  const dataHome = process.env.XDG_DATA_HOME ?? ''
  let appData: string
  let keytar: FullKeytar

  beforeEach(async () => {
    keytar = (await loadKeytar()) as FullKeytar
    appData = join(root, `app-data-${randomBytes(4).toString('hex')}`)
    await mkdir(appData, { recursive: true })
  })
  afterEach(async () => {
    await rm(appData, { recursive: true, force: true })
  })

  it(KEYCHAIN_TESTS.bus, async () => {
    expect(process.env.DBUS_SESSION_BUS_ADDRESS).toBeTruthy()
    expect(dataHome.startsWith(root)).toBe(true)
    expect(await filesUnder(join(dataHome, 'keyrings'))).not.toEqual([])
  })

  it(KEYCHAIN_TESTS.open, async () => {
    const safeStorage = fakeSafeStorage()
    const store = await openSecretStore({ safeStorage, dataDir: appData, platform: 'linux' })
    expect(store.kind).toBe('keychain')
    expect(store.describe()).toEqual({ kind: 'keychain', backend: 'Secret Service' })
    expect(safeStorage.calls).toEqual({ encrypt: 0, decrypt: 0 })
    expect(await filesUnder(appData)).toEqual([])
    expect(await keytar.findCredentials(KEYCHAIN_SERVICE)).toEqual([])
  })

  it(KEYCHAIN_TESTS.roundTrip, async () => {
    const secret = newToken()
    const store = new KeychainStore(keytar)
    const name = workspaceSecretName('https://api.example.com', 'field-team')
    const keyring = join(dataHome, 'keyrings')
    const before = await fingerprints(dataHome)

    await store.set(name, secret)
    // The daemon writes the keyring file itself; wait until it has.
    const changed = await changesSince(dataHome, before)
    expect(changed.length).toBeGreaterThan(0)
    for (const file of changed) {
      expect(file.startsWith(keyring + sep) && file.endsWith('.keyring'), `${file} changed`).toBe(true)
    }
    expect(await store.get(name)).toBe(secret)
    expect(await keytar.getPassword(KEYCHAIN_SERVICE, name)).toBe(secret)
    // Nowhere in clear: not in the keyring file, not in the app's data folder, nowhere in the sandbox.
    expect(await filesHolding(root, secret)).toEqual([])
    expect(await filesUnder(appData)).toEqual([])

    expect(await store.delete(name)).toBe(true)
    expect(await store.get(name)).toBeNull()
    expect(await store.delete(name)).toBe(false)
    expect(await filesHolding(root, secret)).toEqual([])
  })

  it(KEYCHAIN_TESTS.perWorkspace, async () => {
    const store = new KeychainStore(keytar)
    const a = workspaceSecretName('https://api.example.com', 'field-team')
    const b = workspaceSecretName('https://api.example.com', 'office')
    const c = workspaceSecretName('https://other.example.com/', 'field-team')
    const secrets = [newToken(), newToken(), newToken()]
    await store.set(a, secrets[0])
    await store.set(b, secrets[1])
    await store.set(c, secrets[2])
    expect([await store.get(a), await store.get(b), await store.get(c)]).toEqual(secrets)
    await store.set(b, 'replaced')
    expect(await store.get(b)).toBe('replaced')
    for (const name of [a, b, c]) await store.delete(name)
    expect(await keytar.findCredentials(KEYCHAIN_SERVICE)).toEqual([])
  })

  it(KEYCHAIN_TESTS.accounts, async () => {
    const service = await testService({ seed: 'demo' })
    try {
      const secrets = await openSecretStore({ safeStorage: fakeSafeStorage(), dataDir: appData, platform: 'linux' })
      expect(secrets.kind).toBe('keychain')
      const accounts = await Accounts.open({ dataDir: appData, secrets })
      const token = service.tokens.member
      const account = await accounts.addAccount(service.baseUrl, token)
      expect(await keytar.getPassword(KEYCHAIN_SERVICE, secretNameOf(account))).toBe(token)
      expect(await accounts.tokenFor(account.id)).toBe(token)
      expect(await filesUnder(appData)).toEqual([accounts.file])
      expect(await filesHolding(root, token)).toEqual([])

      await accounts.remove(account.id)
      expect(await keytar.getPassword(KEYCHAIN_SERVICE, secretNameOf(account))).toBeNull()
      expect(await keytar.findCredentials(KEYCHAIN_SERVICE)).toEqual([])
    } finally {
      await service.close()
    }
  })
})

/** Content hash of every file under a folder. */
async function fingerprints(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const file of await filesUnder(dir)) {
    try {
      out.set(
        file,
        createHash('sha256')
          .update(await readFile(file))
          .digest('hex'),
      )
    } catch {
      // Gone between listing and reading: a temporary file of the daemon.
    }
  }
  return out
}

/** The files created or changed since `before`, once there are any (bounded wait). */
async function changesSince(dir: string, before: Map<string, string>): Promise<string[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const now = await fingerprints(dir)
    const changed = [...now].filter(([file, hash]) => before.get(file) !== hash).map(([file]) => file)
    if (changed.length > 0) return changed
    await new Promise((r) => setTimeout(r, 100))
  }
  return []
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolvePromise({ code, output }))
  })
}
