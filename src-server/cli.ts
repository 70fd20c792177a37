// npm run server -- [--port N] [--db FILE] [--seed demo | --epics N --docs N --files N]
//                   [--rate-limit 200/60s|off] [--latency MS] [--fail-rate P]
//                   [--drop-rate P] [--drop-after-commit-rate P] [--fault-seed N] [--journal DIR] [--quiet]
import { parseArgs } from 'node:util'
import { parseRateLimit } from './ratelimit.ts'
import { startService, type ServiceOptions } from './index.ts'

const USAGE = `Usage: npm run server -- [--port N] [--host H] [--db FILE] [--seed demo | --epics N --docs N --files N]
       [--rate-limit 200/60s|off] [--latency MS] [--fail-rate P] [--drop-rate P]
       [--drop-after-commit-rate P] [--fault-seed N] [--disable docs|collections] [--quiet]
       [--journal DIR]       write every request and answer to DIR as JSON lines (no token values)
       [--exit-with-stdin]   stop when standard input closes (the parent that started it is gone)`

function fail(message: string): never {
  console.error(`outpost-local: ${message}\n${USAGE}`)
  process.exit(2)
}

function number(name: string, text: string | undefined, { min = 0, max = Infinity, integer = false } = {}): number | undefined {
  if (text === undefined) return undefined
  const n = Number(text)
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) fail(`--${name} must be a number from ${min} to ${max}; got "${text}"`)
  return n
}

async function main(): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        seed: { type: 'string' },
        epics: { type: 'string' },
        docs: { type: 'string' },
        files: { type: 'string' },
        'rate-limit': { type: 'string' },
        latency: { type: 'string' },
        'fail-rate': { type: 'string' },
        'drop-rate': { type: 'string' },
        'drop-after-commit-rate': { type: 'string' },
        'fault-seed': { type: 'string' },
        disable: { type: 'string', multiple: true },
        journal: { type: 'string' },
        quiet: { type: 'boolean' },
        'exit-with-stdin': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    })
  } catch (e) {
    fail((e as Error).message)
  }
  const v = parsed.values
  if (v.help) {
    console.log(USAGE)
    return
  }
  if (v.seed !== undefined && v.seed !== 'demo') fail(`--seed takes "demo"; got "${v.seed}"`)
  const sizes = {
    epics: number('epics', v.epics, { integer: true }),
    docs: number('docs', v.docs, { integer: true }),
    files: number('files', v.files, { integer: true }),
  }
  const sized = Object.values(sizes).some((n) => n !== undefined)
  if (v.seed && sized) fail('--seed demo and --epics/--docs/--files do not go together')
  let rateLimit: ServiceOptions['rateLimit']
  try {
    rateLimit = v['rate-limit'] ? parseRateLimit(v['rate-limit']) : undefined
  } catch (e) {
    fail((e as Error).message)
  }
  const disabled = v.disable ?? []
  for (const f of disabled) if (f !== 'docs' && f !== 'collections') fail(`--disable takes docs or collections; got "${f}"`)

  const service = await startService({
    port: number('port', v.port, { integer: true, max: 65535 }),
    host: v.host,
    db: v.db,
    journal: v.journal,
    seed: v.seed === 'demo' ? 'demo' : sized ? sizes : undefined,
    rateLimit,
    faults: {
      latencyMs: number('latency', v.latency) ?? 0,
      failRate: number('fail-rate', v['fail-rate'], { max: 1 }) ?? 0,
      dropRate: number('drop-rate', v['drop-rate'], { max: 1 }) ?? 0,
      dropAfterCommitRate: number('drop-after-commit-rate', v['drop-after-commit-rate'], { max: 1 }) ?? 0,
    },
    faultSeed: number('fault-seed', v['fault-seed'], { integer: true }),
    log: v.quiet ? undefined : (line) => console.log(line),
  })
  for (const f of disabled) service.setFeature(f as 'docs' | 'collections', false)
  console.log(JSON.stringify({ baseUrl: service.baseUrl, workspace: service.workspace, tokens: service.tokens }))
  let stopping = false
  const stop = () => {
    if (stopping) return
    stopping = true
    void service.close().then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  if (v['exit-with-stdin']) {
    // The parent holds the other end of stdin: when it dies, however it dies
    // (a crash, SIGKILL), the pipe closes and the service goes with it.
    process.stdin.once('end', stop)
    process.stdin.once('close', stop)
    process.stdin.resume()
  }
}

void main()
