// HTTP load from a process of its own: autocannon in a child process, so the
// load generator never shares the service's event loop (on one thread, parsing
// the answers would count as the service's time). Latencies are kept to the
// microsecond (autocannon's own histogram keeps whole milliseconds).
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

export interface LoadOptions {
  url: string
  headers: Record<string, string>
  connections: number
  seconds: number
}

export interface LoadResult {
  /** Every answered request's latency, in ms. */
  latencies: number[]
  requestsPerSecond: number
  /** Errors, timeouts and answers other than 2xx. */
  failed: number
}

/** Runs autocannon against `url` from a child process. */
export function load(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let result: LoadResult | undefined
    // The child loads this TypeScript file through tsx, however the benchmark itself was started.
    const child = fork(fileURLToPath(import.meta.url), [JSON.stringify(options)], { execArgv: ['--import', 'tsx'] })
    child.once('message', (message) => (result = message as LoadResult))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`the load process exited with ${code}`))))
  })
}

function run({ url, headers, connections, seconds }: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = []
    const instance = autocannon({ url, headers, connections, duration: seconds }, (error: unknown, result: autocannon.Result) => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)))
      resolve({ latencies, requestsPerSecond: latencies.length / result.duration, failed: result.errors + result.timeouts + result.non2xx })
    })
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms)
    })
  })
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await run(JSON.parse(process.argv[2]) as LoadOptions)
  process.send(result, () => process.disconnect())
}
