// What `npm start` runs: the desktop app when Electron's binary is there or can
// be fetched with Electron's own installer, else the same app in the default
// browser through the browser host. Plain JS (run by node, no build step).
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const require = createRequire(import.meta.url)

/** The Electron binary's path, or undefined when it was never downloaded. */
export function electronBinary() {
  try {
    // The electron package exports the binary's path, and throws when it was never downloaded.
    delete require.cache[require.resolve('electron')]
    const path = require('electron')
    return typeof path === 'string' && existsSync(path) ? path : undefined
  } catch {
    return undefined
  }
}

/**
 * Runs Electron's own installer (node_modules/electron/install.js), which
 * downloads the binary of the installed version and checks it against the
 * package's checksums. Resolves with what went wrong, or undefined.
 */
export function installElectron({ cwd = process.cwd(), env = process.env, timeoutMs = 10 * 60_000 } = {}) {
  return new Promise((resolve) => {
    // npm 11 skips install scripts unless allowed, and setups often say ELECTRON_SKIP_BINARY_DOWNLOAD: asked here, it is wanted.
    const { ELECTRON_SKIP_BINARY_DOWNLOAD: _skip, ...rest } = env
    const child = spawn(process.execPath, [join(cwd, 'node_modules', 'electron', 'install.js')], { cwd, env: rest, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve(error.message)
    })
    child.on('exit', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(undefined)
      else resolve(signal ? `the download took more than ${Math.round(timeoutMs / 60_000)} minutes` : firstLineOf(stderr) || `the installer exited with ${code}`)
    })
  })
}

/** The line of an installer's error that says what happened ("getaddrinfo ENOTFOUND github.com"). */
function firstLineOf(text) {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean)
  return (lines.find((l) => /error/i.test(l)) ?? lines[0] ?? '').replace(/^(Error|RequestError|HTTPError):\s*/, '')
}

/**
 * Decides how to run: `{ kind: 'electron', path }`, or `{ kind: 'browser', why }`
 * when there is no binary and it could not be fetched.
 */
export async function plan({ binary = electronBinary, install = installElectron, say = (line) => console.log(line) } = {}) {
  const present = binary()
  if (present) return { kind: 'electron', path: present }
  say('The Electron binary is not installed; fetching it with Electron’s installer…')
  const failed = await install()
  const fetched = failed === undefined ? binary() : undefined
  if (fetched) return { kind: 'electron', path: fetched }
  return { kind: 'browser', why: failed ?? 'the installer ran but left no binary' }
}
