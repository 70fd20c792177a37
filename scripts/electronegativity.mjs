#!/usr/bin/env node
// Runs Doyensec's Electronegativity over the app (src-main, src-renderer and the
// build in out/) and holds its findings against scripts/electronegativity-allowlist.json,
// where every accepted finding says why. Exits 1 on any finding the allowlist does not
// explain, 2 when the scan itself cannot be trusted (no build, a file it could not
// parse, an allowlist entry without a reason).
//
//   node scripts/electronegativity.mjs            scan (builds first with --build if out/ is missing)
//   node scripts/electronegativity.mjs --build    run `electron-vite build` when out/ is missing
//   node scripts/electronegativity.mjs --sarif F  judge an existing SARIF result instead of scanning
//   node scripts/electronegativity.mjs --out DIR  keep the SARIF result (result.sarif) in DIR
//   node scripts/electronegativity.mjs --allowlist F   another allowlist (tests)
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const require = createRequire(import.meta.url)

/** What is scanned: the main side and renderer sources, and the build that actually ships. */
const SCANNED = ['src-main', 'src-renderer', 'out']

/**
 * Checks left out, and why. AvailableSecurityFixesGlobalCheck downloads Electron's release
 * list from GitHub on every run: it needs the network and its answer changes from day to
 * day, so it cannot gate a build. Electron security releases are a dependency-update matter.
 */
const EXCLUDED_CHECKS = ['AvailableSecurityFixesGlobalCheck']

function parseArgs(argv) {
  const args = { build: false, sarif: undefined, out: undefined, allowlist: join(root, 'scripts/electronegativity-allowlist.json') }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--build') args.build = true
    else if (a === '--sarif') args.sarif = resolve(argv[++i])
    else if (a === '--out') args.out = resolve(argv[++i])
    else if (a === '--allowlist') args.allowlist = resolve(argv[++i])
    else throw new UsageError(`unknown argument ${a}`)
  }
  return args
}

class UsageError extends Error {}

/** The allowlist: `{findings: [{rule, file, code?, reason}]}`; `file` may use `*` for a hashed asset name. */
export function readAllowlist(path) {
  const json = JSON.parse(readFileSync(path, 'utf8'))
  if (!json || !Array.isArray(json.findings)) throw new UsageError(`${path}: expected {"findings": [...]}`)
  json.findings.forEach((e, i) => {
    const where = `${path}: findings[${i}]`
    for (const key of Object.keys(e)) if (!['rule', 'file', 'code', 'reason'].includes(key)) throw new UsageError(`${where}: unknown key "${key}"`)
    if (typeof e.rule !== 'string' || !e.rule) throw new UsageError(`${where}: "rule" is required`)
    if (typeof e.file !== 'string' || !e.file) throw new UsageError(`${where}: "file" is required`)
    if (e.code !== undefined && (typeof e.code !== 'string' || !e.code)) throw new UsageError(`${where}: "code", when given, is a non-empty string`)
    // An explanation, not a placeholder.
    if (typeof e.reason !== 'string' || e.reason.trim().length < 40) throw new UsageError(`${where}: every accepted finding needs a reason (at least a sentence) saying why it is a false positive or accepted`)
  })
  return json.findings
}

/** Copies what is scanned into one folder, so global checks (CSP, navigation limits, permission handler) see the whole app at once. Tests are not the app. */
function stage() {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-electronegativity-'))
  const input = join(dir, 'app')
  for (const part of SCANNED) {
    const copy = () =>
      cpSync(join(root, part), join(input, part), {
        recursive: true,
        filter: (src) => !/\.test\.ts$|[/\\]node_modules([/\\]|$)/.test(src),
      })
    try {
      copy()
    } catch {
      // A build rewriting out/ at this moment: copy again once it has settled.
      rmSync(join(input, part), { recursive: true, force: true })
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000)
      copy()
    }
  }
  return { dir, input }
}

function electronVersion() {
  return JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version
}

/** Runs the scanner; returns the SARIF path and any file it failed to parse. */
function scan(input, resultDir) {
  mkdirSync(resultDir, { recursive: true })
  const sarif = join(resultDir, 'result.sarif')
  const cli = join(dirname(require.resolve('@doyensec/electronegativity/package.json')), 'dist/index.js')
  const run = spawnSync(process.execPath, [cli, '-i', input, '-o', sarif, '-r', '-v', 'false', '-e', electronVersion(), '-x', EXCLUDED_CHECKS.join(',')], {
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  })
  const output = `${run.stdout}\n${run.stderr}`
  if (run.status !== 0 || !existsSync(sarif)) throw new Error(`Electronegativity failed (exit ${run.status}):\n${output.trim()}`)
  const unparsed = output.split('\n').filter((l) => /^Error parsing /.test(l.trim()))
  return { sarif, unparsed }
}

