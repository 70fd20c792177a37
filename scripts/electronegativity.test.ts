// Electronegativity over the app leaves no finding unexplained (the scan of
// scripts/electronegativity.mjs, against scripts/electronegativity-allowlist.json),
// and the script fails when a finding is not explained or an entry gives no reason.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
const script = join(root, 'scripts/electronegativity.mjs')
const work = mkdtempSync(join(tmpdir(), 'outpost-electronegativity-test-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

interface Run {
  code: number
  output: string
}

async function run(...args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, output: stdout + stderr }
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof err.code === 'number' ? err.code : -1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }
  }
}

const allowlist = JSON.parse(readFileSync(join(root, 'scripts/electronegativity-allowlist.json'), 'utf8')) as {
  findings: { rule: string; file: string; code?: string; reason: string }[]
}
let scan: Run
const sarif = join(work, 'result.sarif')

beforeAll(async () => {
  // `npm test` builds first; on its own the scan builds when out/ is missing (--build).
  scan = await run('--build', '--out', work)
}, 300_000)

describe('Electronegativity', () => {
  it('finds nothing in src-main, src-renderer and the build that the allowlist does not explain', () => {
    expect(scan.output).toContain('Every finding is explained in the allowlist.')
    expect(scan.code, scan.output).toBe(0)
    expect(existsSync(sarif)).toBe(true)
  })

  it('scanned the whole app: the main side, the renderer and the build each have findings it recognised', () => {
    for (const part of ['src-main/', 'src-renderer/', 'out/main/', 'out/renderer/']) expect(scan.output).toMatch(new RegExp(`accepted +\\S+ ${part}`))
  })

  it('fails, naming it, on a finding the allowlist does not explain', async () => {
    const [dropped, ...kept] = allowlist.findings
    const file = join(work, 'without-one.json')
    writeFileSync(file, JSON.stringify({ findings: kept }))
    const judged = await run('--sarif', sarif, '--allowlist', file)
    expect(judged.code).toBe(1)
    expect(judged.output).toMatch(new RegExp(`NEW +${dropped.rule} ${dropped.file.replace(/[.*]/g, '\\$&')}`))
  })

  it('does not let an entry explain other code of the same rule and file', async () => {
    const file = join(work, 'other-code.json')
    writeFileSync(file, JSON.stringify({ findings: allowlist.findings.map((e) => (e.code ? { ...e, code: `${e.code}-not-this` } : e)) }))
    expect((await run('--sarif', sarif, '--allowlist', file)).code).toBe(1)
  })

  it('refuses an allowlist entry without a reason', async () => {
    const file = join(work, 'no-reason.json')
    writeFileSync(file, JSON.stringify({ findings: [...allowlist.findings.slice(1), { ...allowlist.findings[0], reason: 'ok' }] }))
    const judged = await run('--sarif', sarif, '--allowlist', file)
    expect(judged.code).toBe(2)
    expect(judged.output).toMatch(/needs a reason/)
  })
})
