// The chaos soak from the command line:
//   npm run soak -- --seed 7 --ops 10000 [--rate-limit 200/1s] [--every 500] [--details 200]
// Prints `lost N, duplicated N, wrong N` (and what it exercised) and exits 1 on any
// finding: a change lost, doubled or wrong on the service, or stuck in the outbox.
import { parseArgs } from 'node:util'
import { parseRateLimit } from '../src-server/ratelimit.ts'
import { clean, DEFAULT_PACE, formatReport, runSoak } from '../testing/soak/index.ts'

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    ops: { type: 'string', default: '10000' },
    'rate-limit': { type: 'string' },
    every: { type: 'string', default: '500' },
    details: { type: 'string', default: '100' },
  },
})

const whole = (name: string, text: string | undefined, min: number): number => {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < min) {
    console.error(`--${name} takes a whole number of at least ${min}; got "${text}"`)
    process.exit(2)
  }
  return n
}

const seed = whole('seed', values.seed, 0)
const ops = whole('ops', values.ops, 1)
let pace = DEFAULT_PACE
if (values['rate-limit']) {
  const parsed = parseRateLimit(values['rate-limit'])
  if (parsed === 'off') {
    console.error('--rate-limit must be a limit (the gateway paces itself to it), not off')
    process.exit(2)
  }
  pace = parsed
}

console.log(`soak: seed ${seed}, ${ops} actions, rate limit ${pace.max}/${pace.windowMs}ms`)
const report = await runSoak({ seed, ops, pace, every: whole('every', values.every, 1), log: (line) => console.log(line) })
console.log(formatReport(report, { maxDetails: whole('details', values.details, 0) }))
process.exit(clean(report) ? 0 : 1)
