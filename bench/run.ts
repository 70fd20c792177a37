// npm run bench: runs every benchmark in bench/ one after another (each in its
// own process, so one's memory does not weigh on the next) and prints their
// tables and JSON lines. Run one alone with `npx tsx bench/<name>.bench.ts`.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const only = process.argv.slice(2)
const benches = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort()
let failed = 0
for (const file of benches) {
  console.log(`\n=== ${file}`)
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file)], { stdio: 'inherit' })
  if (run.status !== 0) {
    failed++
    console.error(`${file} did not finish (exit ${run.status})`)
  }
}
process.exit(failed > 0 ? 1 : 0)