/** The findings of a SARIF result: rule, file (relative to the scanned folder), line, and the flagged code. */
export function findingsOf(sarifPath, scannedRoot) {
  const sarif = JSON.parse(readFileSync(sarifPath, 'utf8'))
  const results = sarif.runs?.flatMap((r) => r.results ?? []) ?? []
  return results.map((r) => {
    const loc = r.locations?.[0]?.physicalLocation
    const uri = decodeURIComponent(String(loc?.artifactLocation?.uri ?? '').replace(/^file:\/\//, ''))
    const file = uri && uri !== '/' ? uri.replace(/\\/g, '/').replace(/^\/+/, '') : '(whole app)'
    const line = loc?.region?.startLine ?? 0
    let code = ''
    if (scannedRoot && file !== '(whole app)' && line > 0) {
      try {
        // The code from where the finding points, across lines, whitespace collapsed
        // (the scanner's charLength is not reliable, so a fixed window is taken).
        const lines = readFileSync(join(scannedRoot, file), 'utf8').split('\n')
        const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + Math.max(0, (loc.region.startColumn ?? 1) - 1)
        code = lines.join('\n').slice(start, start + 200).replace(/\s+/g, ' ').trim()
      } catch {
        code = ''
      }
    }
    return { rule: r.ruleId, file, line, code, message: r.message?.text ?? '' }
  })
}

const globToRegExp = (glob) => new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`)

const squeeze = (s) => s.replace(/\s+/g, '')

/** The allowlist entry that explains a finding, if any: same rule and file, and the flagged code starts with the entry's code (whitespace aside). */
export function explain(finding, allowlist) {
  return allowlist.find((e) => e.rule === finding.rule && globToRegExp(e.file).test(finding.file) && (e.code === undefined || squeeze(finding.code).startsWith(squeeze(e.code))))
}

function main() {
  const args = parseArgs(process.argv.slice(2))
  const allowlist = readAllowlist(args.allowlist)
  let staged
  let sarif = args.sarif
  let scannedRoot
  let unparsed = []
  try {
    if (!sarif) {
      if (!existsSync(join(root, 'out/main/index.js')) || !existsSync(join(root, 'out/renderer/index.html'))) {
        if (!args.build) throw new UsageError('out/ has no build: run `npx electron-vite build` first, or pass --build')
        const build = spawnSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['electron-vite', 'build'], { cwd: root, stdio: 'inherit' })
        if (build.status !== 0) throw new Error('electron-vite build failed')
      }
      staged = stage()
      scannedRoot = staged.input
      ;({ sarif, unparsed } = scan(staged.input, args.out ?? join(staged.dir, 'result')))
    } else {
      scannedRoot = root
    }
    const findings = findingsOf(sarif, scannedRoot)
    const used = new Set()
    const unexplained = []
    console.log(`Electronegativity: ${findings.length} finding(s) over ${SCANNED.join(', ')}`)
    for (const f of findings) {
      const entry = explain(f, allowlist)
      const at = `${f.rule} ${f.file}${f.line ? `:${f.line}` : ''}${f.code ? `  ${f.code.slice(0, 80)}` : ''}`
      if (entry) {
        used.add(entry)
        console.log(`  accepted  ${at}\n            ${entry.reason}`)
      } else {
        unexplained.push(f)
        console.log(`  NEW       ${at}\n            ${f.message}`)
      }
    }
    for (const e of allowlist) if (!used.has(e)) console.log(`  (unused allowlist entry: ${e.rule} ${e.file}${e.code ? ` "${e.code}"` : ''}; remove it if the finding is gone)`)
    for (const u of unparsed) console.log(`  NOT SCANNED  ${u}`)
    if (args.out && sarif !== join(args.out, 'result.sarif')) console.log(`SARIF result: ${sarif}`)
    if (unparsed.length > 0) {
      console.log(`${unparsed.length} file(s) could not be parsed, so were not checked.`)
      return 2
    }
    if (unexplained.length > 0) {
      console.log(`${unexplained.length} finding(s) are not in ${relative(root, args.allowlist)}: fix the code, or add an entry that says why the finding is acceptable.`)
      return 1
    }
    console.log('Every finding is explained in the allowlist.')
    return 0
  } finally {
    if (staged) rmSync(staged.dir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('electronegativity.mjs')) {
  try {
    process.exitCode = main()
  } catch (error) {
    console.error(`electronegativity: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 2
  }
}
