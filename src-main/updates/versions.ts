// Which version is newer, by Semantic Versioning's precedence (what
// electron-updater compares with): MAJOR.MINOR.PATCH, a pre-release below its
// release, build metadata ignored. An update is offered only to a newer
// version: a feed that goes back (a release withdrawn) leaves the app as it is.

interface Version {
  core: [number, number, number]
  pre: Array<string | number>
}

const SEMVER = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/

export function parseVersion(text: string): Version | null {
  const m = SEMVER.exec(text.trim())
  if (!m) return null
  const pre = m[4] ? m[4].split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : []
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre }
}

/** Negative when a is older than b, 0 when they are the same release, positive when a is newer. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a)
  const y = parseVersion(b)
  if (!x) throw new TypeError(`“${a}” is not a version (MAJOR.MINOR.PATCH)`)
  if (!y) throw new TypeError(`“${b}” is not a version (MAJOR.MINOR.PATCH)`)
  for (let i = 0; i < 3; i++) if (x.core[i] !== y.core[i]) return x.core[i] - y.core[i]
  // A release is newer than its pre-releases.
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i]
    const q = y.pre[i]
    if (p === undefined) return -1
    if (q === undefined) return 1
    if (p === q) continue
    if (typeof p === 'number' && typeof q === 'number') return p - q
    // Numeric identifiers are below alphanumeric ones.
    if (typeof p === 'number') return -1
    if (typeof q === 'number') return 1
    return p < q ? -1 : 1
  }
  return 0
}

/** Whether the feed's version is an update for the running one. */
export function isUpdate(running: string, offered: string): boolean {
  return compareVersions(offered, running) > 0
}
