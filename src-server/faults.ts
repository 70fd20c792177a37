// Fault injection for tests and benchmarks: latency, 5xx, and connections
// dropped before a request is handled or after its write has committed.

export interface Faults {
  /** Added to every request, in milliseconds. */
  latencyMs: number
  /** Requests of these paths (without the query) wait, unanswered, until the faults no longer name them: one answer held back while a test sets up. */
  heldPaths?: readonly string[]
  /** Share of requests answered 503 without being handled. */
  failRate: number
  /** Share of requests whose connection is dropped before they are handled. */
  dropRate: number
  /** Share of successful writes whose connection is dropped after they commit. */
  dropAfterCommitRate: number
}

export const NO_FAULTS: Faults = { latencyMs: 0, failRate: 0, dropRate: 0, dropAfterCommitRate: 0 }

/** A small seeded PRNG (mulberry32), so a fault run can be replayed exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function validateFaults(f: Faults): Faults {
  for (const key of ['failRate', 'dropRate', 'dropAfterCommitRate'] as const) {
    if (!(f[key] >= 0 && f[key] <= 1)) throw new Error(`${key} must be between 0 and 1; got ${f[key]}`)
  }
  if (!(f.latencyMs >= 0)) throw new Error(`latencyMs must be 0 or more; got ${f.latencyMs}`)
  for (const path of f.heldPaths ?? []) if (!path.startsWith('/')) throw new Error(`heldPaths: "${path}" is not a path`)
  return f
}
